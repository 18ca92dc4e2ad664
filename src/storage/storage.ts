/**
 * @module storage — the Storage contract every backend implements.
 *
 * Operations are whole state transitions ("claim up to N ready tasks with a lease"), never
 * storage commands: on Redis each one is a single atomic Lua script, in memory a synchronous
 * critical section. The caller always passes `now` (epoch ms) so no backend reads a clock,
 * and instances with skewed clocks still agree on ordering decided by one script.
 *
 * Error contract: operations throw `ValidationError`, `NotFoundError`, `ConflictError` or
 * `CapacityError` from `src/core/errors.ts`, and store nothing when they throw. A store that
 * cannot answer throws `StorageUnavailableError`: then the call may or may not have taken
 * effect (a lost reply), so every transition a worker retries is safe to repeat — settles
 * and renewals are fenced by the claim's token, and a repeated settle answers as the first.
 *
 * Bounded work: no call does work proportional to user-sized data (a workflow cascade
 * settles at most 1000 children per call and leaves the rest to {@link Storage.recoverExpired}).
 */
import type {
  AttemptRecord,
  NewTask,
  ScheduleRecord,
  TaskError,
  TaskRecord,
  TaskStatus,
} from "../core/task.ts";

/** Filters for {@link Storage.list} and {@link Storage.history}. */
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

/** One page of a listing, newest first; `next` is null on the last page. */
export interface Page<T> {
  items: T[];
  next: string | null;
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

/** A task as {@link Storage.claim} hands it over: running, with its claim's token. */
export interface ClaimedTask extends TaskRecord {
  token: string;
}

/** What one run of the recovery duty did. */
export interface Recovery {
  /** Expired leases put back to work (or, past maxStalls, dead). */
  recovered: number;
  /** Workflow cascades are still unfinished: run again soon. */
  cascadesPending: boolean;
}

/** Cluster-wide control of one pool: its size and whether it is paused. */
export interface PoolControl {
  pool: string;
  /** null: each instance uses the size it was configured with. */
  size: number | null;
  paused: boolean;
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
export interface StorageStats {
  byStatus: Record<TaskStatus, number>;
  byPool: Record<string, { queued: number; running: number }>;
  /** `stalled`: attempts lost with their worker (not failures: no retry spent). */
  totals: { succeeded: number; failedAttempts: number; dead: number; stalled: number };
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

/** Notifications between instances (pub/sub on Redis, in-process events in memory). */
export type StorageEvent =
  /** Work became ready in `pool`: idle workers should claim. */
  | { kind: "ready"; pool: string }
  /** A task was put in the delayed set: arm the wheel when it is inside the look-ahead. */
  | { kind: "delayed"; id: string; runAt: number }
  /** A schedule was added or moved. */
  | { kind: "schedule"; id: string; nextRunAt: number }
  /** Stop the running task `id`: it was cancelled. */
  | { kind: "cancel"; id: string }
  /** A workflow cascade was left unfinished: run {@link Storage.recoverExpired} soon. */
  | { kind: "cascade" }
  /** Pool sizes or pause flags changed. */
  | { kind: "control" };

/** Result of firing one schedule occurrence. */
export interface FireResult {
  /** False when another instance fired this occurrence first (nothing changed). */
  fired: boolean;
  /** The run created, or null when the occurrence was skipped (previous run unfinished). */
  taskId: string | null;
}

/** What {@link Storage.hitRateLimit} decided. */
export interface RateLimitResult {
  /** True when the hit was counted: fewer than `limit` hits were inside the window. */
  allowed: boolean;
  /** When refused, ms until the oldest hit inside the window leaves it; else 0. */
  retryAfterMs: number;
}

/** The storage contract. See each method for its atomic transition. */
export interface Storage {
  /** A short name for logs and `/skedulr/healthz`: `memory`, `redis`, `redis-rest`. */
  readonly name: string;

  /** Connects and checks the backend is usable (e.g. Redis eviction policy). */
  init(): Promise<void>;
  /** Releases connections. The data stays (for Redis). */
  close(): Promise<void>;
  /** True when the backend answers. */
  ping(): Promise<boolean>;

  /**
   * Stores new tasks, all or none. Per task, atomically: rejects an id in use or a `key`
   * held by an unfinished task (conflict), unknown workflow parents (validation), and a
   * capacity overflow. The initial status follows from the parents and `runAt`:
   * `waiting` (parents unfinished), `cancelled` (a parent already ended the wrong way),
   * `scheduled` (runAt in the future, added to the delayed set), else `queued`.
   * Parents may be earlier tasks of the same batch.
   */
  enqueue(tasks: NewTask[], now: number): Promise<TaskRecord[]>;

  get(id: string): Promise<TaskRecord | null>;
  list(filter: TaskFilter): Promise<Page<TaskRecord>>;

  /**
   * Takes up to `max` queued tasks of `pool` — highest priority first, FIFO among equals —
   * unless the pool is paused. Each becomes `running` with `attempt + 1`, `startedAt = now`
   * and a lease owned by `owner` until `now + leaseMs`, under a new claim token.
   */
  claim(pool: string, max: number, owner: LeaseOwner, now: number): Promise<ClaimedTask[]>;

  /**
   * Hands back the tasks of a claim whose reply was lost (`claimedAt` is the `now` it sent):
   * those still running under `owner` since then, except `keep` (attempts the worker knows),
   * go back to the front of their queue with the attempt restored. Returns how many.
   */
  releaseClaim(
    pool: string,
    owner: LeaseOwner,
    claimedAt: number,
    keep: string[],
    now: number,
  ): Promise<number>;

  /** Extends the leases still held (same claim); returns the ids whose lease was lost. */
  renewLeases(leases: Lease[], leaseMs: number, now: number): Promise<string[]>;

  /**
   * Ends a running attempt in success (only while its lease is held; returns false
   * otherwise and changes nothing; true again when this claim already completed it).
   * Stores `result`, releases the key, records the attempt, and settles workflow children:
   * those whose conditions all hold become queued or scheduled, those with a broken
   * condition are cancelled (transitively, bounded per call).
   */
  complete(lease: Lease, result: unknown, now: number): Promise<boolean>;

  /**
   * Ends a running attempt in failure (only while its lease is held). With `retryAt` the
   * task becomes `retrying` in the delayed set; without it the task is `dead`, joins the
   * dead-letter list, and its workflow children are settled. Returns the new status (again,
   * for a repeated call of the same claim), or null when the lease was not held.
   */
  fail(
    lease: Lease,
    error: TaskError,
    retryAt: number | null,
    now: number,
  ): Promise<"retrying" | "dead" | null>;

  /**
   * Hands back attempts without counting them (graceful shutdown, a lease that ran out on
   * the worker's clock): queued again at the front of their priority, attempt restored.
   */
  release(leases: Lease[], now: number): Promise<number>;

  /** Records handler progress (0..100) while the lease is held. */
  setProgress(lease: Lease, progress: number): Promise<boolean>;

  /**
   * Cancels an unfinished task: it never runs (or, if running, its lease ends now and the
   * owner is told through a `cancel` event). Children are settled. Throws not-found for an
   * unknown id and conflict for a finished task. Returns the record after the change.
   */
  cancel(id: string, reason: string, now: number): Promise<TaskRecord>;

  /**
   * Queues a dead or cancelled task again under the same id with attempts reset. Throws
   * not-found, or conflict for any other status.
   */
  resubmit(id: string, now: number): Promise<TaskRecord>;

  /** Resubmits every dead or cancelled task matching the filter; returns how many. */
  resubmitMatching(
    filter: { status: "dead" | "cancelled"; type?: string; pool?: string },
    now: number,
  ): Promise<number>;

  /** Delayed tasks (scheduled or retrying) due at or before `until`, earliest first. */
  dueDelayed(until: number, limit: number): Promise<{ id: string; runAt: number }[]>;

  /** Moves delayed tasks due at `now` to their ready queues, each exactly once; returns how many. */
  promoteDue(now: number, limit: number): Promise<number>;

  /**
   * Puts back running tasks whose lease expired (their worker was lost), without spending a
   * retry: history records the attempt as `stalled`, `stalls` grows, and the task goes to the
   * front of its queue — or is dead once `stalls` exceeds its `maxStalls`. Also continues
   * workflow cascades left unfinished by earlier calls.
   */
  recoverExpired(now: number, limit: number): Promise<Recovery>;

  /** Stores a schedule; the id must be new. */
  addSchedule(schedule: ScheduleRecord): Promise<void>;
  getSchedule(id: string): Promise<ScheduleRecord | null>;
  /** Removes a schedule so it never fires again; false when unknown. */
  removeSchedule(id: string): Promise<boolean>;
  listSchedules(): Promise<ScheduleRecord[]>;
  /** Schedules whose next occurrence is at or before `until`. */
  dueSchedules(until: number, limit: number): Promise<{ id: string; nextRunAt: number }[]>;

  /**
   * Fires occurrence `occurrenceAt` of a schedule exactly once across instances: only when
   * the schedule's `nextRunAt` still equals `occurrenceAt`. Moves `nextRunAt` to `nextRunAt`
   * and, unless the previous run is unfinished and the schedule skips overlaps, enqueues `run`.
   */
  fireSchedule(
    id: string,
    occurrenceAt: number,
    nextRunAt: number,
    run: NewTask,
    now: number,
  ): Promise<FireResult>;

  /** Sets a pool's cluster-wide size (null: back to each instance's configured size). */
  setPoolSize(pool: string, size: number | null): Promise<void>;
  /** Pauses or resumes one pool, or every pool when `pool` is null. */
  setPaused(pool: string | null, paused: boolean): Promise<void>;
  /** Control state of every pool that has any (plus the global pause as pool `*`). */
  poolControls(): Promise<PoolControl[]>;

  stats(): Promise<StorageStats>;
  /** Finished attempts, newest first. */
  history(filter: TaskFilter): Promise<Page<AttemptRecord>>;

  /** Registers or refreshes a live instance; it disappears when not refreshed within `ttlMs`. */
  heartbeat(info: InstanceInfo, ttlMs: number, now: number): Promise<void>;
  listInstances(now: number): Promise<InstanceInfo[]>;
  removeInstance(id: string): Promise<void>;

  /**
   * Counts one hit against `key` in a sliding window shared by every instance (failed
   * logins per client address): allowed, and counted, while fewer than `limit` hits fall in
   * `(now - windowMs, now]`; a refused hit is not counted. Bounded: at most `limit` hits are
   * kept per key, and a key is forgotten `windowMs` after its last counted hit.
   */
  hitRateLimit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult>;

  /** Listens to events from every instance; returns the unsubscribe function. */
  subscribe(listener: (event: StorageEvent) => void): () => void;
}
