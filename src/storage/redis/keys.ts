/**
 * @module keys — the Redis key prefix, its hash tag, and the key names built on it.
 *
 * Every key of one store lives under `<prefix>:{<tag>}:`. Redis Cluster hashes only the part
 * inside the braces, so all keys of a store share one slot and every Lua script stays
 * single-slot (no CROSSSLOT errors). Scripts get the prefix as KEYS[1] and derive the rest
 * (see lua/includes/prefix.lua for the layout); this module builds the same names for the few
 * plain reads done from TypeScript.
 */
import type { TaskStatus } from "../../core/task.ts";

const FORBIDDEN = /[{}\s]/;

/**
 * The key prefix for a store, e.g. `skedulr:{default}:`.
 *
 * @example
 * keyPrefix("skedulr", "emails"); // "skedulr:{emails}:"
 */
export function keyPrefix(prefix = "skedulr", tag = "default"): string {
  for (const [what, value] of [["prefix", prefix], ["tag", tag]]) {
    if (!value || FORBIDDEN.test(value)) {
      throw new TypeError(
        `Invalid Redis key ${what} ${JSON.stringify(value)}: use a non-empty name without ` +
          `braces or spaces (the tag becomes the {hash tag} of every key)`,
      );
    }
  }
  return `${prefix}:{${tag}}:`;
}

/** Key names derived from a prefix, matching lua/includes/prefix.lua. */
export const keys = {
  task: (p: string, id: string) => `${p}task:${id}`,
  children: (p: string, id: string) => `${p}children:${id}`,
  /**
   * List: a task's log lines (JSON), oldest first, within MAX_TASK_LOG_LINES and
   * MAX_TASK_LOG_BYTES; counted by the task hash's lb, lf, lw and lm fields
   * (lua/includes/task-logs.lua), deleted with the row.
   */
  logs: (p: string, id: string) => `${p}logs:${id}`,
  /**
   * List: a pool's queued tasks of one priority, `<seq><id>` members oldest first; entries of
   * tasks that left `queued` stay until a claim drops them (lua/includes/ready.lua).
   */
  readyList: (p: string, pool: string, priority: number) => `${p}rl:${priority}:${pool}`,
  /** Zset: the priorities with a ready list (or tasks going back), score = -priority. */
  readyLevels: (p: string, pool: string) => `${p}rlv:${pool}`,
  status: (p: string, status: string) => `${p}status:${status}`,
  delayed: (p: string) => `${p}delayed`,
  /** Zset: tasks that may expire before they start, score = expiresAt, member = id. */
  expiries: (p: string) => `${p}expiries`,
  leases: (p: string) => `${p}leases`,
  /** String: the one monotonic counter; its absence means the store never held a task. */
  seq: (p: string) => `${p}seq`,
  schedules: (p: string) => `${p}schedules`,
  controlPools: (p: string) => `${p}control-pools`,
  /** Hash: `size:<pool>`, `paused:<pool>`, `global:<pool>`, `rate:<pool>` ("<max>/<perMs>"). */
  control: (p: string) => `${p}control`,
  /** Zset: a rate-limited pool's recent starts, score = start time, member = claim token. */
  starts: (p: string, pool: string) => `${p}starts:${pool}`,
  events: (p: string) => `${p}events`,
  /** String: a flow key's running count, limit and flags in one integer (lua/includes/flow-state.lua). */
  flowState: (p: string, key: string) => `${p}flow:${key}`,
  /** String: a flow key's limits, "par|rate|per". */
  flowLimits: (p: string, key: string) => `${p}flowl:${key}`,
  /** Zset: a flow key's queued tasks held back by its limit (score -priority, list member). */
  parked: (p: string, key: string) => `${p}parked:${key}`,
  /** String `<expiresAt>:<id>`: the task a submit with `dedupe.key` stored (enqueue-1.lua). */
  dedupe: (p: string, key: string) => `${p}dedupe:${key}`,
  /** String `<firstAt>:<id>`: the burst of submits with `debounce.key` and its waiting task. */
  debounce: (p: string, key: string) => `${p}debounce:${key}`,
  /** Hash: `layout`, the data layout version (layout.ts). */
  meta: (p: string) => `${p}meta`,
};

/**
 * How long a `dedupe:<key>` entry outlives its expiry, and a `debounce:<key>` entry its
 * task's runAt, before Redis collects it (PX, Redis's clock): each is read against the
 * callers' clock, so this covers a Redis clock that ran further than theirs (a slow caller,
 * a caller's clock behind). Without it a dedupe key could be gone before its ttl ended.
 */
export const SUBMIT_KEY_GRACE_MS = 60_000;

/** Statuses with their own `status:<status>` index (rare ones); listings of others scan `all`. */
export const INDEXED_STATUSES: ReadonlySet<TaskStatus> = new Set([
  "waiting",
  "dead",
  "cancelled",
  "expired",
]);

/**
 * Creation orders per bucket of the `all` index (the list `al:<n>`, n = floor(order /
 * INDEX_BUCKET)): orders are seqs, so a bucket holds at most this many short members and
 * stays one listpack (lua/includes/index-buckets.lua).
 */
export const INDEX_BUCKET = 128;

/**
 * Width of the sequence number that prefixes members of ready, delayed, schedule and history
 * sets: zero-padded, so members with equal scores sort by it.
 */
export const SEQ_WIDTH = 16;

/** The id inside a `<seq><id>` member. */
export function memberId(member: string): string {
  return member.slice(SEQ_WIDTH);
}

/**
 * The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, mod 16384), as Redis
 * computes it. Used by tests to show that every key of a store shares one slot.
 */
export function hashSlot(key: string): number {
  let bytes = new TextEncoder().encode(key);
  const open = bytes.indexOf(0x7b); // {
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1); // }
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc % 16384;
}
