/**
 * @module task — the task record, its statuses and the normalized spec the store receives.
 */

/** Where a task is in its life. */
export type TaskStatus =
  | "scheduled" // due later (delay, runAt)
  | "waiting" // blocked on workflow parents
  | "queued" // ready, in its pool's queue
  | "running" // claimed by a worker under a lease
  | "retrying" // failed, waiting out its back-off
  | "succeeded"
  | "dead" // failed maxRetries + 1 times; in the dead-letter list
  | "cancelled"
  | "expired"; // not started by its expiresAt (never ran late)

/**
 * How many times a task may lose its worker (a crash, a lease that ran out) and be put back
 * without spending a retry, unless its spec says otherwise: past it the task is dead.
 */
export const DEFAULT_MAX_STALLS = 3;

/** The pool of a task whose spec names none. */
export const DEFAULT_POOL = "default";

/** The statuses a task ends in. */
export type FinalStatus = "succeeded" | "dead" | "cancelled" | "expired";

/**
 * Statuses a task never leaves on its own (only `resubmit` revives dead, cancelled and
 * expired).
 */
export const FINAL_STATUSES: ReadonlySet<TaskStatus> = new Set<FinalStatus>([
  "succeeded",
  "dead",
  "cancelled",
  "expired",
]);

/** Statuses of a task not started yet: an expiry that passes in one ends it `expired`. */
export const EXPIRABLE_STATUSES: ReadonlySet<TaskStatus> = new Set([
  "queued",
  "scheduled",
  "retrying",
  "waiting",
]);

/** The final statuses `resubmit` queues again. */
export const RESUBMITTABLE_STATUSES = ["dead", "cancelled", "expired"] as const;
export type ResubmittableStatus = typeof RESUBMITTABLE_STATUSES[number];

/**
 * What a deduplicated submit reports as the first task's status once retention removed its
 * row (only succeeded and cancelled rows are pruned). Never a task's own status.
 */
export const PRUNED_STATUS = "pruned";

export const ALL_STATUSES: readonly TaskStatus[] = [
  "scheduled",
  "waiting",
  "queued",
  "running",
  "retrying",
  "succeeded",
  "dead",
  "cancelled",
  "expired",
];

/** A back-off policy that can be stored and shared across processes. */
export type Backoff =
  | { type: "fixed"; delayMs: number }
  | { type: "exponential"; baseMs: number; maxMs: number; jitter: number };

/** What a workflow child needs from one parent's final outcome. */
export type ParentCondition = "success" | "failure";

/** The last error of a task. */
export interface TaskError {
  message: string;
  stack?: string;
}

/** The plain-JSON record `get(id)` returns. Times are epoch milliseconds. */
export interface TaskRecord {
  id: string;
  type: string;
  status: TaskStatus;
  pool: string;
  priority: number;
  payload: unknown;
  /** Attempts started so far (1 while the first attempt runs). */
  attempt: number;
  maxRetries: number;
  /** Attempts lost with their worker (lease expired): put back without spending a retry. */
  stalls: number;
  /** Stalls allowed before the task is dead (a task that keeps killing its workers). */
  maxStalls: number;
  /** 0..100 as reported by the handler, or null. */
  progress: number | null;
  result: unknown;
  error: TaskError | null;
  createdAt: number;
  /** When it is (or was) due; null for immediate tasks. */
  runAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  /** The recurring or cron schedule that fired this run. */
  scheduleId: string | null;
  dependsOn: string[];
  onSuccessOf: string | null;
  onFailureOf: string | null;
  key: string | null;
  timeoutMs: number | null;
  backoff: Backoff | null;
  /** Why it was cancelled (by request, or a workflow parent that did not succeed). */
  cancelReason: string | null;
  /** The instance running it (or that ran it last). */
  workerId: string | null;
  /** Not started by then, it ends `expired` (a running task is not affected); null: never. */
  expiresAt: number | null;
  /** The flow control it was submitted with (its key's limits are the latest submit's). */
  flowControl: FlowControl | null;
  /** The W3C trace context it was submitted in: each attempt's span continues that trace. */
  traceparent: string | null;
  /**
   * Why it is queued but not running: its flow key's limit (stored while parked), else its
   * pool's state (derived when read); null otherwise.
   */
  waitingFor: WaitingFor | null;
  /** Where its final record is POSTed when it ends in one of `on` (its header values redacted in JSON). */
  callback: Callback | null;
}

/**
 * A task's `callback`: when the task ends in one of `on`, the store creates a task of type
 * `callback` in `pool` (in the same atomic step as the ending) that POSTs the final record to
 * `url` with `headers`, signed like an `http` task. `pool` is the submitting deployment's
 * callback pool (SKEDULR_CALLBACK_POOL), not the spec's.
 */
export interface Callback {
  url: string;
  on: FinalStatus[];
  /** Credentials for the receiver: the API shows each value as "[redacted]". */
  headers: Record<string, string>;
  pool: string;
}

/**
 * An idempotent submit: within `ttlMs` of the first submit with `key`, a submit with the
 * same key stores nothing and is answered with the first task (even once it finished).
 */
export interface Dedupe {
  key: string;
  ttlMs: number;
}

/**
 * A debounced submit: while the task a submit with `key` stored still waits for its runAt,
 * a submit with the same key replaces it (its spec, keeping its id) and moves its runAt to
 * `delayMs` after now, never past `maxWaitMs` after the burst's first submit.
 */
export interface Debounce {
  key: string;
  delayMs: number;
  /** Null: no cap, each submit of the burst postpones the run by `delayMs`. */
  maxWaitMs: number | null;
}

/**
 * Flow control (a spec's `flowControl`): tasks sharing `key` run at most `parallelism` at
 * once and start at most `rate` per `periodMs` (a sliding window), across the cluster. The
 * latest submit's limits become the key's; a limit left null is none.
 */
export interface FlowControl {
  key: string;
  parallelism: number | null;
  rate: number | null;
  periodMs: number | null;
}

/** Why a queued task waits although its pool has room: its flow key's limit. */
export type FlowWaitingFor = "parallelism" | "rate";

/**
 * Why a queued task is not running: its flow key's limit, its pool at its global
 * concurrency (`pool_limit`) or rate limit (`rate`), or its pool paused.
 */
export type WaitingFor = FlowWaitingFor | "pool_limit" | "paused";

/** A validated task ready for the store: everything but what the store decides. */
export interface NewTask {
  id: string;
  type: string;
  pool: string;
  priority: number;
  payload: unknown;
  maxRetries: number;
  maxStalls: number;
  runAt: number | null;
  key: string | null;
  timeoutMs: number | null;
  backoff: Backoff | null;
  scheduleId: string | null;
  dependsOn: string[];
  onSuccessOf: string | null;
  onFailureOf: string | null;
  createdAt: number;
  /** Not started by then, it ends `expired`; absent or null: never. */
  expiresAt?: number | null;
  /** Absent or null: every submit stores a task. Never part of the stored record. */
  dedupe?: Dedupe | null;
  /** Absent or null: not debounced. Its `runAt` is then now + `delayMs`. */
  debounce?: Debounce | null;
  /** Absent or null: no flow control. */
  flowControl?: FlowControl | null;
  /** Absent or null: its attempts start traces of their own. */
  traceparent?: string | null;
  /** Absent or null: no callback when it ends. */
  callback?: Callback | null;
  /**
   * Places it in a partitioned deployment with every task of the same key
   * (src/core/partitions.ts); absent or null: its other ties, or its id. Never stored.
   */
  partitionKey?: string | null;
  /**
   * True when the id was made for it (no custom `id`): a partitioned store may then give it
   * its partition's `~<k>` tail (src/core/partitions.ts). Never stored.
   */
  generatedId?: boolean;
}

/** The parents a new task waits for, each with the outcome it needs. */
export function parentConditions(
  task: Pick<NewTask, "dependsOn" | "onSuccessOf" | "onFailureOf">,
): Map<string, ParentCondition> {
  const parents = new Map<string, ParentCondition>();
  for (const id of task.dependsOn) parents.set(id, "success");
  if (task.onSuccessOf) parents.set(task.onSuccessOf, "success");
  if (task.onFailureOf) parents.set(task.onFailureOf, "failure");
  return parents;
}

/**
 * What a firing does with occurrences missed while the schedule was paused or no worker ran:
 * `none` runs none of them, `last` (the default) runs the latest once, `all` runs each
 * (at most CATCH_UP_MAX, the newest).
 */
export type CatchUp = "none" | "last" | "all";

/** A recurring (`every`) or cron schedule: a template that fires runs. */
export interface ScheduleRecord {
  id: string;
  kind: "every" | "cron";
  everyMs: number | null;
  cron: string | null;
  timezone: string | null;
  /** The task template each firing submits (type, payload, pool, priority, retries...). */
  template: Omit<NewTask, "id" | "runAt" | "scheduleId" | "createdAt" | "key" | "expiresAt"> & {
    /** Each run expires this long after its occurrence (absent or null: never). */
    expiresInMs?: number | null;
  };
  /** Interval schedules are anchored here, so firings never drift. */
  startAt: number;
  nextRunAt: number;
  lastRunId: string | null;
  lastRunAt: number | null;
  /** Skip an occurrence while the previous run is unfinished (default true). */
  skipIfRunning: boolean;
  /** Missed occurrences (see {@link CatchUp}). */
  catchUp: CatchUp;
  /** While paused nothing fires; `nextRunAt` waits for the resume (then catchUp applies). */
  paused: boolean;
  /**
   * The latest occurrence fired, skipped or caught up (null: none yet). A replaced or
   * resumed schedule's next occurrence comes after it, so no occurrence fires twice.
   */
  lastFiredAt: number | null;
  createdAt: number;
}

/** One finished attempt, as kept in history and yielded by `results()`. */
export interface AttemptRecord {
  taskId: string;
  type: string;
  pool: string;
  attempt: number;
  /**
   * The attempt's outcome: `succeeded`, `retrying` (failed, will retry), `dead`, `cancelled`,
   * or `stalled` (its worker was lost; the task went back to its queue, no retry spent).
   */
  status: "succeeded" | "retrying" | "dead" | "cancelled" | "stalled";
  error: TaskError | null;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  workerId: string;
}
