/**
 * @module memory-storage — the embedded store: the whole Storage contract in one process,
 * in memory. A real backend for single-process use (`bun run worker` without Redis), not a
 * mock: every transition is a synchronous critical section, so it is as atomic as a Lua
 * script, and the conformance suite holds it to the same behaviour as Redis.
 *
 * Composed of parts it owns, each behind its role: the task table and its transitions
 * (queue.ts, reached through ../queue-forwarder.ts), history (history.ts), schedules
 * (schedules.ts), instances and pool controls (registry.ts), rate limits; this class wires
 * them and answers the queries.
 */
import type { AttemptRecord, ScheduleRecord, TaskRecord } from "../../core/task.ts";
import { NEVER } from "../../core/catch-up.ts";
import { pageLimit } from "../filter.ts";
import { Listeners } from "../listeners.ts";
import type * as P from "../params.ts";
import { QueueForwarder } from "../queue-forwarder.ts";
import type { StatsWithSamples } from "../stats.ts";
import type { Storage } from "../storage.ts";
import type {
  FireResult,
  HistoryFilter,
  HistoryRetention,
  InstanceInfo,
  LogFilter,
  LogPage,
  NextDue,
  Page,
  PageRequest,
  PoolControl,
  PutScheduleResult,
  RateLimitResult,
  StorageEvent,
  StorageStats,
  TaskEventListener,
  TaskEventPage,
  TaskEventSubscription,
  TaskFilter,
} from "../types.ts";
import { AttemptLog } from "./history.ts";
import { MemoryQueue } from "./queue.ts";
import { RateLimits } from "./rate-limits.ts";
import { listRows, toRecord } from "./records.ts";
import { InstanceTable } from "./registry.ts";
import { ScheduleTable } from "./schedules.ts";
import { readLines } from "./task-logs.ts";
import { TaskTable } from "./task-table.ts";
import { MemoryTaskEvents } from "./task-events.ts";

export interface MemoryStorageOptions {
  /** Reject `enqueue` once this many tasks are unfinished (back-pressure). */
  maxUnfinished?: number;
  /** Retention of finished attempts and finished task rows (default 7 days, 10k). */
  history?: Partial<HistoryRetention>;
  /** Record task events for subscribers (default true; false: the stream stays silent). */
  taskEvents?: boolean;
}

const DEFAULT_RETENTION: HistoryRetention = { maxAgeMs: 7 * 86_400_000, maxCount: 10_000 };

/** The first this many pools by first use are reported, as the Redis store reports them. */
const STATS_NAMES_MAX = 1000;

/**
 * The embedded store.
 *
 * @example
 * const scheduler = new Scheduler({ storage: new MemoryStorage({ maxUnfinished: 100_000 }) });
 */
export class MemoryStorage extends QueueForwarder implements Storage {
  readonly name = "memory";
  readonly #events = new Listeners();
  readonly #table = new TaskTable();
  readonly #log: AttemptLog;
  readonly #registry = new InstanceTable(this.#events);
  protected readonly queue: MemoryQueue;
  readonly #schedules: ScheduleTable;
  readonly #limits = new RateLimits();
  readonly #taskEvents: MemoryTaskEvents;

  constructor(options: MemoryStorageOptions = {}) {
    super();
    const retention = { ...DEFAULT_RETENTION, ...options.history };
    this.#log = new AttemptLog(retention);
    this.#taskEvents = new MemoryTaskEvents(options.taskEvents !== false);
    this.queue = new MemoryQueue({
      table: this.#table,
      log: this.#log,
      events: this.#events,
      taskEvents: this.#taskEvents,
      isPaused: (pool) => this.#registry.isPaused(pool),
      limits: this.#registry,
      retention,
      maxUnfinished: options.maxUnfinished,
    });
    // A slot freed under a global limit wakes every instance's claimers (lua/includes/move.lua).
    this.#table.onRunningLeft = (pool) => {
      if (this.#registry.globalLimit(pool) === null) return;
      if (this.#table.readyCount(pool) > 0) this.#events.emit({ kind: "ready", pool });
    };
    this.#table.emit = (event) => this.#events.emit(event);
    this.#schedules = new ScheduleTable(this.#events, {
      status: (id) => this.#table.rows.get(id)?.status,
      insert: (run, now) => this.queue.insert(run, now),
    });
    this.#table.isScheduleId = (id) => this.#schedules.has(id);
  }

  // Lifecycle and events.

  init(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#events.clear();
    return Promise.resolve();
  }

  ping(): Promise<boolean> {
    return Promise.resolve(true);
  }

  subscribe(listener: (event: StorageEvent) => void): () => void {
    return this.#events.add(listener);
  }

  subscribeTaskEvents(listener: TaskEventListener): TaskEventSubscription {
    return { ready: Promise.resolve(), close: this.#taskEvents.subscribe(listener) };
  }

  taskEventsAfter(after: string, limit: number): Promise<TaskEventPage> {
    return Promise.resolve(this.#taskEvents.after(after, Math.max(1, Math.min(1000, limit))));
  }

  /** The number of the last task event batch recorded (0: none yet). */
  taskEventTip(): Promise<number> {
    return Promise.resolve(this.#taskEvents.tip);
  }

  // Queries.

  get(id: string): Promise<TaskRecord | null> {
    const row = this.#table.rows.get(id);
    return Promise.resolve(row ? toRecord(row) : null);
  }

  list(filter: TaskFilter): Promise<Page<TaskRecord>> {
    return Promise.resolve(listRows(this.#table, filter));
  }

  children(id: string, page: PageRequest = {}): Promise<Page<TaskRecord>> {
    const ids = this.#table.rows.get(id)?.children ?? [];
    const from = page.cursor ? Math.max(0, Math.floor(Number(page.cursor)) || 0) : 0;
    const to = from + pageLimit(page);
    const items: TaskRecord[] = [];
    for (const childId of ids.slice(from, to)) {
      const row = this.#table.rows.get(childId);
      if (row) items.push(toRecord(row));
    }
    return Promise.resolve({ items, next: ids.length > to ? String(to) : null });
  }

  history(filter: HistoryFilter): Promise<Page<AttemptRecord>> {
    const row = filter.taskId === undefined ? undefined : this.#table.rows.get(filter.taskId);
    return Promise.resolve(this.#log.list(filter, row?.historyFrom));
  }

  taskLogs(id: string, filter: LogFilter = {}): Promise<LogPage | null> {
    const row = this.#table.rows.get(id);
    return Promise.resolve(row ? readLines(row.log, filter) : null);
  }

  async stats(): Promise<StorageStats> {
    return (await this.statsWithSamples()).stats;
  }

  /** stats(), and the duration samples behind them (a partitioned store merges those). */
  statsWithSamples(): Promise<StatsWithSamples> {
    const t = this.#table;
    // Built with fromEntries, which defines each name as an own key whatever it is.
    const byPool: StorageStats["byPool"] = Object.fromEntries(
      [...t.perPool].slice(0, STATS_NAMES_MAX)
        .map(([pool, c]) => [pool, { ...c, parked: t.flows.parkedByPool.get(pool) ?? 0 }]),
    );
    const stats = {
      byStatus: { ...t.counts },
      byPool,
      totals: { ...this.#log.totals },
      durations: this.#log.durations(),
      flowKeys: t.flows.busy(),
    };
    return Promise.resolve({ stats, samples: this.#log.samples() });
  }

  // Schedules (schedules.ts).

  putSchedule(p: P.PutScheduleParams): Promise<PutScheduleResult> {
    return this.#schedules.putSchedule(p);
  }

  setSchedulePaused(p: P.PauseScheduleParams): Promise<ScheduleRecord | null> {
    return this.#schedules.setSchedulePaused(p);
  }

  triggerSchedule(p: P.TriggerParams): Promise<boolean> {
    return this.#schedules.triggerSchedule(p);
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    return this.#schedules.getSchedule(id);
  }

  removeSchedule(id: string): Promise<boolean> {
    return this.#schedules.removeSchedule(id);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return this.#schedules.listSchedules();
  }

  dueSchedules(p: P.DueParams): Promise<{ id: string; nextRunAt: number }[]> {
    return this.#schedules.dueSchedules(p);
  }

  fireSchedule(p: P.FireParams): Promise<FireResult> {
    return this.#schedules.fireSchedule(p);
  }

  async nextDue(): Promise<NextDue> {
    const first = <T>(list: T[], at: (item: T) => number) => list.length ? at(list[0]) : null;
    let lease: number | null = null;
    for (const id of this.#table.running) {
      const until = this.#table.rows.get(id)?.leaseUntil ?? null;
      if (until !== null && (lease === null || until < lease)) lease = until;
    }
    // Redis reads a schedule whose next occurrence is NEVER as none too (nextDue-1.lua).
    const until = NEVER - 1;
    return {
      delayed: first(await this.queue.dueDelayed({ until: Infinity, limit: 1 }), (d) => d.runAt),
      lease,
      schedule: first(await this.#schedules.dueSchedules({ until, limit: 1 }), (s) => s.nextRunAt),
      expiry: first(
        await this.queue.dueExpiries({ until: Infinity, limit: 1 }),
        (e) => e.expiresAt,
      ),
    };
  }

  // Instances and pool controls (registry.ts), rate limits.

  heartbeat(p: P.HeartbeatParams): Promise<void> {
    return this.#registry.heartbeat(p);
  }

  listInstances(now: number): Promise<InstanceInfo[]> {
    return this.#registry.listInstances(now);
  }

  removeInstance(id: string): Promise<void> {
    return this.#registry.removeInstance(id);
  }

  setPoolSize(p: P.PoolSizeParams): Promise<void> {
    return this.#registry.setPoolSize(p);
  }

  setPaused(p: P.PauseParams): Promise<void> {
    return this.#registry.setPaused(p);
  }

  setPoolLimits(p: P.PoolLimitsParams): Promise<void> {
    return this.#registry.setPoolLimits(p);
  }

  poolStarts(p: P.PoolStartsParams): Promise<number> {
    return this.#registry.poolStarts(p);
  }

  poolRunning(pool: string): Promise<number> {
    return Promise.resolve(this.#table.perPool.get(pool)?.running ?? 0);
  }

  poolControls(): Promise<PoolControl[]> {
    return this.#registry.poolControls();
  }

  hitRateLimit(p: P.RateLimitParams): Promise<RateLimitResult> {
    return this.#limits.hit(p.key, p.limit, p.windowMs, p.now);
  }
}
