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
import { toErrorInfo } from "../core/errors.ts";
import type { AttemptRecord, TaskRecord } from "../core/task.ts";
import type { Storage, StorageEvent } from "../storage/storage.ts";
import type { Logger } from "./middleware.ts";
import type { HandlerEntry } from "./pool.ts";
import { withRetries } from "./retry.ts";
import type { Attempt, AttemptOutcome } from "./runner.ts";

/** Least time a settle keeps trying through storage faults. */
const MIN_SETTLE_PATIENCE_MS = 60_000;

export interface OutcomeDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  leaseMs: number;
  /** Reports a stored outcome (only called while somebody listens). */
  report(status: AttemptRecord["status"], error: unknown): void;
  /** Reacts locally to a change this process made (a retry arms the wheel). */
  notify(event: StorageEvent): void;
}

/** Stores `outcome` of `attempt` on `task`. Never rejects for a storage fault. */
export async function storeOutcome(
  deps: OutcomeDeps,
  task: TaskRecord,
  attempt: Attempt,
  outcome: AttemptOutcome,
  entry: HandlerEntry | undefined,
): Promise<void> {
  const { storage, clock } = deps;
  const now = clock.now();
  const patience = Math.max(2 * deps.leaseMs, MIN_SETTLE_PATIENCE_MS);
  const retried = <T>(what: string, call: () => Promise<T>) =>
    withRetries(call, {
      clock,
      logger: deps.logger,
      what: `${what} task ${task.id}`,
      until: () => now + patience,
    });
  if (outcome.ok) {
    const done = await retried(
      "completing",
      () => storage.complete(attempt.lease, outcome.result, now),
    );
    if (done) deps.report("succeeded", null);
    return;
  }
  const kind = outcome.aborted?.kind;
  if (kind === "lease-expired") {
    // Stopped by this worker's clock: hand the task back unless a peer took it meanwhile.
    await retried("handing back", () => storage.release([attempt.lease], clock.now()));
    return;
  }
  if (kind === "cancelled" || kind === "lease-lost" || kind === "shutdown") {
    // Storage already decided (cancelled, recovered elsewhere, or handed back at shutdown).
    if (kind === "cancelled") deps.report("cancelled", outcome.error);
    return;
  }
  const error = toErrorInfo(outcome.error);
  let retryAt: number | null = null;
  if (task.attempt < task.maxRetries + 1) {
    const delay = entry?.backoff
      ? entry.backoff(task.attempt, outcome.error)
      : backoffDelay(task.backoff, task.attempt);
    // A back-off function from code may return anything: NaN or Infinity is no delay.
    retryAt = now + (Number.isFinite(delay) ? Math.min(Math.max(0, delay), MAX_DURATION_MS) : 0);
  }
  const status = await retried("failing", () => storage.fail(attempt.lease, error, retryAt, now));
  if (status === "retrying") deps.notify({ kind: "delayed", id: task.id, runAt: retryAt! });
  if (status) deps.report(status, outcome.error);
}
