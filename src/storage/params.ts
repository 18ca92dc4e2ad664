/**
 * @module params — the parameter objects of the storage contract's calls (storage.ts).
 * Named fields instead of positional numbers: `fail({ lease, error, retryAt, now })` cannot
 * swap `retryAt` and `now` the way `fail(lease, error, now, retryAt)` silently could.
 */
import type { NewTask, ScheduleRecord, TaskError } from "../core/task.ts";
import type { PoolLimits } from "../core/pool-limits.ts";
import type {
  EndedFilter,
  InstanceInfo,
  Lease,
  LeaseOwner,
  LogBatch,
  LoggedLease,
} from "./types.ts";

export interface EnqueueParams {
  tasks: NewTask[];
  now: number;
}

export interface ClaimParams {
  pool: string;
  /** Up to this many (a fraction rounds up, as `while (n < max)` would). */
  max: number;
  owner: LeaseOwner;
  now: number;
}

export interface ReleaseClaimParams {
  pool: string;
  owner: LeaseOwner;
  /** The `now` the lost claim sent. */
  claimedAt: number;
  /** Attempts the worker knows it runs: never handed back. */
  keep: string[];
  now: number;
}

export interface RenewParams {
  leases: Lease[];
  leaseMs: number;
  now: number;
}

/** The log lines a settle carries: stored only by the call that ends the attempt. */
interface SettleLogs {
  /** The attempt's log lines the store does not hold yet. */
  logs?: LogBatch;
}

export interface CompleteParams extends SettleLogs {
  lease: Lease;
  result: unknown;
  now: number;
  /**
   * false: file no history entry for this attempt (a type's history sampled or off); its
   * duration still joins the type's samples and the totals count it. Default true.
   */
  history?: boolean;
}

export interface FailParams extends SettleLogs {
  lease: Lease;
  error: TaskError;
  /** When to try again; null: no retry left, the task is dead. */
  retryAt: number | null;
  now: number;
}

export interface ReleaseParams {
  /** Each with the log lines its attempt has not stored yet, kept when it is handed back. */
  leases: LoggedLease[];
  now: number;
}

export interface AppendLogsParams {
  /** Running attempts (or ones a cancel ended) and their lines not stored yet. */
  leases: LoggedLease[];
  now: number;
}

export interface ProgressParams {
  lease: Lease;
  /** 0..100 (clamped). */
  progress: number;
  now: number;
}

export interface CancelParams {
  id: string;
  reason: string;
  now: number;
}

export interface ResubmitParams {
  id: string;
  now: number;
}

export interface ResubmitMatchingParams {
  filter: EndedFilter;
  now: number;
}

/**
 * Which partition a duty's call is for (src/storage/partitioned/): a partitioned store reads
 * or moves only that partition's work when `part` is given (0 to `partitions - 1`), every
 * partition's without it. A store of one partition ignores it.
 */
interface PartOf {
  part?: number;
}

/** A look-ahead read: what is due at or before `until`, at most `limit`. */
export interface DueParams extends PartOf {
  until: number;
  limit: number;
}

/** One bounded step of a duty (promotion, recovery) at `now`, at most `limit` items. */
export interface StepParams extends PartOf {
  now: number;
  limit: number;
}

export interface FireParams {
  /** The schedule. */
  id: string;
  /** The occurrence being fired: the schedule's `nextRunAt` as the caller read it. */
  occurrenceAt: number;
  /** The occurrence after it. */
  nextRunAt: number;
  /**
   * The latest occurrence this firing stands for (`occurrenceAt`, or a later missed one when
   * it catches up): stored as the schedule's lastFiredAt.
   */
  firedAt: number;
  /**
   * The run to enqueue (its runAt is its occurrence), or null to skip (catch-up). A
   * partitioned store gives a generated id its partition's tail in place: `run.id` is the
   * stored id once the call resolves.
   */
  run: NewTask | null;
  now: number;
}

export interface PutScheduleParams {
  schedule: ScheduleRecord;
  /** Replace a schedule stored under the id (else such a schedule is a conflict). */
  replace: boolean;
  now: number;
}

export interface PauseScheduleParams {
  id: string;
  paused: boolean;
  now: number;
}

export interface TriggerParams {
  /** The schedule. */
  id: string;
  /** The run to enqueue now, outside the schedule's cadence (`run.id`: as in FireParams). */
  run: NewTask;
  now: number;
}

export interface PoolSizeParams {
  pool: string;
  /** null: back to each instance's configured size. */
  size: number | null;
}

export interface PoolLimitsParams {
  pool: string;
  /** An absent field is left as it is; null removes that limit. */
  limits: PoolLimits;
  /** Set each given field only where the store holds none yet (a worker's start-up). */
  ifAbsent?: boolean;
}

/** Starts of `pool` inside the window `(now - perMs, now]`. */
export interface PoolStartsParams {
  pool: string;
  perMs: number;
  now: number;
}

export interface PauseParams {
  /** null: every pool. */
  pool: string | null;
  paused: boolean;
}

export interface HeartbeatParams {
  info: InstanceInfo;
  /** The instance is listed until this long after its last heartbeat. */
  ttlMs: number;
  now: number;
}

export interface RateLimitParams {
  key: string;
  limit: number;
  windowMs: number;
  now: number;
}
