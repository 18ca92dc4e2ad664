/**
 * @module queue — the embedded store's task transitions ({@link QueueStore}), one method per
 * Lua script: each a synchronous critical section over the task table, so it is as atomic
 * as the script, built from the shared steps in moves.ts.
 */
import { CapacityError, ConflictError, NotFoundError } from "../../core/errors.ts";
import { FINAL_STATUSES, type NewTask, PRUNED_STATUS, type TaskRecord } from "../../core/task.ts";
import type {
  CancelParams,
  ClaimParams,
  CompleteParams,
  DueParams,
  EnqueueParams,
  FailParams,
  ProgressParams,
  ReleaseClaimParams,
  ReleaseParams,
  RenewParams,
  ResubmitMatchingParams,
  ResubmitParams,
  StepParams,
} from "../params.ts";
import type { QueueStore } from "../storage.ts";
import type { Claimed, Enqueued, Recovery } from "../types.ts";
import { taskMatcher } from "../filter.ts";
import { checkBatch } from "./batch-check.ts";
import { respec, SubmitKeys } from "./submit-keys.ts";
import type { AttemptLog } from "./history.ts";
import { type QueueParts, TaskMoves } from "./moves.ts";
import { claimedRecord, toRecord } from "./records.ts";
import { reviveRow } from "./revive.ts";
import type { Row, TaskTable } from "./task-table.ts";
import { stallDeath } from "./workflow.ts";

export type { QueueParts } from "./moves.ts";

export class MemoryQueue implements QueueStore {
  readonly #m: TaskMoves;
  readonly #t: TaskTable;
  readonly #log: AttemptLog;
  /** Dedupe and debounce keys (enqueue-1.lua's `dedupe:<key>`, `debounce:<key>`). */
  readonly #keys = new SubmitKeys();

  constructor(parts: QueueParts) {
    this.#m = new TaskMoves(parts);
    this.#t = parts.table;
    this.#log = parts.log;
  }

  // deno-lint-ignore require-await -- async so a failed check rejects rather than throws
  async enqueue({ tasks, now }: EnqueueParams): Promise<Enqueued[]> {
    const waiting = (id: string) => this.#t.rows.get(id)?.status === "scheduled";
    const hits = this.#keys.hits(tasks, now, waiting);
    const skip = new Set(hits.flatMap((hit, i) => (hit ? [i] : [])));
    checkBatch(tasks, (id) => this.#t.rows.has(id), (key) => this.#t.keys.get(key), skip);
    const limit = this.#m.p.maxUnfinished;
    if (limit !== undefined && this.#m.unfinished() + tasks.length - skip.size > limit) {
      throw new CapacityError(limit);
    }
    return tasks.map((task, i): Enqueued => {
      const hit = hits[i];
      if (hit?.kind === "dedupe") {
        const status = this.#t.rows.get(hit.id)?.status ?? PRUNED_STATUS;
        return { id: hit.id, status, deduplicated: true };
      }
      if (hit?.kind === "debounce") {
        const row = this.#t.rows.get(hit.id)!;
        const runAt = this.#keys.rearmAt(task, hit, now);
        respec(row, task, runAt);
        this.#t.move(row, "scheduled", now);
        this.#m.announce(row);
        return { id: row.id, status: "scheduled", runAt, debounced: true };
      }
      const record = toRecord(this.#m.insert(task, now));
      this.#keys.took(task, now);
      return record;
    });
  }

  /** Inserts one checked task; schedule firings use it too. */
  insert(task: NewTask, now: number): Row {
    return this.#m.insert(task, now);
  }

  claim({ pool, max, owner, now }: ClaimParams): Promise<Claimed> {
    const out: Claimed = [];
    if (this.#m.p.isPaused(pool)) return Promise.resolve(out);
    // The pool's cluster-wide limits (lua/claim-1.lua): room under the global limit, then
    // the rate limit's tokens; a fraction of `max` rounds up, as the loop below would.
    const limits = this.#m.p.limits;
    const global = limits.globalLimit(pool);
    let take = Math.ceil(max);
    if (global !== null) take = Math.min(take, global - this.#t.poolCounts(pool).running);
    const tokens = limits.rateTokens(pool, now);
    const rateBound = tokens < take;
    take = Math.min(take, tokens);
    while (out.length < take) {
      const row = this.#t.popReady(pool);
      if (!row) break;
      row.attempt++;
      row.startedAt = now;
      row.progress = null;
      row.workerId = owner.workerId;
      row.leaseUntil = now + owner.leaseMs;
      row.claimSeq = String(this.#t.nextSeq());
      this.#t.move(row, "running", now);
      out.push({ ...claimedRecord(row), token: row.claimSeq });
    }
    limits.logStarts(pool, out.length, now);
    if (rateBound && this.#t.poolCounts(pool).queued > 0) {
      const at = limits.nextStartAt(pool);
      if (at !== undefined) out.heldUntil = at;
    }
    return Promise.resolve(out);
  }

  releaseClaim({ pool, owner, claimedAt, keep, now }: ReleaseClaimParams): Promise<number> {
    const kept = new Set(keep);
    const lost = [...this.#t.running].map((id) => this.#t.rows.get(id)!).filter((row) =>
      !kept.has(row.id) && row.pool === pool && row.workerId === owner.workerId &&
      row.startedAt === claimedAt && row.leaseUntil === claimedAt + owner.leaseMs
    );
    for (const row of lost) this.#m.requeue(row, now);
    return Promise.resolve(lost.length);
  }

  renewLeases({ leases, leaseMs, now }: RenewParams): Promise<string[]> {
    const lost: string[] = [];
    for (const lease of leases) {
      const row = this.#m.held(lease);
      if (row) row.leaseUntil = now + leaseMs;
      else lost.push(lease.id);
    }
    return Promise.resolve(lost);
  }

  complete({ lease, result, now }: CompleteParams): Promise<boolean> {
    const row = this.#m.held(lease);
    if (!row) return Promise.resolve(this.#m.settledBy(lease) === "succeeded");
    row.resultJson = JSON.stringify(result ?? null);
    this.#log.record(row, "succeeded", now);
    this.#m.finish(row, "succeeded", now);
    this.#log.totals.succeeded++;
    this.#m.endCall(now);
    return Promise.resolve(true);
  }

  fail({ lease, error, retryAt, now }: FailParams): Promise<"retrying" | "dead" | null> {
    const row = this.#m.held(lease);
    if (!row) {
      const status = this.#m.settledBy(lease);
      if (status === "dead") return Promise.resolve("dead");
      return Promise.resolve(status === "retrying" || status === "queued" ? "retrying" : null);
    }
    row.error = { ...error };
    this.#log.totals.failedAttempts++;
    const status = this.#m.failRow(row, retryAt, now);
    this.#m.endCall(now);
    return Promise.resolve(status);
  }

  release({ leases, now }: ReleaseParams): Promise<number> {
    let n = 0;
    for (const lease of leases) {
      const row = this.#m.held(lease);
      if (!row) continue;
      this.#m.requeue(row, now);
      n++;
    }
    return Promise.resolve(n);
  }

  setProgress({ lease, progress }: ProgressParams): Promise<boolean> {
    const row = this.#m.held(lease);
    if (row) row.progress = Math.max(0, Math.min(100, progress));
    return Promise.resolve(row !== undefined);
  }

  cancel({ id, reason, now }: CancelParams): Promise<TaskRecord> {
    const row = this.#t.rows.get(id);
    if (!row) return Promise.reject(new NotFoundError("Task", id));
    if (FINAL_STATUSES.has(row.status)) {
      return Promise.reject(new ConflictError(`Task "${id}" already ended ${row.status}`));
    }
    const wasRunning = row.status === "running";
    if (wasRunning) this.#log.record(row, "cancelled", now, { message: reason });
    row.cancelReason = reason;
    this.#m.finish(row, "cancelled", now);
    const record = toRecord(row);
    this.#m.endCall(now);
    if (wasRunning) this.#m.p.events.emit({ kind: "cancel", id });
    return Promise.resolve(record);
  }

  resubmit({ id, now }: ResubmitParams): Promise<TaskRecord> {
    try {
      const row = reviveRow(this.#t, id, now);
      this.#m.announce(row);
      return Promise.resolve(toRecord(row));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  resubmitMatching({ filter, now }: ResubmitMatchingParams): Promise<number> {
    const match = taskMatcher<Row>(filter, (row) => row.payloadJson);
    const ids = [...this.#t.rows.values()].filter(match).map((row) => row.id);
    let n = 0;
    for (const id of ids) {
      try {
        this.#m.announce(reviveRow(this.#t, id, now));
        n++;
      } catch { /* a key now held by another task: leave this one dead */ }
    }
    return Promise.resolve(n);
  }

  dueDelayed({ until, limit }: DueParams): Promise<{ id: string; runAt: number }[]> {
    return Promise.resolve(this.#t.dueBy(until, limit).map((r) => ({ id: r.id, runAt: r.runAt! })));
  }

  promoteDue({ now, limit }: StepParams): Promise<number> {
    let n = 0;
    for (let row; n < limit && (row = this.#t.popDue(now)); n++) {
      this.#t.move(row, "queued", now);
      this.#m.announce(row);
    }
    return Promise.resolve(n);
  }

  recoverExpired({ now, limit }: StepParams): Promise<Recovery> {
    const expired = [...this.#t.running]
      .map((id) => this.#t.rows.get(id)!)
      .filter((row) => row.leaseUntil !== null && row.leaseUntil < now)
      .sort((a, b) => Number(a.claimSeq) - Number(b.claimSeq))
      .slice(0, limit);
    for (const row of expired) {
      const lost = `lease expired (worker ${row.workerId} lost)`;
      row.stalls++;
      this.#log.totals.stalled++;
      if (row.stalls > row.maxStalls) {
        row.error = { message: stallDeath(lost, row.stalls, row.maxStalls) };
        row.claimSeq = null;
        this.#m.failRow(row, null, now);
      } else {
        this.#log.record(row, "stalled", now, { message: lost });
        this.#m.requeue(row, now);
      }
    }
    this.#m.continueCascades(100, now);
    const cascadesPending = this.#m.endCall(now);
    return Promise.resolve({ recovered: expired.length, cascadesPending });
  }
}
