/**
 * @module storage — the Storage contract every backend implements, in roles.
 *
 * Operations are whole state transitions ("claim up to N ready tasks with a lease"), never
 * storage commands: on Redis each one is a single atomic Lua script, in memory a synchronous
 * critical section. The caller always passes `now` (epoch ms) so no backend reads a clock,
 * and instances with skewed clocks still agree on ordering decided by one script. Every call
 * that changes state takes one parameter object (params.ts).
 *
 * Error contract: operations throw `ValidationError`, `NotFoundError`, `ConflictError` or
 * `CapacityError` from `src/core/errors.ts`, and store nothing when they throw. A store that
 * cannot answer throws `StorageUnavailableError`: then the call may or may not have taken
 * effect (a lost reply), so every transition a worker retries is safe to repeat — settles
 * and renewals are fenced by the claim's token, and a repeated settle answers as the first.
 *
 * Bounded work: no call does work proportional to user-sized data (a workflow cascade
 * settles at most 1000 children per call and leaves the rest to
 * {@link QueueStore.recoverExpired}; paged reads return at most 1000 items).
 *
 * The roles: {@link QueueStore} (task transitions), {@link ScheduleStore},
 * {@link QueryStore} (reads for people and dashboards), {@link InstanceRegistry} (live
 * instances and pool controls), {@link RateLimiter}, {@link EventSource}, {@link DueTimes}
 * (when timed work falls due), and the {@link StoreLifecycle}. A component asks for the
 * roles it uses; {@link Storage} is all of them, which is what a Scheduler takes.
 */
import type { AttemptRecord, ScheduleRecord, TaskRecord } from "../core/task.ts";
import type {
  AppendLogsParams,
  CancelParams,
  ClaimParams,
  CompleteParams,
  DueParams,
  EnqueueParams,
  FailParams,
  FireParams,
  HeartbeatParams,
  PauseParams,
  PauseScheduleParams,
  PoolLimitsParams,
  PoolSizeParams,
  PoolStartsParams,
  ProgressParams,
  PutScheduleParams,
  RateLimitParams,
  ReleaseClaimParams,
  ReleaseParams,
  RenewParams,
  ResubmitMatchingParams,
  ResubmitParams,
  StepParams,
  TriggerParams,
} from "./params.ts";
import type {
  Claimed,
  Enqueued,
  Expiry,
  FireResult,
  HistoryFilter,
  InstanceInfo,
  LogFilter,
  LogPage,
  NextDue,
  Page,
  PageRequest,
  PoolControl,
  PutScheduleResult,
  RateLimitResult,
  Recovery,
  StorageEvent,
  StorageStats,
  TaskEventListener,
  TaskEventPage,
  TaskEventSubscription,
  TaskFilter,
} from "./types.ts";

export type * from "./types.ts";
export type * from "./params.ts";

/** Connecting and closing. */
export interface StoreLifecycle {
  /** A short name for logs and `/skedulr/healthz`: `memory`, `redis`, `redis-rest`. */
  readonly name: string;
  /**
   * How many partitions the store is split into (src/storage/partitioned/); absent: one.
   * Duties of a partitioned store visit one partition per call (`part` of DueParams and
   * StepParams) and its events say which partition has work.
   */
  readonly partitions?: number;
  /** Connects and checks the backend is usable (e.g. Redis eviction policy). */
  init(): Promise<void>;
  /** Releases connections. The data stays (for Redis). */
  close(): Promise<void>;
  /** True when the backend answers. */
  ping(): Promise<boolean>;
}

/**
 * The task transitions: submit, claim, settle, hand back, promote, recover.
 *
 * Callbacks: every transition that ends a task (complete, fail, cancel, a claim or
 * expireDue expiring it, recoverExpired declaring it dead, a workflow cascade cancelling
 * it, enqueue storing it already cancelled) inserts, in the same atomic call, for a task
 * whose `callback` lists the final status, one `callback` task (core/callback.ts): id
 * `__cb_<id>_<n>` (n counts the task's callbacks, skipping ids in use), in the callback's
 * pool, queued (a `ready` event), with no callback of its own, carrying a snapshot of the
 * ended task that its record's payload shows as `task`. A retried settle answered as the
 * first (its reply was lost) inserts none. Capacity (`maxUnfinished`) never refuses one.
 */
export interface QueueStore {
  /**
   * Claim loops a pool of 16 slots or more runs (default 2; see src/worker/pool.ts). A store
   * that already sends each claim beside the settles before it (RestRedisStorage's claim
   * lane) says 1: two loops would halve its batches and double its requests per task.
   */
  readonly claimLoops?: 1 | 2;
  /**
   * Stores new tasks, all or none. Per task, atomically: rejects an id in use or a `key`
   * held by an unfinished task (conflict), unknown workflow parents (validation), and a
   * capacity overflow. The initial status follows from the parents and `runAt`:
   * `waiting` (parents unfinished), `cancelled` (a parent already ended the wrong way),
   * `scheduled` (runAt in the future, added to the delayed set), else `queued`.
   * Parents may be earlier tasks of the same batch.
   *
   * A task with `dedupe` whose key an earlier submit (or an earlier task of the batch) took
   * less than its `ttlMs` before `now` is not checked or stored: its answer is a
   * `DedupedTask` (types.ts) naming that first task. Otherwise the stored task takes the key for
   * `ttlMs` from `now`, whatever becomes of the task (finished, pruned).
   *
   * A task with `debounce` whose key maps to a task still `scheduled` with `now` before its
   * runAt (or to an earlier task of the batch) is not checked or stored either: that task
   * takes its spec (all but the id) and a runAt of `now + delayMs`, capped at `maxWaitMs`
   * after the burst's first submit (a `delayed` event is published); the answer is a
   * `DebouncedTask`. Otherwise a stored debounced task that waits starts a burst until its
   * runAt. Answers are in the order of `tasks`; a stored task's is its id and initial status
   * (`StoredTask`), which is all a submit answers with.
   */
  enqueue(p: EnqueueParams): Promise<Enqueued[]>;

  /**
   * Takes up to `max` queued tasks of `pool` — highest priority first, FIFO among equals —
   * unless the pool is paused. Each becomes `running` with `attempt + 1`, `startedAt = now`
   * and a lease owned by `owner` until `now + leaseMs`, under a new claim token.
   *
   * The pool's cluster-wide limits cap the take (see {@link InstanceRegistry.setPoolLimits}):
   * at most `globalConcurrency` minus its tasks running anywhere, and at most
   * `rateLimit.max` minus its starts inside `(now - perMs, now]` (a log of start times,
   * at most `max` kept). When the rate limit held queued work back, the answer's
   * `heldUntil` is when the next start is allowed (the oldest start in the window + perMs).
   * Each transition that ends or hands back a running task frees its slot; in a pool with a
   * global limit and queued work, it publishes `ready` so every instance claims again.
   *
   * A task whose `expiresAt` is at or before `now` is never started: the claim ends it
   * `expired` instead (as {@link expireDue} would, in the same atomic call) and takes the
   * next one in queue order, work that ending queued (an `onFailureOf` child, a callback)
   * included; expired tasks count towards the scan's bound (FLOW_SCAN_EXTRA past `max`).
   *
   * Flow control keys (a task's `flowControl`): a task whose key has `parallelism` tasks
   * running, or no rate token left at `now`, or older parked tasks (FIFO within a key), is
   * parked instead (still `queued`, `waitingFor` set, its queue position kept) and the next
   * one is taken; the scan stops FLOW_SCAN_EXTRA (64) tasks past `max`. A parked key is
   * unparked (back to ready, `ready` published) when one of its tasks stops running, when a
   * submit raises its limits, and, for `rate`, when its next token frees: a durable wake
   * taken by the next claim at or after it, or by {@link promoteDue} (its `~<key>` entry in
   * the delayed set). Due wakes are taken first by every claim. `heldUntil` is then also
   * `now` (claim again at once: the scan stopped at its bound, or it unparked older tasks)
   * or the earliest next wake of a key it parked for rate or whose tokens it drew while
   * tasks of the key stay parked, whichever is earliest. A task that stops running frees
   * its key's slot for one parked task (the key's rate wake unparks what its tokens allow).
   */
  claim(p: ClaimParams): Promise<Claimed>;

  /**
   * Hands back the tasks of a claim whose reply was lost (`claimedAt` is the `now` it sent):
   * those still running under `owner` since then, except `keep` (attempts the worker knows),
   * go back to the front of their queue with the attempt restored. Returns how many.
   */
  releaseClaim(p: ReleaseClaimParams): Promise<number>;

  /** Extends the leases still held (same claim); returns the ids whose lease was lost. */
  renewLeases(p: RenewParams): Promise<string[]>;

  /**
   * Ends a running attempt in success (only while its lease is held; returns false
   * otherwise and changes nothing; true again when this claim already completed it).
   * Stores `result`, releases the key, records the attempt, and settles workflow children:
   * those whose conditions all hold become queued or scheduled, those with a broken
   * condition are cancelled (transitively, bounded per call). Appends `logs` as
   * {@link appendLogs} does, only when this call ends the attempt (a repeated call appends
   * nothing).
   */
  complete(p: CompleteParams): Promise<boolean>;

  /**
   * Ends a running attempt in failure (only while its lease is held). With `retryAt` the
   * task becomes `retrying` in the delayed set; without it the task is `dead`, joins the
   * dead-letter list, and its workflow children are settled. Returns the new status (again,
   * for a repeated call of the same claim), or null when the lease was not held. Appends
   * `logs` as {@link complete} does.
   */
  fail(p: FailParams): Promise<"retrying" | "dead" | null>;

  /**
   * Hands back attempts without counting them (graceful shutdown, a lease that ran out on
   * the worker's clock): queued again at the front of their priority, attempt restored.
   * Each lease's `logs` are appended as it is handed back.
   */
  release(p: ReleaseParams): Promise<number>;

  /** Records handler progress (0..100) while the lease is held. */
  setProgress(p: ProgressParams): Promise<boolean>;

  /**
   * Appends log lines of attempts to their tasks' logs (`logs:<id>` on Redis), per lease
   * only while that claim still holds the task (running under it), or its task was
   * cancelled while that claim ran it (the lines an aborted handler logged). Lines the
   * store already holds from the claim are skipped (see {@link LogBatch}), so a call
   * repeated after a lost reply keeps each line once. A task keeps the newest
   * MAX_TASK_LOG_LINES lines within MAX_TASK_LOG_BYTES (src/core/bounds.ts), counting what
   * it drops; the log is deleted with the task's row. Answers per lease: appended (or
   * already held), else false.
   */
  appendLogs(p: AppendLogsParams): Promise<boolean[]>;

  /**
   * Cancels an unfinished task: it never runs (or, if running, its lease ends now and the
   * owner is told through a `cancel` event). Children are settled. Throws not-found for an
   * unknown id and conflict for a finished task. Returns the record after the change.
   */
  cancel(p: CancelParams): Promise<TaskRecord>;

  /**
   * Queues a dead, cancelled or expired task again under the same id with attempts reset and
   * no expiry. Throws not-found, or conflict for any other status.
   */
  resubmit(p: ResubmitParams): Promise<TaskRecord>;

  /** Resubmits every dead, cancelled or expired task matching the filter; returns how many. */
  resubmitMatching(p: ResubmitMatchingParams): Promise<number>;

  /** Delayed tasks (scheduled or retrying) due at or before `until`, earliest first. */
  dueDelayed(p: DueParams): Promise<{ id: string; runAt: number }[]>;

  /**
   * Moves delayed tasks due at `now` to their ready queues, each exactly once, and takes due
   * flow key wakes (listed by {@link dueDelayed} as `~<key>`: the key's parked tasks go back
   * to ready); returns how many entries it took.
   */
  promoteDue(p: StepParams): Promise<number>;

  /**
   * Entries of the expiry index (tasks with an `expiresAt` that have not started: queued,
   * scheduled, retrying, waiting) due at or before `until`, earliest first. Entries of tasks
   * that started or finished since may be among them (they are dropped when read).
   */
  dueExpiries(p: DueParams): Promise<{ id: string; expiresAt: number }[]>;

  /**
   * The expiry duty: reads up to `limit` entries of the expiry index due at `now`, earliest
   * first, and ends each task still not started (queued, scheduled, retrying, waiting) in
   * `expired`: key released, no attempt recorded (it never ran), its workflow children
   * settled as for `dead` (onFailureOf met, the rest cancelled; bounded). A running task is
   * not touched: its entry is dropped, and added again if it goes back to wait (a retry, a
   * stall, a hand-back). `more` is true when `limit` entries were read.
   */
  expireDue(p: StepParams): Promise<Expiry>;

  /**
   * Puts back running tasks whose lease expired (their worker was lost), without spending a
   * retry: history records the attempt as `stalled`, `stalls` grows, and the task goes to the
   * front of its queue — or is dead once `stalls` exceeds its `maxStalls`. Also continues
   * workflow cascades left unfinished by earlier calls.
   */
  recoverExpired(p: StepParams): Promise<Recovery>;
}

/**
 * Recurring and cron schedules. Task and schedule ids share one namespace: a schedule's id
 * may not name a task, nor a task's a schedule (ConflictError).
 */
export interface ScheduleStore {
  /**
   * Stores a new schedule, or with `replace` replaces the one under its id: the cadence,
   * template, catchUp and skipIfRunning are the new record's; lastRunId, lastRunAt,
   * lastFiredAt, paused and createdAt stay the stored one's. A replacement whose nextRunAt
   * is not after the stored lastFiredAt changes nothing and answers `stale` (the caller takes
   * the next slot after it), so an occurrence fired meanwhile never fires again. Throws
   * ConflictError for an id held by a task, or by a schedule when not `replace`.
   */
  putSchedule(p: PutScheduleParams): Promise<PutScheduleResult>;
  getSchedule(id: string): Promise<ScheduleRecord | null>;
  /**
   * Pauses (nothing fires) or resumes a schedule; a resumed one is due at its stored
   * nextRunAt again, so occurrences missed meanwhile follow its catchUp. Null when unknown.
   */
  setSchedulePaused(p: PauseScheduleParams): Promise<ScheduleRecord | null>;
  /**
   * Enqueues `run` for the schedule now, outside its cadence (nextRunAt unchanged), and makes
   * it the schedule's last run. False when the schedule is unknown (nothing stored).
   */
  triggerSchedule(p: TriggerParams): Promise<boolean>;
  /** Removes a schedule so it never fires again; false when unknown. */
  removeSchedule(id: string): Promise<boolean>;
  listSchedules(): Promise<ScheduleRecord[]>;
  /** Schedules whose next occurrence is at or before `until`. */
  dueSchedules(p: DueParams): Promise<{ id: string; nextRunAt: number }[]>;

  /**
   * Fires occurrence `occurrenceAt` of a schedule exactly once across instances: only when
   * the schedule is not paused and its `nextRunAt` still equals `occurrenceAt`. Moves
   * `nextRunAt` to `nextRunAt`, lastFiredAt to `firedAt` and, unless `run` is null or the
   * previous run is unfinished and the schedule skips overlaps, enqueues `run`.
   */
  fireSchedule(p: FireParams): Promise<FireResult>;
}

/**
 * One read of when timed work falls due, for a process that keeps no timing wheel and no
 * event stream (the edge deliverer, src/worker/edge-run.ts): it sleeps until the earliest.
 */
export interface DueTimes {
  /**
   * The earliest due time of each kind: delayed entries (as {@link QueueStore.dueDelayed}
   * lists them), running tasks' leases, schedules not paused (next occurrence before
   * NEVER), expiry index entries. One atomic read (one script on Redis).
   */
  nextDue(): Promise<NextDue>;
}

/** Reads for people, dashboards and the API: records, listings, history, statistics. */
export interface QueryStore {
  get(id: string): Promise<TaskRecord | null>;
  /** Tasks matching the filter, newest first. */
  list(filter: TaskFilter): Promise<Page<TaskRecord>>;

  /**
   * The workflow children of task `id` — the tasks that waited on it — in the order they
   * were added, with their current records. A task submitted after `id` had already ended
   * never waits on it (it is settled at once) and is not listed; children dropped by row
   * retention are left out, so a page may hold fewer than `limit`. Empty for an unknown id.
   */
  children(id: string, page?: PageRequest): Promise<Page<TaskRecord>>;

  /**
   * Finished attempts, newest first. With `taskId`, only that task's attempts: the store
   * reads history back to the task's creation, not all of it.
   */
  history(filter: HistoryFilter): Promise<Page<AttemptRecord>>;

  /**
   * A page of task `id`'s log lines, oldest first (`attempt`: that attempt's only), with
   * how many of its lines were dropped; `next` resumes after the page (lines dropped since
   * are skipped). Null for an unknown task.
   */
  taskLogs(id: string, filter?: LogFilter): Promise<LogPage | null>;

  stats(): Promise<StorageStats>;
  /** How many of `pool`'s tasks run now, across the cluster (its global limit's usage). */
  poolRunning(pool: string): Promise<number>;
}

/** Live worker instances and the cluster-wide controls of their pools. */
export interface InstanceRegistry {
  /** Registers or refreshes a live instance; it disappears when not refreshed within `ttlMs`. */
  heartbeat(p: HeartbeatParams): Promise<void>;
  listInstances(now: number): Promise<InstanceInfo[]>;
  removeInstance(id: string): Promise<void>;

  /** Sets a pool's cluster-wide size (null: back to each instance's configured size). */
  setPoolSize(p: PoolSizeParams): Promise<void>;
  /**
   * Sets or removes (null) a pool's cluster-wide limits, `globalConcurrency` and
   * `rateLimit`; a field left out is unchanged. With `ifAbsent`, only fields the store holds
   * no value for are set (atomically), so a restart never undoes an operator's change.
   * Publishes `control`, and `ready` for the pool (a raised limit may let work start).
   */
  setPoolLimits(p: PoolLimitsParams): Promise<void>;
  /** How many of `pool`'s starts fall in `(now - perMs, now]` (its rate limit's usage). */
  poolStarts(p: PoolStartsParams): Promise<number>;
  /** Pauses or resumes one pool, or every pool when `pool` is null. */
  setPaused(p: PauseParams): Promise<void>;
  /** Control state of every pool that has any (plus the global pause as pool `*`). */
  poolControls(): Promise<PoolControl[]>;
}

/** Sliding-window limits shared by every instance (failed logins per client address). */
export interface RateLimiter {
  /**
   * Counts one hit against `key`: allowed, and counted, while fewer than `limit` hits fall
   * in `(now - windowMs, now]`; a refused hit is not counted. Bounded: at most `limit` hits
   * are kept per key, and a key is forgotten `windowMs` after its last counted hit.
   */
  hitRateLimit(p: RateLimitParams): Promise<RateLimitResult>;
}

/**
 * Events, one path: a write made through a store reaches that store's subscribers through
 * the store itself, delivered on a microtask before the write's caller resumes; events of
 * other instances arrive over pub/sub (Redis) or the event stream (REST). A copy of an
 * event may arrive twice (a Redis store's own write comes back over pub/sub): every
 * reaction to an event must be idempotent.
 */
export interface EventSource {
  /** Listens to events; returns the unsubscribe function. */
  subscribe(listener: (event: StorageEvent) => void): () => void;

  /**
   * Listens to task events (src/core/task-event.ts) of every process, in order, as batches
   * are recorded: every batch recorded after the subscription's `ready` resolved (and maybe
   * some before). A batch the live channel lost is read from the buffer before the next one
   * is delivered; one gone from the buffer too is reported as `missed`. Costs nothing while
   * no task changes.
   */
  subscribeTaskEvents(listener: TaskEventListener): TaskEventSubscription;

  /**
   * The buffered task events after event id `after`, oldest first, at most `limit`
   * (a resuming reader's `Last-Event-ID`). `missed` is true when events right after it
   * were already dropped from the buffer (the last TASK_EVENT_BUFFER batches are kept),
   * or when `after` was never an id of this store's (e.g. one from before a reset).
   */
  taskEventsAfter(after: string, limit: number): Promise<TaskEventPage>;
}

/** The whole contract: what a Scheduler takes (`SchedulerOptions.storage`). */
export interface Storage
  extends
    StoreLifecycle,
    QueueStore,
    ScheduleStore,
    QueryStore,
    InstanceRegistry,
    RateLimiter,
    EventSource,
    DueTimes {}
