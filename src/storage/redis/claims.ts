/**
 * @module claims — claims of one tick, for any number of pools, become one script call.
 *
 * A worker pumps each of its pools on its own, so a wake-up of every pool (the backstop
 * poll, a control change, start-up) would otherwise cost one EVALSHA per pool. Batched,
 * an idle worker's poll is one command however many pools it serves, and busy pools that
 * free slots in the same tick share a round trip. Claims are applied in call order.
 */
import type { TaskRecord } from "../../core/task.ts";
import type { LeaseOwner } from "../storage.ts";
import { Batcher } from "./batcher.ts";
import { decodeTask } from "./codec.ts";
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
    return reply.map((claimed) => claimed.map((flat) => decodeTask(flat)!.record));
  });
}
