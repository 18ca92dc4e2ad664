/**
 * @module runner — runs one attempt: middleware, handler, timeout and abort.
 *
 * A thrown error, a rejected promise and a timeout are failures. A handler that ignores its
 * signal cannot hold the attempt open past its timeout or a cancel: the race ends the attempt
 * and the late result is dropped.
 */
import type { Clock } from "../core/clock.ts";
import type { TaskRecord } from "../core/task.ts";
import type { Lease } from "../storage/storage.ts";
import type { Handler, Logger, TaskContext } from "./middleware.ts";
import type { AttemptLog } from "./attempt-log.ts";
import type { Parents } from "./parents.ts";
import { currentTraceparent } from "./tracing.ts";

/**
 * Why an attempt's signal was aborted. `lease-lost`: the store says another claim owns the
 * task now; `lease-expired`: the worker could not renew the lease in time (the store was
 * unreachable), so by its own clock a peer may already run the task.
 */
export class AbortReason extends Error {
  constructor(
    readonly kind: "timeout" | "cancelled" | "lease-lost" | "lease-expired" | "shutdown",
    message: string,
  ) {
    super(message);
    this.name = kind === "timeout" ? "TimeoutError" : "AbortError";
  }
}

export type AttemptOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: unknown; aborted: AbortReason | null };

/**
 * One attempt's cancellation. Its AbortSignal is made on first use (most handlers never
 * read it), and abort() ends the attempt at once, whether or not the handler watches the
 * signal: the attempt's promise settles through a callback, with no listener on the signal
 * and no Promise.race per attempt (those were a third of a busy worker's CPU).
 */
export class Attempt {
  /** The claim this attempt runs under: what renewals and settles present. */
  readonly lease: Lease;
  /** When the lease runs out by this worker's clock (the claim's `now` + lease, renewed). */
  leaseUntil: number;
  /** True once the handler returned, threw or was aborted (its outcome is being stored). */
  ended = false;
  /** Its pool slot was given back (the pool's bookkeeping, once per attempt). */
  slotFreed = false;
  /** Its `ctx.log` lines the store does not hold yet; null until it logs one. */
  log: AttemptLog | null = null;
  #controller: AbortController | null = null;
  #reason: AbortReason | null = null;
  /** Set by runAttempt: settles the attempt when it is aborted. */
  onAbort: ((reason: AbortReason) => void) | null = null;

  constructor(lease: Lease, leaseUntil: number) {
    this.lease = lease;
    this.leaseUntil = leaseUntil;
  }

  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#reason !== null) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Why the attempt was aborted, or null while it was not. */
  get reason(): AbortReason | null {
    return this.#reason;
  }

  /** Aborts the handler's signal and ends the attempt; the first reason wins. */
  abort(reason: AbortReason): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.onAbort?.(reason);
  }
}

/** What a running attempt's context calls back into: one per pool, shared by its attempts. */
export interface AttemptHost {
  progress(attempt: Attempt, task: TaskRecord, percent: number): Promise<void>;
  /** Keeps a `ctx.log` line (never throws). */
  log(attempt: Attempt, task: TaskRecord, message: unknown, fields?: unknown): void;
  /** Reads the task's parents' outcomes (ctx.parents, once, on first read). */
  parents(attempt: Attempt, task: TaskRecord): Promise<Parents>;
}

/** Everything one attempt needs. */
export interface AttemptInput {
  task: TaskRecord;
  handler: Handler;
  attempt: Attempt;
  timeoutMs: number | null;
  clock: Clock;
  logger: Logger;
  host: AttemptHost;
}

/** Runs the attempt to its outcome; never rejects. */
export function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const { task, attempt, clock, host } = input;
  let parents: Promise<Parents> | undefined;
  const ctx: TaskContext = {
    id: task.id,
    type: task.type,
    pool: task.pool,
    attempt: task.attempt,
    maxRetries: task.maxRetries,
    scheduleId: task.scheduleId,
    get signal() {
      return attempt.signal;
    },
    progress: (percent) => host.progress(attempt, task, percent),
    log: (message, fields) => host.log(attempt, task, message, fields),
    get parents() {
      parents ??= host.parents(attempt, task);
      return parents;
    },
    get traceparent() {
      return currentTraceparent(task);
    },
    logger: input.logger,
  };
  return new Promise<AttemptOutcome>((resolve) => {
    let timer: unknown;
    let settled = false;
    const settle = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clock.clearTimer(timer);
      resolve(outcome);
    };
    attempt.onAbort = (reason) => settle(abortedOutcome(reason));
    if (attempt.reason !== null) return settle(abortedOutcome(attempt.reason));
    if (input.timeoutMs !== null) {
      timer = clock.setTimer(() => {
        attempt.abort(new AbortReason("timeout", `timed out after ${input.timeoutMs} ms`));
      }, input.timeoutMs);
    }
    // A handler that ends after an abort lost the race: its result is dropped.
    const ended = (result: unknown) =>
      settle(
        attempt.reason !== null
          ? abortedOutcome(attempt.reason)
          : { ok: true, result: result === undefined ? null : result },
      );
    const failed = (error: unknown) =>
      settle(
        attempt.reason !== null
          ? abortedOutcome(attempt.reason)
          : { ok: false, error, aborted: null },
      );
    // The handler starts on a microtask, after its claim's other attempts are registered. A
    // synchronous handler settles right there; only a promise gets reactions.
    queueMicrotask(() => {
      let result: unknown;
      try {
        result = input.handler(task.payload, ctx);
      } catch (error) {
        return failed(error);
      }
      if (isThenable(result)) Promise.resolve(result).then(ended, failed);
      else ended(result);
    });
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function";
}

function abortedOutcome(why: AbortReason): AttemptOutcome {
  return { ok: false, error: why, aborted: why };
}
