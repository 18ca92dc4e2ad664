/**
 * @module queries — listings and statistics over Redis: list, children, history, stats.
 *
 * Listings run a bounded Lua step at a time (at most a few thousand entries examined per
 * call, so no call blocks Redis for long) and loop until the page is full. Lua filters
 * status, type and pool exactly and pre-filters the text; the exact text match is done here
 * with the same matcher the embedded store uses, so both backends list alike.
 */
import type { AttemptRecord, TaskRecord } from "../../core/task.ts";
import { ALL_STATUSES, type TaskStatus } from "../../core/task.ts";
import type { HistoryFilter, Page, PageRequest, StorageStats, TaskFilter } from "../types.ts";
import { attemptMatcher, pageLimit, taskMatcher } from "../filter.ts";
import { durationStats, type StatsWithSamples } from "../stats.ts";
import { decodeAttempt } from "./attempt-codec.ts";
import { decodeTask } from "./codec.ts";
import type { RedisContext } from "./context.ts";
import { storageError } from "./faults.ts";
import { INDEXED_STATUSES, keys } from "./keys.ts";
import type { RedisReply } from "./transport.ts";

/** Entries one Lua step may examine. */
const STEP_BUDGET = 2_000;

function statuses(filter: TaskFilter): string[] {
  if (!filter.status) return [];
  return Array.isArray(filter.status) ? filter.status : [filter.status];
}

/**
 * The Redis bound for a cursor. An unreadable cursor behaves as in the embedded store,
 * which compares with NaN: task listings come back empty (null), history starts over.
 */
function startBound(cursor: string | undefined, unreadable: string | null): string | null {
  if (!cursor) return "+inf";
  const n = Number(cursor);
  if (Number.isNaN(n)) return unreadable;
  return n === Infinity ? "+inf" : n === -Infinity ? null : `(${n}`;
}

export async function listTasks(ctx: RedisContext, filter: TaskFilter): Promise<Page<TaskRecord>> {
  const limit = pageLimit(filter);
  const match = taskMatcher(filter);
  const wanted = statuses(filter);
  const index = wanted.length === 1 && INDEXED_STATUSES.has(wanted[0] as TaskStatus)
    ? `status:${wanted[0]}`
    : "all";
  let bound = startBound(filter.cursor, null);
  const found: { record: TaskRecord; order: number }[] = [];
  while (bound && found.length <= limit) {
    const reply = await ctx.run("listTasks", [
      index,
      bound,
      wanted.join(","),
      filter.type ?? "",
      filter.pool ?? "",
      filter.q?.toLowerCase() ?? "",
      String(limit + 1 - found.length),
      String(STEP_BUDGET),
    ]) as RedisReply[];
    bound = String(reply[0]);
    for (const flat of reply.slice(1)) {
      const row = decodeTask(flat);
      if (row && match(row.record)) found.push(row);
    }
  }
  const page = found.slice(0, limit);
  return {
    items: page.map((r) => r.record),
    next: found.length > limit ? String(page[page.length - 1].order) : null,
  };
}

/**
 * The children list of task `id` (`children:<id>`, "<s|f><childId>" entries in the order
 * they were added), a page at a time: one LRANGE, then the records in one pipeline. The
 * cursor is an offset into the list, which only grows while its task is kept.
 */
export async function listChildren(
  ctx: RedisContext,
  id: string,
  page: PageRequest,
): Promise<Page<TaskRecord>> {
  const limit = pageLimit(page);
  const from = page.cursor ? Math.max(0, Math.floor(Number(page.cursor)) || 0) : 0;
  const entries = await ctx.transport.send(
    ["LRANGE", keys.children(ctx.prefix, id), String(from), String(from + limit)],
  ) as string[];
  const ids = entries.slice(0, limit).map((entry) => String(entry).slice(1));
  const next = entries.length > limit ? String(from + limit) : null;
  if (ids.length === 0) return { items: [], next };
  const rows = await ctx.transport.pipeline(ids.map((c) => ["HGETALL", keys.task(ctx.prefix, c)]));
  const items: TaskRecord[] = [];
  for (const [i, row] of rows.entries()) {
    if (row instanceof Error) throw storageError(row);
    const decoded = decodeTask(row, ids[i]);
    if (decoded) items.push(decoded.record);
  }
  return { items, next };
}

/**
 * Attempts newest first, in bounded steps. With `taskId` the steps stop at the task's
 * creation: its attempts all have a history seq above its `order` (one counter makes both).
 */
export async function listHistory(
  ctx: RedisContext,
  filter: HistoryFilter,
): Promise<Page<AttemptRecord>> {
  const limit = pageLimit(filter);
  const match = attemptMatcher(filter);
  let bound = startBound(filter.cursor, "+inf");
  let floor = -Infinity;
  if (filter.taskId !== undefined) {
    const order = await ctx.transport.send(["HGET", keys.task(ctx.prefix, filter.taskId), "order"]);
    if (order !== null && order !== undefined) floor = Number(order);
  }
  // The script's text pre-filter narrows a task's attempts to those naming its id.
  const q = (filter.q ?? filter.taskId ?? "").toLowerCase();
  const found: { attempt: AttemptRecord; seq: string }[] = [];
  while (bound && found.length <= limit) {
    const reply = await ctx.run("history", [
      bound,
      statuses(filter).join(","),
      filter.type ?? "",
      filter.pool ?? "",
      q,
      String(limit + 1 - found.length),
      String(STEP_BUDGET),
    ]) as RedisReply[];
    bound = String(reply[0]);
    if (bound && Number(bound.slice(1)) <= floor) bound = "";
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const attempt = decodeAttempt(String(reply[i + 1]));
      // Attempts before the creation belong to an earlier task of the same id (row retention
      // dropped it, history kept them): not this task's.
      if (match(attempt) && Number(reply[i]) > floor) {
        found.push({ attempt, seq: String(reply[i]) });
      }
    }
  }
  const page = found.slice(0, limit);
  return {
    items: page.map((a) => a.attempt),
    next: found.length > limit ? page[page.length - 1].seq : null,
  };
}

export async function readStats(ctx: RedisContext): Promise<StatsWithSamples> {
  const [counts, pools, totals, durations, busy] = await ctx.run("stats", []) as RedisReply[][];
  const byStatus = Object.fromEntries(ALL_STATUSES.map((s) => [s, 0])) as Record<
    TaskStatus,
    number
  >;
  for (let i = 0; i + 1 < counts.length; i += 2) {
    byStatus[counts[i] as TaskStatus] = Number(counts[i + 1]);
  }
  const byPool: StorageStats["byPool"] = {};
  for (let i = 0; i + 3 < pools.length; i += 4) {
    byPool[String(pools[i])] = {
      queued: Number(pools[i + 1]),
      running: Number(pools[i + 2]),
      parked: Number(pools[i + 3]),
    };
  }
  const limit = (v: RedisReply) => (v === "" ? null : Number(v));
  const flowKeys: StorageStats["flowKeys"] = [];
  for (let i = 0; i + 5 < busy.length; i += 6) {
    flowKeys.push({
      key: String(busy[i]),
      parallelism: limit(busy[i + 1]),
      rate: limit(busy[i + 2]),
      periodMs: limit(busy[i + 3]),
      running: Number(busy[i + 4]),
      parked: Number(busy[i + 5]),
    });
  }
  const stats: StorageStats["durations"] = {};
  const samples: Record<string, number[]> = {};
  for (let i = 0; i + 1 < durations.length; i += 2) {
    const type = String(durations[i]);
    samples[type] = (durations[i + 1] as RedisReply[]).map(Number);
    stats[type] = durationStats(samples[type]);
  }
  return {
    samples,
    stats: {
      byStatus,
      byPool,
      totals: {
        succeeded: Number(totals[0]),
        failedAttempts: Number(totals[1]),
        dead: Number(totals[2]),
        stalled: Number(totals[3]),
        expired: Number(totals[4]),
      },
      durations: stats,
      flowKeys,
    },
  };
}
