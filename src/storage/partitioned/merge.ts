/**
 * @module partitioned/merge — reads of a partitioned store: each partition answers, the
 * answers merge.
 *
 * Pages (task listings, history) merge newest first across partitions, each partition's own
 * order kept; the cursor holds every partition's position, so a page never repeats or skips
 * a row that stays. Figures add up (counts, totals, running tasks, a pool's limit shares);
 * durations are figured over the partitions' samples together.
 */
import type { ScheduleRecord } from "../../core/task.ts";
import { pageLimit } from "../filter.ts";
import { durationStats, type StatsWithSamples } from "../stats.ts";
import type { FlowKeyStats, Page, PoolControl, StorageStats } from "../types.ts";
import { FLOW_KEYS_LISTED } from "../types.ts";

/** Reads one partition's page: at most `limit` after its own `cursor` (undefined: the top). */
export type PartPage<T> = (
  part: number,
  cursor: string | undefined,
  limit: number,
) => Promise<Page<T>>;

/** A partition's place in a merged listing: its own cursor, or done. */
type Place = { cursor: string | undefined } | "done";

const CURSOR = /^p\d+(?:\|[^|]*)+$/;

function readCursor(cursor: string | undefined, n: number): Place[] | null {
  if (!cursor) return Array.from({ length: n }, () => ({ cursor: undefined }));
  if (!CURSOR.test(cursor)) return null;
  const fields = cursor.split("|");
  if (fields[0] !== `p${n}` || fields.length !== n + 1) return null;
  return fields.slice(1).map((f) =>
    f === "." ? "done" : { cursor: f === "" ? undefined : decodeURIComponent(f) }
  );
}

function writeCursor(places: Place[]): string | null {
  if (places.every((p) => p === "done")) return null;
  const fields = places.map((p) =>
    p === "done" ? "." : p.cursor === undefined ? "" : encodeURIComponent(p.cursor)
  );
  return `p${places.length}|${fields.join("|")}`;
}

/**
 * One merged page of at most `limit` (default 50, max 1000), newest first by `time`. An
 * unreadable cursor answers an empty last page, as a partition's own listing does.
 */
export async function mergePages<T>(
  n: number,
  request: { cursor?: string; limit?: number },
  read: PartPage<T>,
  time: (item: T) => number,
): Promise<Page<T>> {
  const limit = pageLimit(request);
  const places = readCursor(request.cursor, n);
  if (!places) return { items: [], next: null };
  const pages = await Promise.all(
    places.map((place, k) =>
      place === "done" ? { items: [], next: null } : read(k, place.cursor, limit)
    ),
  );
  // Newest head first; a tie goes to the lower partition. Each partition's order is kept.
  const taken = pages.map(() => 0);
  const items: T[] = [];
  while (items.length < limit) {
    let best = -1;
    for (let k = 0; k < n; k++) {
      const head = pages[k].items[taken[k]];
      if (head === undefined) continue;
      if (best < 0 || time(head) > time(pages[best].items[taken[best]])) best = k;
    }
    if (best < 0) break;
    items.push(pages[best].items[taken[best]++]);
  }
  // Where each partition stands now: after its page, or after what this page took of it
  // (its own cursor for that many rows, one more read).
  const next = await Promise.all(places.map(async (place, k): Promise<Place> => {
    if (place === "done") return place;
    const page = pages[k];
    if (taken[k] === page.items.length) return page.next === null ? "done" : { cursor: page.next };
    if (taken[k] === 0) return place;
    const upTo = await read(k, place.cursor, taken[k]);
    return upTo.next === null ? "done" : { cursor: upTo.next };
  }));
  return { items, next: writeCursor(next) };
}

/** Due entries of every partition, earliest first, at most `limit`. */
export function mergeDue<T>(lists: T[][], at: (item: T) => number, limit: number): T[] {
  return lists.flat().sort((a, b) => at(a) - at(b)).slice(0, Math.max(0, Math.floor(limit)));
}

/** Every partition's schedules, oldest first (each partition lists in creation order). */
export function mergeSchedules(lists: ScheduleRecord[][]): ScheduleRecord[] {
  return lists.flat().sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

/**
 * The statistics of the whole deployment from each partition's: counts and totals add up,
 * durations are computed over every partition's samples together (each keeps its newest).
 */
export function mergeStats(all: StatsWithSamples[]): StorageStats {
  const out: StorageStats = structuredClone(all[0].stats);
  for (const { stats: s } of all.slice(1)) {
    for (const [status, n] of Object.entries(s.byStatus)) {
      out.byStatus[status as keyof StorageStats["byStatus"]] += n;
    }
    for (const [pool, p] of Object.entries(s.byPool)) {
      // Pool names are the user's: `valueOf` is a fine one, and no inherited member.
      if (!Object.hasOwn(out.byPool, pool)) out.byPool[pool] = { queued: 0, running: 0, parked: 0 };
      const into = out.byPool[pool];
      into.queued += p.queued;
      into.running += p.running;
      into.parked += p.parked;
    }
    for (const [k, n] of Object.entries(s.totals)) {
      out.totals[k as keyof StorageStats["totals"]] += n;
    }
  }
  const samples = new Map<string, number[]>();
  for (const part of all) {
    for (const [type, values] of Object.entries(part.samples)) {
      samples.set(type, [...(samples.get(type) ?? []), ...values]);
    }
  }
  out.durations = Object.fromEntries([...samples].map(([t, v]) => [t, durationStats(v)]));
  out.flowKeys = interleave(all.map((p) => p.stats.flowKeys)).slice(0, FLOW_KEYS_LISTED);
  return out;
}

/** Each partition lists its busiest keys newest first: take them in turn. */
function interleave(lists: FlowKeyStats[][]): FlowKeyStats[] {
  const out: FlowKeyStats[] = [];
  for (let i = 0; out.length < FLOW_KEYS_LISTED && lists.some((l) => i < l.length); i++) {
    for (const list of lists) if (i < list.length) out.push(list[i]);
  }
  return out;
}

/**
 * The deployment's pool controls: sizes and pause flags as partition 0 holds them (every
 * write goes to every partition), and each limit the sum of the partitions' shares.
 */
export function mergePoolControls(all: PoolControl[][]): PoolControl[] {
  return all[0].map((c) => {
    const shares = all.map((list) => list.find((x) => x.pool === c.pool));
    const sum = (pick: (x: PoolControl) => number | null) =>
      shares.reduce((s, x) => s + (x ? pick(x) ?? 0 : 0), 0);
    return {
      ...c,
      globalConcurrency: c.globalConcurrency === null ? null : sum((x) => x.globalConcurrency),
      rateLimit: c.rateLimit === null
        ? null
        : { max: sum((x) => x.rateLimit?.max ?? null), perMs: c.rateLimit.perMs },
    };
  });
}
