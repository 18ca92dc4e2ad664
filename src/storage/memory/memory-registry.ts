/**
 * @module memory-registry — the embedded store's non-task state: events, keys, dead letters,
 * history and durations, pool controls, instances and schedules. The task transitions live
 * in memory-storage.ts, which extends this class.
 */
import { ConflictError } from "../../core/errors.ts";
import {
  ALL_STATUSES,
  type AttemptRecord,
  FINAL_STATUSES,
  type NewTask,
  type ScheduleRecord,
  type TaskError,
} from "../../core/task.ts";
import type {
  FireResult,
  HistoryRetention,
  InstanceInfo,
  Page,
  PoolControl,
  RateLimitResult,
  StorageEvent,
  StorageStats,
  TaskFilter,
} from "../storage.ts";
import { attemptMatcher, pageLimit } from "../filter.ts";
import { RateLimits } from "./rate-limits.ts";
import { durationStats, SampleRing } from "./stats-window.ts";
import { scheduleRecord } from "./records.ts";
import type { Row, TaskTable } from "./task-table.ts";

export interface MemoryStorageOptions {
  /** Reject `enqueue` once this many tasks are unfinished (back-pressure). */
  maxUnfinished?: number;
  /** Retention of finished attempts and finished task rows (default 7 days, 10k). */
  history?: Partial<HistoryRetention>;
}

const DEFAULT_RETENTION: HistoryRetention = { maxAgeMs: 7 * 86_400_000, maxCount: 10_000 };

export abstract class MemoryRegistry {
  protected readonly options: MemoryStorageOptions;
  protected readonly retention: HistoryRetention;
  /** Key → id of the unfinished task holding it. */
  protected readonly activeKeys = new Map<string, string>();
  protected readonly totals = { succeeded: 0, failedAttempts: 0, dead: 0, stalled: 0 };
  readonly #listeners = new Set<(event: StorageEvent) => void>();
  #outbox: StorageEvent[] = [];
  readonly #history: (AttemptRecord & { n: number })[] = [];
  #historySeq = 0;
  readonly #durations = new Map<string, SampleRing>();
  readonly #pools = new Map<string, PoolControl>();
  readonly #instances = new Map<string, { info: InstanceInfo; expiresAt: number }>();
  readonly #schedules = new Map<string, ScheduleRecord>();
  readonly #rateLimits = new RateLimits();

  constructor(options: MemoryStorageOptions) {
    this.options = options;
    this.retention = { ...DEFAULT_RETENTION, ...options.history };
  }

  protected abstract table(): TaskTable;
  protected abstract insertTask(task: NewTask, now: number): Row;

  init(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#listeners.clear();
    return Promise.resolve();
  }

  ping(): Promise<boolean> {
    return Promise.resolve(true);
  }

  subscribe(listener: (event: StorageEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Delivers on a microtask, like a pub/sub message arriving after the transition. */
  protected emit(event: StorageEvent): void {
    if (this.#listeners.size === 0) return;
    // One microtask per burst, not per event: a promote of 1000 tasks is one delivery.
    if (this.#outbox.push(event) === 1) queueMicrotask(this.#deliver);
  }

  readonly #deliver = () => {
    const events = this.#outbox;
    this.#outbox = [];
    for (const event of events) for (const listener of this.#listeners) listener(event);
  };

  protected unfinished(): number {
    const counts = this.table().counts;
    return ALL_STATUSES.filter((s) => !FINAL_STATUSES.has(s)).reduce((n, s) => n + counts[s], 0);
  }

  protected recordAttempt(
    row: Row,
    status: AttemptRecord["status"],
    now: number,
    error: TaskError | null = row.error,
  ): void {
    const durationMs = Math.max(0, now - (row.startedAt ?? now));
    this.#history.push({
      n: ++this.#historySeq,
      taskId: row.id,
      type: row.type,
      pool: row.pool,
      attempt: row.attempt,
      status,
      error: status === "succeeded" ? null : error && { ...error },
      startedAt: row.startedAt ?? now,
      finishedAt: now,
      durationMs,
      workerId: row.workerId ?? "",
    });
    let ring = this.#durations.get(row.type);
    if (!ring) this.#durations.set(row.type, ring = new SampleRing());
    ring.add(durationMs);
  }

  protected pruneFinished(now: number): void {
    const { maxAgeMs, maxCount } = this.retention;
    this.table().prune(now, maxAgeMs, maxCount);
    const h = this.#history;
    let drop = Math.max(0, h.length - maxCount);
    while (drop < h.length && now - h[drop].finishedAt > maxAgeMs) drop++;
    // Splice in chunks so pruning stays amortised O(1) per attempt.
    if (drop > 0 && (drop >= 1024 || h.length - drop < 1024)) h.splice(0, drop);
  }

  history(filter: TaskFilter): Promise<Page<AttemptRecord>> {
    const match = attemptMatcher(filter);
    const limit = pageLimit(filter);
    const before = filter.cursor ? Number(filter.cursor) : Infinity;
    const items: AttemptRecord[] = [];
    let next: string | null = null;
    const oldest = Math.max(0, this.#history.length - this.retention.maxCount);
    for (let i = this.#history.length - 1; i >= oldest; i--) {
      const { n, ...attempt } = this.#history[i];
      if (n >= before || !match(attempt)) continue;
      if (items.length === limit) {
        next = String(this.#history[i + 1]?.n ?? n);
        break;
      }
      items.push(attempt);
      next = null;
    }
    return Promise.resolve({ items, next: items.length === limit ? next : null });
  }

  protected buildStats(t: TaskTable): StorageStats {
    // The first 1000 pools and types by first use, as the Redis store reports them. Built
    // with fromEntries, which defines each name as an own key whatever it is (`constructor`).
    const byPool: StorageStats["byPool"] = Object.fromEntries(
      [...t.perPool].slice(0, 1000).map(([pool, c]) => [pool, { ...c }]),
    );
    const durations: StorageStats["durations"] = Object.fromEntries(
      [...this.#durations].slice(0, 1000).map(([type, r]) => [type, durationStats(r.values())]),
    );
    return { byStatus: { ...t.counts }, byPool, totals: { ...this.totals }, durations };
  }

  // Pools: sizes and pause flags shared by every instance on this store.

  protected isPaused(pool: string): boolean {
    return (this.#pools.get("*")?.paused ?? false) || (this.#pools.get(pool)?.paused ?? false);
  }

  #pool(pool: string): PoolControl {
    let c = this.#pools.get(pool);
    if (!c) this.#pools.set(pool, c = { pool, size: null, paused: false });
    return c;
  }

  setPoolSize(pool: string, size: number | null): Promise<void> {
    this.#pool(pool).size = size;
    this.emit({ kind: "control" });
    return Promise.resolve();
  }

  setPaused(pool: string | null, paused: boolean): Promise<void> {
    if (pool === null && !paused) { for (const c of this.#pools.values()) c.paused = false; }
    else this.#pool(pool ?? "*").paused = paused;
    this.emit({ kind: "control" });
    if (!paused) {
      for (const c of this.#pools.values()) {
        this.emit({ kind: "ready", pool: c.pool });
      }
    }
    return Promise.resolve();
  }

  poolControls(): Promise<PoolControl[]> {
    return Promise.resolve([...this.#pools.values()].map((c) => ({ ...c })));
  }

  // Instances.

  heartbeat(info: InstanceInfo, ttlMs: number, now: number): Promise<void> {
    this.#instances.set(info.id, { info: { ...info, lastSeen: now }, expiresAt: now + ttlMs });
    return Promise.resolve();
  }

  listInstances(now: number): Promise<InstanceInfo[]> {
    const live: InstanceInfo[] = [];
    for (const [id, entry] of this.#instances) {
      if (entry.expiresAt < now) this.#instances.delete(id);
      else live.push({ ...entry.info });
    }
    return Promise.resolve(live);
  }

  removeInstance(id: string): Promise<void> {
    this.#instances.delete(id);
    return Promise.resolve();
  }

  hitRateLimit(
    key: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateLimitResult> {
    return this.#rateLimits.hit(key, limit, windowMs, now);
  }

  // Schedules.

  addSchedule(schedule: ScheduleRecord): Promise<void> {
    if (this.#schedules.has(schedule.id)) {
      return Promise.reject(new ConflictError(`Schedule id "${schedule.id}" is already in use`));
    }
    this.#schedules.set(schedule.id, structuredClone(schedule));
    this.emit({ kind: "schedule", id: schedule.id, nextRunAt: schedule.nextRunAt });
    return Promise.resolve();
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    const s = this.#schedules.get(id);
    return Promise.resolve(s ? scheduleRecord(s) : null);
  }

  removeSchedule(id: string): Promise<boolean> {
    return Promise.resolve(this.#schedules.delete(id));
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return Promise.resolve([...this.#schedules.values()].map(scheduleRecord));
  }

  dueSchedules(until: number, limit: number): Promise<{ id: string; nextRunAt: number }[]> {
    const due = [...this.#schedules.values()]
      .filter((s) => s.nextRunAt <= until)
      .sort((a, b) => a.nextRunAt - b.nextRunAt)
      .slice(0, limit)
      .map((s) => ({ id: s.id, nextRunAt: s.nextRunAt }));
    return Promise.resolve(due);
  }

  fireSchedule(
    id: string,
    occurrenceAt: number,
    nextRunAt: number,
    run: NewTask,
    now: number,
  ): Promise<FireResult> {
    const s = this.#schedules.get(id);
    if (!s || s.nextRunAt !== occurrenceAt) return Promise.resolve({ fired: false, taskId: null });
    s.nextRunAt = nextRunAt;
    this.emit({ kind: "schedule", id, nextRunAt });
    const last = s.lastRunId ? this.table().rows.get(s.lastRunId) : undefined;
    if (s.skipIfRunning && last && !FINAL_STATUSES.has(last.status)) {
      return Promise.resolve({ fired: true, taskId: null });
    }
    this.insertTask(run, now);
    s.lastRunId = run.id;
    s.lastRunAt = occurrenceAt;
    return Promise.resolve({ fired: true, taskId: run.id });
  }
}
