/**
 * @module runner — runs one attempt: middleware, handler, timeout and abort.
 *
 * A thrown error, a rejected promise and a timeout are failures. A handler that ignores its
 * signal cannot hold the attempt open past its timeout or a cancel: the race ends the attempt
 * and the late result is dropped.
 */
import type { Clock } from "../core/clock.ts";
import type { TaskRecord } from "../core/task.ts";
import type { Handler, Logger, TaskContext } from "./middleware.ts";

/** Why an attempt's signal was aborted. */
export class AbortReason extends Error {
  constructor(readonly kind: "timeout" | "cancelled" | "lease-lost" | "shutdown", message: string) {
    super(message);
    this.name = kind === "timeout" ? "TimeoutError" : "AbortError";
  }
}

export type AttemptOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: unknown; aborted: AbortReason | null };

/** Everything one attempt needs. */
export interface AttemptInput {
  task: TaskRecord;
  handler: Handler;
  controller: AbortController;
  timeoutMs: number | null;
  clock: Clock;
  logger: Logger;
  progress(percent: number): Promise<void>;
}

/** Runs the attempt to its outcome; never throws. */
export async function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const { task, controller, clock } = input;
  const ctx: TaskContext = {
    id: task.id,
    type: task.type,
    pool: task.pool,
    attempt: task.attempt,
    maxRetries: task.maxRetries,
    scheduleId: task.scheduleId,
    signal: controller.signal,
    progress: input.progress,
    logger: input.logger,
  };
  let timer: unknown;
  if (input.timeoutMs !== null) {
    timer = clock.setTimer(() => {
      controller.abort(new AbortReason("timeout", `timed out after ${input.timeoutMs} ms`));
    }, input.timeoutMs);
  }
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => reject(controller.signal.reason);
    if (controller.signal.aborted) onAbort();
    else controller.signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => {}); // only observed through the race
  try {
    const result = await Promise.race([
      Promise.resolve().then(() => input.handler(task.payload, ctx)),
      aborted,
    ]);
    if (controller.signal.aborted) return abortedOutcome(controller.signal.reason);
    return { ok: true, result: result === undefined ? null : result };
  } catch (error) {
    if (controller.signal.aborted) return abortedOutcome(controller.signal.reason);
    return { ok: false, error, aborted: null };
  } finally {
    if (timer !== undefined) clock.clearTimer(timer);
  }
}

function abortedOutcome(reason: unknown): AttemptOutcome {
  const why = reason instanceof AbortReason ? reason : new AbortReason("cancelled", String(reason));
  return { ok: false, error: why, aborted: why };
}
