/**
 * @module memory-storage — the embedded store: the whole Storage contract in one process,
 * in memory. A real backend for single-process use (`bun run worker` without Redis), not a
 * mock: every transition is a synchronous critical section, so it is as atomic as a Lua
 * script, and the conformance suite holds it to the same behaviour as Redis.
 */
import { CapacityError, ConflictError, NotFoundError } from "../../core/errors.ts";
import { checkBatch } from "./batch-check.ts";
import {
  FINAL_STATUSES,
  type NewTask,
  parentConditions,
  type TaskError,
  type TaskRecord,
} from "../../core/task.ts";
import type {
  ClaimedTask,
  Lease,
  LeaseOwner,
  Page,
  Recovery,
  Storage,
  StorageStats,
  TaskFilter,
} from "../storage.ts";
import { type Row, TaskTable } from "./task-table.ts";
import { brokenReason, conditionOutcome, stallDeath } from "./workflow.ts";
import { Cascade, type EndStatus } from "./cascade.ts";
import { claimedRecord, listRows, toRecord } from "./records.ts";
import { taskMatcher } from "../filter.ts";
import { MemoryRegistry, type MemoryStorageOptions } from "./memory-registry.ts";

export type { MemoryStorageOptions } from "./memory-registry.ts";

/**
 * The embedded store.
 *
 * @example
 * const scheduler = new Scheduler({ storage: new MemoryStorage({ maxUnfinished: 100_000 }) });
 */
export class MemoryStorage extends MemoryRegistry implements Storage {
  readonly name = "memory";
  readonly #t = new TaskTable();
  readonly #cascade = new Cascade({
    children: (id) => this.#t.rows.get(id)?.children ?? [],
    settle: (childId, parentId, status, now) => this.#settleChild(childId, parentId, status, now),
    retain: (id, _status, prunable, now) => this.#t.retain(id, prunable, now),
  });

  constructor(options: MemoryStorageOptions = {}) {
    super(options);
  }

  protected override table(): TaskTable {
    return this.#t;
  }

  // deno-lint-ignore require-await -- async so a failed check rejects rather than throws
  async enqueue(tasks: NewTask[], now: number): Promise<TaskRecord[]> {
    checkBatch(tasks, (id) => this.#t.rows.has(id), (key) => this.activeKeys.get(key));
    const limit = this.options.maxUnfinished;
    if (limit !== undefined && this.unfinished() + tasks.length > limit) {
      throw new CapacityError(limit);
    }
    return tasks.map((task) => toRecord(this.insertTask(task, now)));
  }

  /** Inserts one checked task; also used by schedule firings. */
  protected insertTask(task: NewTask, now: number): Row {
    const row = this.#t.newRow(task);
    let broken: string | null = null;
    for (const [parentId, condition] of parentConditions(task)) {
      row.conditions[parentId] = condition;
      const parent = this.#t.rows.get(parentId)!;
      const outcome = conditionOutcome(condition, parent.status);
      if (outcome === "broken") broken ??= brokenReason(parentId, parent.status);
      if (outcome === null) {
        row.pendingParents++;
        parent.children.push(row.id);
      }
    }
    if (task.key) this.activeKeys.set(task.key, task.id);
    if (broken) {
      row.status = "cancelled";
      row.cancelReason = broken;
      row.finishedAt = now;
      if (task.key) this.activeKeys.delete(task.key);
    } else if (row.pendingParents > 0) row.status = "waiting";
    else if (row.runAt !== null && row.runAt > now) row.status = "scheduled";
    this.#t.insert(row, now);
    this.#announce(row);
    return row;
  }

  get(id: string): Promise<TaskRecord | null> {
    const row = this.#t.rows.get(id);
    return Promise.resolve(row ? toRecord(row) : null);
  }

  list(filter: TaskFilter): Promise<Page<TaskRecord>> {
    return Promise.resolve(listRows(this.#t, filter));
  }

  claim(pool: string, max: number, owner: LeaseOwner, now: number): Promise<ClaimedTask[]> {
    const out: ClaimedTask[] = [];
    if (this.isPaused(pool)) return Promise.resolve(out);
    while (out.length < max) {
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
    return Promise.resolve(out);
  }

  releaseClaim(
    pool: string,
    owner: LeaseOwner,
    claimedAt: number,
    keep: string[],
    now: number,
  ): Promise<number> {
    const kept = new Set(keep);
    const lost = [...this.#t.running].map((id) => this.#t.rows.get(id)!).filter((row) =>
      !kept.has(row.id) && row.pool === pool && row.workerId === owner.workerId &&
      row.startedAt === claimedAt && row.leaseUntil === claimedAt + owner.leaseMs
    );
    for (const row of lost) this.#requeue(row, now);
    return Promise.resolve(lost.length);
  }

  renewLeases(leases: Lease[], leaseMs: number, now: number): Promise<string[]> {
    const lost: string[] = [];
    for (const lease of leases) {
      const row = this.#held(lease);
      if (row) row.leaseUntil = now + leaseMs;
      else lost.push(lease.id);
    }
    return Promise.resolve(lost);
  }

  complete(lease: Lease, result: unknown, now: number): Promise<boolean> {
    const row = this.#held(lease);
    if (!row) return Promise.resolve(this.#settledBy(lease) === "succeeded");
    row.resultJson = JSON.stringify(result ?? null);
    this.recordAttempt(row, "succeeded", now);
    this.#finish(row, "succeeded", now);
    this.totals.succeeded++;
    this.#endCall(now);
    return Promise.resolve(true);
  }

  fail(
    lease: Lease,
    error: TaskError,
    retryAt: number | null,
    now: number,
  ): Promise<"retrying" | "dead" | null> {
    const row = this.#held(lease);
    if (!row) {
      const status = this.#settledBy(lease);
      if (status === "dead") return Promise.resolve("dead");
      return Promise.resolve(status === "retrying" || status === "queued" ? "retrying" : null);
    }
    row.error = { ...error };
    this.totals.failedAttempts++;
    const status = this.#failRow(row, retryAt, now);
    this.#endCall(now);
    return Promise.resolve(status);
  }

  #failRow(row: Row, retryAt: number | null, now: number): "retrying" | "dead" {
    row.leaseUntil = null;
    if (retryAt !== null) {
      this.recordAttempt(row, "retrying", now);
      row.runAt = retryAt;
      this.#t.move(row, "retrying", now);
      this.#announce(row);
      return "retrying";
    }
    this.recordAttempt(row, "dead", now);
    this.#finish(row, "dead", now);
    this.totals.dead++;
    return "dead";
  }

  release(leases: Lease[], now: number): Promise<number> {
    let n = 0;
    for (const lease of leases) {
      const row = this.#held(lease);
      if (!row) continue;
      this.#requeue(row, now);
      n++;
    }
    return Promise.resolve(n);
  }

  /** A running attempt back in its queue, uncounted, at the position it had (see release). */
  #requeue(row: Row, now: number): void {
    row.attempt--;
    row.startedAt = null;
    row.leaseUntil = null;
    row.claimSeq = null;
    this.#t.move(row, "queued", now, true);
    this.#announce(row);
  }

  setProgress(lease: Lease, progress: number): Promise<boolean> {
    const row = this.#held(lease);
    if (row) row.progress = Math.max(0, Math.min(100, progress));
    return Promise.resolve(row !== undefined);
  }

  cancel(id: string, reason: string, now: number): Promise<TaskRecord> {
    const row = this.#t.rows.get(id);
    if (!row) return Promise.reject(new NotFoundError("Task", id));
    if (FINAL_STATUSES.has(row.status)) {
      return Promise.reject(new ConflictError(`Task "${id}" already ended ${row.status}`));
    }
    const wasRunning = row.status === "running";
    if (wasRunning) this.recordAttempt(row, "cancelled", now, { message: reason });
    row.cancelReason = reason;
    this.#finish(row, "cancelled", now);
    const record = toRecord(row);
    this.#endCall(now);
    if (wasRunning) this.emit({ kind: "cancel", id });
    return Promise.resolve(record);
  }

  resubmit(id: string, now: number): Promise<TaskRecord> {
    try {
      return Promise.resolve(toRecord(this.#resubmitRow(id, now)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  resubmitMatching(
    filter: { status: "dead" | "cancelled"; type?: string; pool?: string },
    now: number,
  ): Promise<number> {
    const match = taskMatcher<Row>(filter, (row) => row.payloadJson);
    const ids = [...this.#t.rows.values()].filter(match).map((row) => row.id);
    let n = 0;
    for (const id of ids) {
      try {
        this.#resubmitRow(id, now);
        n++;
      } catch { /* a key now held by another task: leave this one dead */ }
    }
    return Promise.resolve(n);
  }

  #resubmitRow(id: string, now: number): Row {
    const row = this.#t.rows.get(id);
    if (!row) throw new NotFoundError("Task", id);
    if (row.status !== "dead" && row.status !== "cancelled") {
      throw new ConflictError(
        `Task "${id}" is ${row.status}; only dead or cancelled tasks can be resubmitted`,
      );
    }
    if (row.key) {
      const holder = this.activeKeys.get(row.key);
      if (holder && holder !== id) {
        throw new ConflictError(`Key "${row.key}" is held by unfinished task "${holder}"`, holder);
      }
      this.activeKeys.set(row.key, id);
    }
    Object.assign(row, {
      attempt: 0,
      stalls: 0,
      claimSeq: null,
      error: null,
      resultJson: "null",
      progress: null,
      startedAt: null,
      finishedAt: null,
      cancelReason: null,
      pendingParents: 0,
      runAt: null,
    });
    this.#t.move(row, "queued", now);
    this.#announce(row);
    return row;
  }

  dueDelayed(until: number, limit: number): Promise<{ id: string; runAt: number }[]> {
    return Promise.resolve(this.#t.dueBy(until, limit).map((r) => ({ id: r.id, runAt: r.runAt! })));
  }

  promoteDue(now: number, limit: number): Promise<number> {
    let n = 0;
    for (let row; n < limit && (row = this.#t.popDue(now)); n++) {
      this.#t.move(row, "queued", now);
      this.#announce(row);
    }
    return Promise.resolve(n);
  }

  recoverExpired(now: number, limit: number): Promise<Recovery> {
    const expired = [...this.#t.running]
      .map((id) => this.#t.rows.get(id)!)
      .filter((row) => row.leaseUntil !== null && row.leaseUntil < now)
      .sort((a, b) => Number(a.claimSeq) - Number(b.claimSeq))
      .slice(0, limit);
    for (const row of expired) {
      const lost = `lease expired (worker ${row.workerId} lost)`;
      row.stalls++;
      this.totals.stalled++;
      if (row.stalls > row.maxStalls) {
        row.error = { message: stallDeath(lost, row.stalls, row.maxStalls) };
        row.claimSeq = null;
        this.#failRow(row, null, now);
      } else {
        this.recordAttempt(row, "stalled", now, { message: lost });
        this.#requeue(row, now);
      }
    }
    if (this.#cascade.deferred.length > 0) this.#cascade.continue(100, now);
    const cascadesPending = this.#endCall(now);
    return Promise.resolve({ recovered: expired.length, cascadesPending });
  }

  stats(): Promise<StorageStats> {
    return Promise.resolve(this.buildStats(this.#t));
  }

  /**
   * Moves a row to a final status and settles its workflow children (bounded per call: see
   * cascade.ts; every public transition ends with #endCall()).
   */
  #finish(row: Row, status: EndStatus, now: number): void {
    row.finishedAt = now;
    row.leaseUntil = null;
    if (row.key && this.activeKeys.get(row.key) === row.id) this.activeKeys.delete(row.key);
    this.#t.move(row, status, now);
    this.#cascade.ended(row.id, status, row.children.length > 0, now);
  }

  #settleChild(childId: string, parentId: string, status: EndStatus, now: number): void {
    const child = this.#t.rows.get(childId);
    if (!child || child.status !== "waiting") return;
    const outcome = conditionOutcome(child.conditions[parentId], status);
    if (outcome === "broken") {
      child.cancelReason = brokenReason(parentId, status);
      this.#finish(child, "cancelled", now);
    } else if (outcome === "met" && --child.pendingParents === 0) {
      this.#t.move(child, child.runAt !== null && child.runAt > now ? "scheduled" : "queued", now);
      this.#announce(child);
    }
  }

  /** Ends a public transition: saves unfinished cascades, then applies row retention. */
  #endCall(now: number): boolean {
    const pending = this.#cascade.endCall();
    if (pending) this.emit({ kind: "cascade" });
    this.pruneFinished(now);
    return pending;
  }

  /** A running attempt the lease belongs to: same instance, same claim. */
  #held(lease: Lease): Row | undefined {
    const row = this.#t.rows.get(lease.id);
    return row && row.status === "running" && row.workerId === lease.workerId &&
        row.claimSeq === lease.token
      ? row
      : undefined;
  }

  /** The status a row reached under this claim's token, when the claim already settled it. */
  #settledBy(lease: Lease): Row["status"] | null {
    const row = this.#t.rows.get(lease.id);
    return row && row.claimSeq === lease.token ? row.status : null;
  }

  #announce(row: Row): void {
    if (row.status === "queued") this.emit({ kind: "ready", pool: row.pool });
    else if (row.status === "scheduled" || row.status === "retrying") {
      this.emit({ kind: "delayed", id: row.id, runAt: row.runAt! });
    }
  }
}
