/**
 * @module outcome — stores how an attempt ended: complete, fail (retry or dead), or hand
 * the task back; through storage faults (see retry.ts) for as long as it can still matter.
 *
 * A store that stays unreachable past the give-up time leaves the task `running` under this
 * claim: its lease then expires and a peer's recovery puts it back as a `stalled` attempt,
 * never as a failure. A settle that lands after that recovery is refused by its token.
 */
import { backoffDelay } from "../core/backoff.ts";
import type { Clock } from "../core/clock.ts";
import { MAX_DURATION_MS } from "../core/duration.ts";
import { isPermanentError, toErrorInfo } from "../core/errors.ts";
import type { AttemptRecord, TaskRecord } from "../core/task.ts";
import type { QueueStore } from "../storage/storage.ts";
import type { Logger } from "./middleware.ts";
import type { HandlerEntry } from "./pool.ts";
import { retryAfter, type RetryOptions } from "./retry.ts";
import type { Attempt, AttemptOutcome } from "./runner.ts";

/** Least time a settle keeps trying through storage faults. */
const MIN_SETTLE_PATIENCE_MS = 60_000;

export interface OutcomeDeps {
  storage: QueueStore;
  clock: Clock;
  logger: Logger;
  leaseMs: number;
  /** Reports a stored outcome of an attempt that ended at `endedAt` (while somebody listens). */
  report(
    task: TaskRecord,
    attempt: Attempt,
    status: AttemptRecord["status"],
    error: unknown,
    endedAt: number,
  ): void;
}

/**
 * Stores `outcome` of `attempt` on `task`, which ended at `now`. Never rejects for a
 * storage fault.
 */
export async function storeOutcome(
  deps: OutcomeDeps,
  task: TaskRecord,
  attempt: Attempt,
  outcome: AttemptOutcome,
  entry: HandlerEntry | undefined,
  now: number,
): Promise<void> {
  const { storage } = deps;
  // The lines the store lacks go with the settle, the same batch on every try (the store
  // keeps each line once).
  const logs = attempt.log?.batch();
  const { lease } = attempt;
  if (outcome.ok) {
    const share = entry?.historyShare ?? 1;
    const history = share >= 1 || Math.random() < share;
    const params = { lease, result: outcome.result, now, logs, history };
    let done: boolean | undefined;
    try {
      // The common case, written out: no closures until a fault calls for a retry.
      done = await storage.complete(params);
    } catch (error) {
      done = await retryAfter(
        error,
        () => storage.complete(params),
        () => retrying(deps, "completing", task.id, now),
      );
    }
    if (done) deps.report(task, attempt, "succeeded", null, now);
    return;
  }
  // The first try is a plain call: retries (and their options) only after a storage fault.
  const stored = <T>(what: string, call: () => Promise<T>) =>
    call().catch((error) => retryAfter(error, call, () => retrying(deps, what, task.id, now)));
  const kind = outcome.aborted?.kind;
  if (kind === "lease-expired") {
    // Stopped by this worker's clock: hand the task back unless a peer took it meanwhile.
    await stored(
      "handing back",
      () => storage.release({ leases: [{ ...lease, logs }], now: deps.clock.now() }),
    );
    return;
  }
  if (kind === "cancelled" || kind === "lease-lost" || kind === "shutdown") {
    // Storage already decided (cancelled, recovered elsewhere, or handed back at shutdown,
    // its lines with it). A cancel's lines are still the task's: the store takes them while
    // this claim was the one cancelled (a lost lease's are refused, and lost).
    if (kind === "cancelled") deps.report(task, attempt, "cancelled", outcome.error, now);
    if (logs && kind !== "shutdown") {
      await stored(
        "storing the log of",
        () => storage.appendLogs({ leases: [{ ...lease, logs }], now: deps.clock.now() }),
      );
    }
    return;
  }
  const error = toErrorInfo(outcome.error);
  let retryAt: number | null = null;
  // A PermanentError (a refused target, say) is dead at once: no retry could succeed.
  if (task.attempt < task.maxRetries + 1 && !isPermanentError(outcome.error)) {
    const delay = entry?.backoff
      ? entry.backoff(task.attempt, outcome.error)
      : backoffDelay(task.backoff, task.attempt);
    // A back-off function from code may return anything: NaN or Infinity is no delay.
    retryAt = now + (Number.isFinite(delay) ? Math.min(Math.max(0, delay), MAX_DURATION_MS) : 0);
  }
  // A retry's `delayed` event (it arms the wheel) comes from the store, as every event does.
  const status = await stored(
    "failing",
    () => storage.fail({ lease, error, retryAt, now, logs }),
  );
  if (status) deps.report(task, attempt, status, outcome.error, now);
}

/** How a settle keeps trying: at least a minute, twice the lease when that is longer. */
function retrying(deps: OutcomeDeps, what: string, id: string, since: number): RetryOptions {
  const until = since + Math.max(2 * deps.leaseMs, MIN_SETTLE_PATIENCE_MS);
  return { clock: deps.clock, logger: deps.logger, what: `${what} task ${id}`, until: () => until };
}

/** The history record of an attempt this process ran, as `onResult` listeners get it. */
export function attemptRecord(
  task: TaskRecord,
  attempt: Attempt,
  status: AttemptRecord["status"],
  error: unknown,
  endedAt: number,
): AttemptRecord {
  const startedAt = task.startedAt ?? endedAt;
  return {
    taskId: task.id,
    type: task.type,
    pool: task.pool,
    attempt: task.attempt,
    status,
    error: error === null ? null : toErrorInfo(error),
    startedAt,
    finishedAt: endedAt,
    durationMs: Math.max(0, endedAt - startedAt),
    workerId: attempt.lease.workerId,
  };
}
