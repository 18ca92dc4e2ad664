/**
 * @module queue-forwarder — a store built of parts answers the {@link QueueStore} role by
 * handing every transition to the part that owns them (the embedded store's MemoryQueue,
 * Redis's RedisQueue), so each store class only wires its parts.
 */
import type { TaskRecord } from "../core/task.ts";
import type * as P from "./params.ts";
import type { QueueStore } from "./storage.ts";
import type { Claimed, Enqueued, Expiry, Recovery } from "./types.ts";

export abstract class QueueForwarder implements QueueStore {
  /** The part that owns the task transitions. */
  protected abstract readonly queue: QueueStore;

  enqueue(p: P.EnqueueParams): Promise<Enqueued[]> {
    return this.queue.enqueue(p);
  }

  claim(p: P.ClaimParams): Promise<Claimed> {
    return this.queue.claim(p);
  }

  releaseClaim(p: P.ReleaseClaimParams): Promise<number> {
    return this.queue.releaseClaim(p);
  }

  renewLeases(p: P.RenewParams): Promise<string[]> {
    return this.queue.renewLeases(p);
  }

  complete(p: P.CompleteParams): Promise<boolean> {
    return this.queue.complete(p);
  }

  fail(p: P.FailParams): Promise<"retrying" | "dead" | null> {
    return this.queue.fail(p);
  }

  release(p: P.ReleaseParams): Promise<number> {
    return this.queue.release(p);
  }

  setProgress(p: P.ProgressParams): Promise<boolean> {
    return this.queue.setProgress(p);
  }

  appendLogs(p: P.AppendLogsParams): Promise<boolean[]> {
    return this.queue.appendLogs(p);
  }

  cancel(p: P.CancelParams): Promise<TaskRecord> {
    return this.queue.cancel(p);
  }

  resubmit(p: P.ResubmitParams): Promise<TaskRecord> {
    return this.queue.resubmit(p);
  }

  resubmitMatching(p: P.ResubmitMatchingParams): Promise<number> {
    return this.queue.resubmitMatching(p);
  }

  dueDelayed(p: P.DueParams): Promise<{ id: string; runAt: number }[]> {
    return this.queue.dueDelayed(p);
  }

  promoteDue(p: P.StepParams): Promise<number> {
    return this.queue.promoteDue(p);
  }

  dueExpiries(p: P.DueParams): Promise<{ id: string; expiresAt: number }[]> {
    return this.queue.dueExpiries(p);
  }

  expireDue(p: P.StepParams): Promise<Expiry> {
    return this.queue.expireDue(p);
  }

  recoverExpired(p: P.StepParams): Promise<Recovery> {
    return this.queue.recoverExpired(p);
  }
}
