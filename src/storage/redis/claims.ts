/**
 * @module claims — claims of one tick, for any number of pools, become one script call.
 *
 * A worker pumps each of its pools on its own, so a wake-up of every pool (the backstop
 * poll, a control change, start-up) would otherwise cost one EVALSHA per pool. Batched,
 * an idle worker's poll is one command however many pools it serves, and busy pools that
 * free slots in the same tick share a round trip. Claims are applied in call order.
 */
import type { TaskRecord, TaskStatus } from "../../core/task.ts";
import type { LeaseOwner } from "../storage.ts";
import { Batcher } from "./batcher.ts";
import type { RedisContext } from "./context.ts";
import type { RedisReply } from "./transport.ts";

export interface ClaimItem {
  pool: string;
  /** At least 1. */
  max: number;
  owner: LeaseOwner;
  now: number;
}

export function claimBatcher(ctx: RedisContext): Batcher<ClaimItem, TaskRecord[]> {
  return new Batcher(async (items) => {
    const args = items.flatMap((c) => [
      String(c.now),
      c.pool,
      String(c.max),
      c.owner.workerId,
      String(c.owner.leaseMs),
    ]);
    const reply = await ctx.run("claim", args) as RedisReply[][];
    return reply.map((claimed) => claimed.map((values) => decodeClaimed(values as Value[])));
  });
}

type Value = string | null;
const num = (v: Value) => (v === null ? null : Number(v));
const parse = (v: Value) => (v === null ? null : JSON.parse(v));

/**
 * A claimed task from the values of CLAIMED_FIELDS in lua/claim-1.lua, by position: the
 * same record decodeTask (codec.ts) builds from a full hash, without a field name per value.
 */
function decodeClaimed(v: Value[]): TaskRecord {
  const [id, type, status, pool, priority, payload, attempt, maxRetries, progress] = v;
  const [result, error, runAt, startedAt, finishedAt, key, cancelReason, workerId, body] = v
    .slice(9);
  const b = JSON.parse(body!);
  return {
    id: id!,
    type: type!,
    status: status as TaskStatus,
    pool: pool!,
    priority: Number(priority),
    payload: parse(payload),
    attempt: Number(attempt),
    maxRetries: Number(maxRetries),
    progress: num(progress),
    result: parse(result),
    error: parse(error),
    createdAt: b.createdAt,
    runAt: num(runAt),
    startedAt: num(startedAt),
    finishedAt: num(finishedAt),
    scheduleId: b.scheduleId,
    dependsOn: b.dependsOn,
    onSuccessOf: b.onSuccessOf,
    onFailureOf: b.onFailureOf,
    key: key ?? null,
    timeoutMs: b.timeoutMs,
    backoff: b.backoff,
    cancelReason: cancelReason ?? null,
    workerId: workerId ?? null,
  };
}
