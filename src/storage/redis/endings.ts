/**
 * @module endings — completions and failures, batched: the calls of one tick become one
 * script call over many tasks (applied in call order, so the outcome equals running them
 * one by one), and resubmitMatching, looped over bounded script steps.
 */
import type { TaskError } from "../../core/task.ts";
import { Batcher } from "./batcher.ts";
import { json } from "./codec.ts";
import type { RedisContext } from "./context.ts";

/** Tasks per resubmitMatching step. */
const RESUBMIT_CHUNK = 500;

export interface CompleteItem {
  id: string;
  workerId: string;
  now: number;
  result: unknown;
}

export interface FailItem {
  id: string;
  workerId: string;
  now: number;
  error: TaskError;
  retryAt: number | null;
}

export function completeBatcher(ctx: RedisContext): Batcher<CompleteItem, boolean> {
  return new Batcher(async (items) => {
    const args = items.flatMap((c) => [c.id, c.workerId, String(c.now), json(c.result ?? null)]);
    const reply = await ctx.run("complete", [...ctx.retentionArgs(), ...args]);
    return (reply as number[]).map((n) => n === 1);
  });
}

export function failBatcher(ctx: RedisContext): Batcher<FailItem, "retrying" | "dead" | null> {
  return new Batcher(async (items) => {
    const args = items.flatMap((f) => [
      f.id,
      f.workerId,
      String(f.now),
      JSON.stringify({ ...f.error }),
      f.retryAt === null ? "" : String(f.retryAt),
    ]);
    const reply = await ctx.run("fail", [...ctx.retentionArgs(), ...args]);
    return (reply as string[]).map((s) => (s === "retrying" || s === "dead" ? s : null));
  });
}

/** Resubmits matching dead or cancelled tasks, oldest first, a bounded chunk per script call. */
export async function resubmitMatching(
  ctx: RedisContext,
  filter: { status: "dead" | "cancelled"; type?: string; pool?: string },
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
