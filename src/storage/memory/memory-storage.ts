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
import type { LeaseOwner, Page, Storage, StorageStats, TaskFilter } from "../storage.ts";
import { pageLimit, taskMatcher } from "../filter.ts";
import { type Row, TaskTable } from "./task-table.ts";
import { brokenReason, conditionOutcome } from "./workflow.ts";
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
    return tasks.map((task) => this.#toRecord(this.insertTask(task, now)));
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
    return Promise.resolve(row ? this.#toRecord(row) : null);
  }

  list(filter: TaskFilter): Promise<Page<TaskRecord>> {
    const match = taskMatcher<Row>(filter, (row) => row.payloadJson);
    const limit = pageLimit(filter);
    const before = filter.cursor ? Number(filter.cursor) : Infinity;
    const rows = [...this.#t.rows.values()]
      .filter((row) => row.order < before && match(row))
      .sort((a, b) => b.order - a.order);
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? String(page[page.length - 1].order) : null;
    return Promise.resolve({ items: page.map((row) => this.#toRecord(row)), next });
  }

  claim(pool: string, max: number, owner: LeaseOwner, now: number): Promise<TaskRecord[]> {
    const out: TaskRecord[] = [];
    if (this.isPaused(pool)) return Promise.resolve(out);
    while (out.length < max) {
      const row = this.#t.popReady(pool);
      if (!row) break;
      row.attempt++;
      row.startedAt = now;
      row.progress = null;
      row.workerId = owner.workerId;
      row.leaseUntil = now + owner.leaseMs;
      this.#t.move(row, "running", now);
      out.push(this.#toRecord(row));
    }
    return Promise.resolve(out);
  }

  renewLeases(ids: string[], owner: LeaseOwner, now: number): Promise<string[]> {
    const lost: string[] = [];
    for (const id of ids) {
      const row = this.#owned(id, owner.workerId);
      if (row) row.leaseUntil = now + owner.leaseMs;
      else lost.push(id);
    }
    return Promise.resolve(lost);
  }

  complete(id: string, workerId: string, result: unknown, now: number): Promise<boolean> {
    const row = this.#owned(id, workerId);
    if (!row) return Promise.resolve(false);
    row.resultJson = JSON.stringify(result ?? null);
    this.recordAttempt(row, "succeeded", now);
    this.#finish(row, "succeeded", now);
    this.totals.succeeded++;
    return Promise.resolve(true);
  }

  fail(
    id: string,
    workerId: string,
    error: TaskError,
    retryAt: number | null,
    now: number,
  ): Promise<"retrying" | "dead" | null> {
    const row = this.#owned(id, workerId);
    if (!row) return Promise.resolve(null);
    row.error = { ...error };
    this.totals.failedAttempts++;
    return Promise.resolve(this.#failRow(row, retryAt, now));
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
    this.deadLetters.add(row.id);
    return "dead";
  }

  release(ids: string[], workerId: string, now: number): Promise<number> {
    let n = 0;
    for (const id of ids) {
      const row = this.#owned(id, workerId);
      if (!row) continue;
      row.attempt--;
      row.startedAt = null;
      row.leaseUntil = null;
      this.#t.move(row, "queued", now);
      this.#announce(row);
      n++;
    }
    return Promise.resolve(n);
  }

  setProgress(id: string, workerId: string, progress: number): Promise<boolean> {
    const row = this.#owned(id, workerId);
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
    if (wasRunning) this.emit({ kind: "cancel", id });
    return Promise.resolve(this.#toRecord(row));
  }

  resubmit(id: string, now: number): Promise<TaskRecord> {
    try {
      return Promise.resolve(this.#toRecord(this.#resubmitRow(id, now)));
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
    this.deadLetters.delete(id);
    Object.assign(row, {
      attempt: 0,
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

  recoverExpired(now: number, limit: number): Promise<number> {
    const expired = [...this.#t.running]
      .map((id) => this.#t.rows.get(id)!)
      .filter((row) => row.leaseUntil !== null && row.leaseUntil < now)
      .slice(0, limit);
    for (const row of expired) {
      row.error = { message: `lease expired (worker ${row.workerId} lost)` };
      this.totals.failedAttempts++;
      if (row.attempt >= row.maxRetries + 1) this.#failRow(row, null, now);
      else {
        this.recordAttempt(row, "retrying", now);
        row.leaseUntil = null;
        this.#t.move(row, "queued", now);
        this.#announce(row);
      }
    }
    return Promise.resolve(expired.length);
  }

  stats(): Promise<StorageStats> {
    return Promise.resolve(this.buildStats(this.#t));
  }

  /** Moves a row to a final status and settles its workflow children, transitively. */
  #finish(row: Row, status: "succeeded" | "dead" | "cancelled", now: number): void {
    row.finishedAt = now;
    row.leaseUntil = null;
    if (row.key && this.activeKeys.get(row.key) === row.id) this.activeKeys.delete(row.key);
    this.#t.move(row, status, now);
    for (const childId of row.children) {
      const child = this.#t.rows.get(childId);
      if (!child || child.status !== "waiting") continue;
      const outcome = conditionOutcome(child.conditions[row.id], status);
      if (outcome === "broken") {
        child.cancelReason = brokenReason(row.id, status);
        this.#finish(child, "cancelled", now);
      } else if (outcome === "met" && --child.pendingParents === 0) {
        this.#t.move(
          child,
          child.runAt !== null && child.runAt > now ? "scheduled" : "queued",
          now,
        );
        this.#announce(child);
      }
    }
    this.pruneFinished(now);
  }

  #owned(id: string, workerId: string): Row | undefined {
    const row = this.#t.rows.get(id);
    return row && row.status === "running" && row.workerId === workerId ? row : undefined;
  }

  #announce(row: Row): void {
    if (row.status === "queued") this.emit({ kind: "ready", pool: row.pool });
    else if (row.status === "scheduled" || row.status === "retrying") {
      this.emit({ kind: "delayed", id: row.id, runAt: row.runAt! });
    }
  }

  /** The public record, in the documented field order, with its own payload and result. */
  #toRecord(row: Row): TaskRecord {
    return {
      id: row.id,
      type: row.type,
      status: row.status,
      pool: row.pool,
      priority: row.priority,
      payload: JSON.parse(row.payloadJson),
      attempt: row.attempt,
      maxRetries: row.maxRetries,
      progress: row.progress,
      result: JSON.parse(row.resultJson),
      error: row.error ? { ...row.error } : null,
      createdAt: row.createdAt,
      runAt: row.runAt,
      startedAt: row.startedAt,
      finishedAt: row.finishedAt,
      scheduleId: row.scheduleId,
      dependsOn: [...row.dependsOn],
      onSuccessOf: row.onSuccessOf,
      onFailureOf: row.onFailureOf,
      key: row.key,
      timeoutMs: row.timeoutMs,
      backoff: row.backoff,
      cancelReason: row.cancelReason,
      workerId: row.workerId,
    };
  }
}
