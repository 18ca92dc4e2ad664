/**
 * @module types — the records the storage contract (storage.ts) reads and answers: filters
 * and pages, leases, statistics, instances, pool controls and events.
 */
import type { PRUNED_STATUS, ResubmittableStatus, TaskRecord, TaskStatus } from "../core/task.ts";
import type { RateLimit } from "../core/pool-limits.ts";
import type { TaskEvent } from "../core/task-event.ts";
import type { LogLine } from "../core/task-log.ts";

/**
 * What `enqueue` answers for a task whose `dedupe` key an earlier submit holds: nothing was
 * stored; `id` is the first task's. `status` is its status now, or `pruned` when retention
 * already removed its row (it had succeeded or been cancelled).
 */
export interface DedupedTask {
  id: string;
  status: TaskStatus | typeof PRUNED_STATUS;
  deduplicated: true;
}

/**
 * What `enqueue` answers for a task whose `debounce` key maps to a task still waiting for its
 * runAt: that task now carries this submit's spec (keeping its id) and waits until `runAt`.
 */
export interface DebouncedTask {
  id: string;
  status: "scheduled";
  runAt: number;
  debounced: true;
}

/**
 * What `enqueue` answers for a task it stored: its id and the status it was stored in
 * (`queued`, `scheduled`, `waiting`, or `cancelled` when a parent had already ended the
 * wrong way). The record itself is a `get` away; the submit path answers with these two.
 */
export interface StoredTask {
  id: string;
  status: TaskStatus;
}

/**
 * What `enqueue` answers per task, in the order given: the task stored, a dedupe hit, or a
 * debounce hit.
 */
export type Enqueued = StoredTask | DedupedTask | DebouncedTask;

/** Filters for {@link QueryStore.list} and {@link QueryStore.history}. */
export interface TaskFilter {
  status?: TaskStatus | TaskStatus[];
  type?: string;
  pool?: string;
  /** Case-insensitive text searched in id, type, key, payload and error. */
  q?: string;
  /** At most this many (default 50, max 1000). */
  limit?: number;
  /** Opaque cursor from a previous page's `next`. */
  cursor?: string;
}

/** Filters for {@link QueryStore.history}: a task filter, or the attempts of one task. */
export interface HistoryFilter extends TaskFilter {
  /** Only the attempts of this task (a range of history, not a scan of all of it). */
  taskId?: string;
}

/** Which page of a paged read: at most `limit` (default 50, max 1000) after `cursor`. */
export interface PageRequest {
  limit?: number;
  /** Opaque cursor from a previous page's `next`. */
  cursor?: string;
}

/** One page of a listing; `next` is null on the last page. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** The dead, cancelled or expired tasks {@link QueueStore.resubmitMatching} queues again. */
export interface EndedFilter {
  status: ResubmittableStatus;
  type?: string;
  pool?: string;
}

/** The holder of a lease: the claiming instance and how long the lease lasts. */
export interface LeaseOwner {
  workerId: string;
  leaseMs: number;
}

/**
 * A running attempt as its claimer holds it. `token` is unique per claim (a fencing token):
 * a settle or renewal presenting the token of an earlier claim of the same task changes
 * nothing, even when it comes from the same instance.
 */
export interface Lease {
  id: string;
  workerId: string;
  token: string;
}

/**
 * Log lines of one attempt handed to the store (with a settle, a hand-back, or
 * {@link QueueStore.appendLogs} while it runs). An attempt numbers its lines from 1; `from`
 * is the number of `lines[0]`, and the lines follow without a gap. Lines the store already
 * holds from this claim (a retry after a lost reply) are skipped, so each is kept once;
 * lines between the last one it holds and `from` were dropped by the worker (its buffer's
 * caps) and are counted as dropped.
 */
export interface LogBatch {
  from: number;
  lines: LogLine[];
}

/** A lease with the log lines its attempt has not stored yet. */
export interface LoggedLease extends Lease {
  logs?: LogBatch;
}

/** Which of a task's log lines {@link QueryStore.taskLogs} reads: a page, one attempt's. */
export interface LogFilter extends PageRequest {
  /** Only the lines this attempt logged. */
  attempt?: number;
}

/**
 * A page of a task's log, oldest first. `dropped`: lines of the task not kept (older ones
 * past the caps, and lines its workers had to drop), so a reader can say some are missing.
 */
export interface LogPage extends Page<LogLine> {
  dropped: number;
}

/** A task as {@link QueueStore.claim} hands it over: running, with its claim's token. */
export interface ClaimedTask extends TaskRecord {
  token: string;
}

/**
 * What {@link QueueStore.claim} answers: the tasks, and `heldUntil` when the pool's rate
 * limit held queued work back: the time (the claimers' clock) its next start is allowed.
 */
export type Claimed = ClaimedTask[] & { heldUntil?: number };

/**
 * When each kind of timed work falls due next ({@link DueTimes.nextDue}), epoch ms, null
 * for none: what a process without a timing wheel (the edge deliverer) arms its one alarm
 * for.
 */
export interface NextDue {
  /** The earliest delayed entry: a scheduled or retrying task, or a flow key's rate wake. */
  delayed: number | null;
  /** The earliest lease of a running task: recoverExpired takes it once `now` passes it. */
  lease: number | null;
  /** The earliest next occurrence of a schedule that is not paused. */
  schedule: number | null;
  /** The earliest entry of the expiry index (it may belong to a task that started since). */
  expiry: number | null;
}

/** What one run of the recovery duty did. */
export interface Recovery {
  /** Expired leases put back to work (or, past maxStalls, dead). */
  recovered: number;
  /** Workflow cascades are still unfinished: run again soon. */
  cascadesPending: boolean;
}

/** What one run of the expiry duty did. */
export interface Expiry {
  /** Tasks that ended `expired`. */
  expired: number;
  /** It read `limit` entries of the expiry index: more may be due, call again. */
  more: boolean;
}

/** Cluster-wide control of one pool: its size, pause flag and cluster-wide limits. */
export interface PoolControl {
  pool: string;
  /** null: each instance uses the size it was configured with. */
  size: number | null;
  paused: boolean;
  /** Most of its tasks running at once across every instance; null: no such limit. */
  globalConcurrency: number | null;
  /** Most starts in any window of `perMs` across every instance; null: no such limit. */
  rateLimit: RateLimit | null;
}

/** Duration statistics of one task type over its recent attempts. */
export interface DurationStats {
  count: number;
  meanMs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Present once there are at least 100 samples. */
  p95Ms?: number;
  p99Ms?: number;
}

/** What the store counts. */
/** A busy flow key's limits (null: none) and usage, in `StorageStats.flowKeys`. */
export interface FlowKeyStats {
  key: string;
  parallelism: number | null;
  rate: number | null;
  periodMs: number | null;
  running: number;
  parked: number;
}

/** At most this many busy keys are listed, found among the newest FLOW_KEYS_SCAN keys. */
export const FLOW_KEYS_LISTED = 50;
export const FLOW_KEYS_SCAN = 1000;

export interface StorageStats {
  byStatus: Record<TaskStatus, number>;
  /** `parked`: queued tasks held back by their flow key (counted in `queued` too). */
  byPool: Record<string, { queued: number; running: number; parked: number }>;
  /** Busy flow keys (running or parked work), most recently submitted first, bounded. */
  flowKeys: FlowKeyStats[];
  /** `stalled`: attempts lost with their worker (not failures: no retry spent). */
  /** `expired`: tasks that ended expired (not started by their expiresAt). */
  totals: {
    succeeded: number;
    failedAttempts: number;
    dead: number;
    stalled: number;
    expired: number;
  };
  durations: Record<string, DurationStats>;
}

/** A live worker instance, refreshed by its heartbeat. */
export interface InstanceInfo {
  id: string;
  host: string;
  pid: number;
  pools: Record<string, number>;
  /**
   * Task types it has handlers for, as of its last heartbeat: a submit of a type no live
   * instance lists is answered with a warning (src/client/type-directory.ts). Absent from
   * instances of versions before it, which then count as handling every type.
   */
  types?: string[];
  running: number;
  startedAt: number;
  lastSeen: number;
}

/** Retention of finished attempts in history. */
export interface HistoryRetention {
  maxAgeMs: number;
  maxCount: number;
}

/**
 * Notifications (see {@link EventSource}): a store delivers the events of its own writes to
 * its own subscribers at once, and those of other instances through pub/sub. A partitioned
 * store says in `part` which partition the work is in (its duties then visit that one).
 */
/**
 * Receives task events (src/core/task-event.ts) as batches, in order; `missed` is true when
 * events before this batch could not be delivered (they left the store's buffer first).
 */
export type TaskEventListener = (events: TaskEvent[], missed: boolean) => void;

/**
 * A subscription to task events: `ready` resolves once every event recorded from then on
 * will be delivered (a subscription over the network takes a round trip to be in place);
 * `close` ends it.
 */
export interface TaskEventSubscription {
  ready: Promise<void>;
  close(): void;
}

/** Buffered task events after a given one; `missed`: some right after it were dropped. */
export interface TaskEventPage {
  events: TaskEvent[];
  missed: boolean;
}

export type StorageEvent =
  /** Work became ready in `pool`: idle workers should claim. */
  | { kind: "ready"; pool: string; part?: number }
  /** A task was put in the delayed set: arm the wheel when it is inside the look-ahead. */
  | { kind: "delayed"; id: string; runAt: number; part?: number }
  /** A task waiting to start expires at `at`: arm the wheel for the expiry duty. */
  | { kind: "expiry"; id: string; at: number; part?: number }
  /** A schedule was added or moved. */
  | { kind: "schedule"; id: string; nextRunAt: number; part?: number }
  /** Stop the running task `id`: it was cancelled. */
  | { kind: "cancel"; id: string }
  /** A workflow cascade was left unfinished: run {@link QueueStore.recoverExpired} soon. */
  | { kind: "cascade" }
  /** Pool sizes or pause flags changed. */
  | { kind: "control" };

/** Result of firing one schedule occurrence. */
/**
 * What putSchedule did: stored it (`created` or `replaced`), or refused a replacement whose
 * nextRunAt is not after the stored lastFiredAt (`stale`: compute the next slot after it).
 */
export type PutScheduleResult =
  | { outcome: "created" | "replaced" }
  | { outcome: "stale"; lastFiredAt: number };

export interface FireResult {
  /** False when another instance fired this occurrence first (nothing changed). */
  fired: boolean;
  /** The run created, or null when the occurrence was skipped (previous run unfinished). */
  taskId: string | null;
}

/** What {@link RateLimiter.hitRateLimit} decided. */
export interface RateLimitResult {
  /** True when the hit was counted: fewer than `limit` hits were inside the window. */
  allowed: boolean;
  /** When refused, ms until the oldest hit inside the window leaves it; else 0. */
  retryAfterMs: number;
}
