/**
 * @module endings — completions and failures, batched: the calls of one tick become one
 * script call over many tasks (applied in call order, so the outcome equals running them
 * one by one), and resubmitMatching, looped over bounded script steps.
 */
import type { AttemptRecord, TaskRecord } from "../../core/task.ts";
import type { FailParams } from "../params.ts";
import type { EndedFilter, Lease, LogBatch } from "../types.ts";
import { Batcher } from "./batcher.ts";
import { json } from "./codec.ts";
import { encodeAttempt } from "./attempt-codec.ts";
import type { RedisContext } from "./context.ts";
import { logsArg } from "./task-logs.ts";

/** Tasks per resubmitMatching step. */
const RESUBMIT_CHUNK = 500;

export interface CompleteItem {
  lease: Lease;
  now: number;
  result: unknown;
  logs?: LogBatch;
  /** The attempt as this store claimed it, when it did: the script then files the history
   * entry built here instead of building it from the stored task. */
  claimed?: TaskRecord;
  /** false: no history entry, only the duration sample. */
  history?: boolean;
}

export function completeBatcher(ctx: RedisContext): Batcher<CompleteItem, boolean> {
  return new Batcher(async (items) => {
    const args = items.flatMap((c) => [
      c.lease.id,
      c.lease.workerId,
      c.lease.token,
      String(c.now),
      json(c.result ?? null),
      ...historyEntry(c),
      logsArg(c.logs),
    ]);
    const reply = await ctx.run("complete", [...ctx.retentionArgs(), ...args]);
    return (reply as number[]).map((n) => n === 1);
  });
}

/**
 * durationMs and the history entry (attempt-codec.ts) of a successful attempt this store claimed, as
 * lua/includes/attempts.lua's recordAttempt would build them from the stored task (the
 * script files them only while the lease is held); "" for the duration when the claim is not
 * known (the script builds them), and "-" for the entry when the attempt is to have none.
 */
function historyEntry(c: CompleteItem): [string, string] {
  const none = c.history === false ? "-" : "";
  const task = c.claimed;
  if (!task || task.startedAt === null) return ["", none];
  const durationMs = Math.max(0, c.now - task.startedAt);
  if (none) return [String(durationMs), none];
  const entry: AttemptRecord = {
    taskId: task.id,
    type: task.type,
    pool: task.pool,
    attempt: task.attempt,
    status: "succeeded",
    error: null,
    startedAt: task.startedAt,
    finishedAt: c.now,
    durationMs,
    workerId: c.lease.workerId,
  };
  return [String(durationMs), encodeAttempt(entry)];
}

export function failBatcher(ctx: RedisContext): Batcher<FailParams, "retrying" | "dead" | null> {
  return new Batcher(async (items) => {
    const args = items.flatMap((f) => [
      f.lease.id,
      f.lease.workerId,
      f.lease.token,
      String(f.now),
      JSON.stringify({ ...f.error }),
      f.retryAt === null ? "" : String(f.retryAt),
      logsArg(f.logs),
    ]);
    const reply = await ctx.run("fail", [...ctx.retentionArgs(), ...args]);
    return (reply as string[]).map((s) => (s === "retrying" || s === "dead" ? s : null));
  });
}

/** Resubmits matching dead, cancelled or expired tasks, oldest first, a bounded chunk per script call. */
export async function resubmitMatching(
  ctx: RedisContext,
  filter: EndedFilter,
  now: number,
): Promise<number> {
  let total = 0;
  let cursor = "-inf";
  while (cursor !== "") {
    const [n, next] = await ctx.run("resubmitMatching", [
      String(now),
      filter.status,
      filter.type ?? "",
      filter.pool ?? "",
      cursor,
      String(RESUBMIT_CHUNK),
    ]) as [number, string];
    total += Number(n);
    cursor = String(next ?? "");
  }
  return total;
}
