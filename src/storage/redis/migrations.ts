/**
 * @module migrations — the steps that bring a store from one data layout to the next, and
 * init()'s check that the store speaks this code's layout (docs/UPGRADING.md).
 *
 * The rule for a layout change (a key, hash field or member encoding the scripts read):
 * bump LAYOUT in layout.ts, regenerate the scripts (`bun scripts/tools/gen-lua.ts`), and
 * append a migration `{from: N, to: N + 1}` here. It runs in `init()` of the first node of
 * the new release, so it must be idempotent (a crashed init runs it again), bounded per Lua
 * call like every transition, and set `meta.layout` to `to` in the script of its last write,
 * only while it still says `from` (two nodes may start at once). Its Lua cannot include
 * `prefix`, whose guard refuses layout `from`: such scripts live in lua/migrations/ (bundled
 * as MIGRATION_SCRIPTS) and check their own `from`. Keep a migration while stores of layout
 * `from` may exist.
 */
import { LAYOUT, layoutRefusal, UNVERSIONED_LAYOUT } from "./layout.ts";
import { keys } from "./keys.ts";
import type { RedisContext } from "./context.ts";
import { MIGRATION_SCRIPTS } from "./scripts.generated.ts";

export interface Migration {
  from: number;
  to: number;
  /** What changes, for the log and docs/UPGRADING.md. */
  what: string;
  /** Migrates one store; resolves once `meta.layout` says `to`. */
  run(ctx: RedisContext): Promise<void>;
}

/**
 * A migration whose new layout only adds keys or fields that read as the old behaviour when
 * absent: it moves the stamp and rewrites nothing (lua/migrations/restamp-1.lua).
 */
function restamp(from: number, to: number, what: string): Migration {
  return {
    from,
    to,
    what,
    async run(ctx) {
      await ctx.runner.run(MIGRATION_SCRIPTS.restamp, [ctx.prefix], [String(from), String(to)]);
    },
  };
}

/**
 * A migration done in bounded steps: the script moves a bounded number of entries a call and
 * answers "more" until it stamps `to` (a crashed init() goes on where it stopped).
 */
function stepwise(
  from: number,
  to: number,
  script: keyof typeof MIGRATION_SCRIPTS,
  what: string,
): Migration {
  return {
    from,
    to,
    what,
    async run(ctx) {
      for (;;) {
        const [found] = await ctx.runner.run(MIGRATION_SCRIPTS[script], [ctx.prefix], [
          String(from),
          String(to),
        ]) as string[];
        if (found !== "more") return;
      }
    },
  };
}

/** Layout 2 to 3: smaller records (lua/migrations/compactRecords-1.lua, 1,000 entries a call). */
const compactRecords = stepwise(
  2,
  3,
  "compactRecords",
  "history: the `history` zset becomes the `attempts` stream (entry <seq>-0, field a = " +
    "the attempt's values as a JSON array); the `all` zset becomes buckets all:<n> listed " +
    "in allb; the `finished` zset becomes the `retained` stream, its members carrying the " +
    "task's order; task " +
    "hashes leave out id and fields at their defaults (pool default, priority, attempt and " +
    "maxRetries 0), and hashes holding them read the same",
);

/** Layout 3 to 4: ready lists (lua/migrations/readyLists-1.lua, 1,000 entries a call). */
const readyLists = stepwise(
  3,
  4,
  "readyLists",
  "each pool's `ready:<pool>` zset becomes per priority a list rl:<priority>:<pool> (same " +
    "members, same order), its priorities in the zset rlv:<pool>, its count in the hash " +
    "queuedn; tasks going back to their place wait in rf:<priority>:<pool>",
);

/** Layout 5 to 6: the `all` index as lists (lua/migrations/indexLists-1.lua, 8 buckets a call). */
const indexLists = stepwise(
  5,
  6,
  "indexLists",
  "the `all` index: each bucket all:<n> (a zset listed in allb) becomes the list al:<n> of " +
    "its ids, oldest first, listed in alb",
);

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  restamp(
    1,
    2,
    "flow control: pool limits (control global:/rate:, starts:<pool>), dedupe:<key> and " +
      "debounce:<key>, flow keys (flow:<key>, flowl:<key>, flowstarts:<key>, parked:<key>, flowparked, " +
      "flowwakes, `~<key>` markers in delayed, task fields fk and wf); expiry: the `expiries` zset, the task field expiresAt, the status " +
      "`expired` (status:expired, totals.expired); callbacks: the task fields cb and cbn; " +
      "new keys only, absent = no limit, no expiry and no callback, so nothing is rewritten",
  ),
  compactRecords,
  readyLists,
  restamp(
    4,
    5,
    "leaner records: a task's `body` holding only its creation time is that number, a null " +
      "result is not stored, history entries are text (attempt-codec.ts), an event that " +
      "repeats the previous one but for its id is the id alone; what was stored before " +
      "reads the same, so nothing is rewritten",
  ),
  indexLists,
];

/**
 * Brings the store to this code's layout: runs the migrations from the layout it holds (a
 * prefix without `meta` holds layout 1), then stamps `meta.layout` when absent. Throws
 * StorageLayoutError (layout.ts) for a layout this code cannot reach (a newer one).
 */
export async function ensureLayout(ctx: RedisContext): Promise<void> {
  const stamped = await ctx.transport.send(["HGET", keys.meta(ctx.prefix), "layout"]);
  let found = stamped === null ? UNVERSIONED_LAYOUT : Number(stamped);
  for (const m of MIGRATIONS) {
    if (m.from !== found) continue;
    await m.run(ctx);
    found = m.to;
  }
  // The stamp script runs the layout guard first: a layout still not this code's is
  // refused there, with the message every script gives.
  await ctx.run("initLayout", []);
}

/**
 * Throws the guard's StorageLayoutError when the store holds a layout other than this code's,
 * as every script would: a store with no stamp and no seq counter never held a task (it takes
 * this layout on its first call); one with a seq counter but no stamp holds layout 1.
 */
export async function checkLayout(ctx: RedisContext): Promise<void> {
  const stamped = await ctx.transport.send(["HGET", keys.meta(ctx.prefix), "layout"]);
  let found = stamped === null ? null : String(stamped);
  if (found === null) {
    const used = await ctx.transport.send(["EXISTS", keys.seq(ctx.prefix)]);
    found = used === 0 ? String(LAYOUT) : String(UNVERSIONED_LAYOUT);
  }
  if (found !== String(LAYOUT)) throw layoutRefusal(found, ctx.prefix);
}
