/**
 * @module callback — the `callback` task a store creates when a task with a `callback` ends
 * in one of its statuses: its fixed options, its id, and its payload as stored and as read.
 * The embedded store (storage/memory/callbacks.ts) and lua/includes/callback.lua build the
 * same task from these (lua-facts.ts hands them to Lua).
 *
 * The callback task stores `{event, taskId}` as its payload and, apart from it, a snapshot
 * of the ended task taken in the same step (Redis: its hash, as HGETALL gives it): retention
 * may prune the task later, and the callback still carries its final record. Readers see
 * the payload `{event, taskId, url, headers, task}` (`task`: that final record).
 */
import {
  type Backoff,
  type Callback,
  DEFAULT_MAX_STALLS,
  type FinalStatus,
  type NewTask,
  type TaskRecord,
} from "./task.ts";
import { redactedHeaders } from "./secret-headers.ts";

/** The task type of callbacks (the worker registers its handler: worker/callback-task.ts). */
export const CALLBACK_TYPE = "callback";

/** The pool callback tasks run in unless the deployment names another (SKEDULR_CALLBACK_POOL). */
export const DEFAULT_CALLBACK_POOL = "callbacks";

/** A callback is tried this many more times before it is dead (in the dead-letter list). */
export const CALLBACK_MAX_RETRIES = 8;

/** 5 s, 10 s, 20 s, … at most 10 min, ±10 %: the 8 retries span about 20 minutes. */
export const CALLBACK_BACKOFF: Backoff = {
  type: "exponential",
  baseMs: 5_000,
  maxMs: 600_000,
  jitter: 0.1,
};

/**
 * Callback ids: `__cb_<taskId>_<n>`, n counting the task's callbacks (a resubmitted task
 * ends again). A leading `__` is refused in user ids, so none can collide with one.
 */
export const CALLBACK_ID_PREFIX = "__cb_";

/**
 * Ids probed for a free one (an earlier task of the same id, pruned since, may have left
 * callbacks); past them the store's seq makes one (`__cb_<taskId>_s<seq>`).
 */
export const CALLBACK_ID_PROBES = 100;

/** The event a callback reports: `task.succeeded`, `task.dead`, … */
export function callbackEvent(status: FinalStatus): string {
  return `task.${status}`;
}

/** Whether a task with `callback` that ended in `status` gets a callback task. */
export function wantsCallback(callback: Callback | null, status: FinalStatus): boolean {
  return callback !== null && callback.on.includes(status);
}

/**
 * A callback's spec as a store keeps it: its own copy with the header values themselves (a
 * spec read back, as a schedule's template is when it fires, redacts them only in JSON).
 */
export function plainCallback(callback: Callback): Callback {
  return { ...callback, on: [...callback.on], headers: { ...callback.headers } };
}

/** A callback's spec as read back: its own copy, header values redacted in JSON. */
export function redactedCallback(callback: Callback): Callback {
  return { ...callback, on: [...callback.on], headers: redactedHeaders(callback.headers) };
}

/** The callback task of task `taskId` that ended in `status`, to insert under `id`. */
export function callbackTask(
  id: string,
  taskId: string,
  status: FinalStatus,
  pool: string,
  now: number,
): NewTask {
  return {
    id,
    type: CALLBACK_TYPE,
    pool,
    priority: 0,
    payload: { event: callbackEvent(status), taskId },
    maxRetries: CALLBACK_MAX_RETRIES,
    maxStalls: DEFAULT_MAX_STALLS,
    runAt: null,
    key: null,
    timeoutMs: null,
    backoff: CALLBACK_BACKOFF,
    scheduleId: null,
    dependsOn: [],
    onSuccessOf: null,
    onFailureOf: null,
    createdAt: now,
  };
}

/**
 * A callback task's payload as read: what it stores, plus where it goes and the final
 * record it carries (`task`, from its snapshot). `reveal` gives the header values (the
 * claim: the handler sends them); otherwise they stay as the record has them, redacted in
 * JSON.
 */
export function callbackPayload(stored: unknown, task: TaskRecord, reveal: boolean): unknown {
  const headers = task.callback?.headers ?? {};
  return {
    ...(stored as object),
    url: task.callback?.url ?? null,
    headers: reveal ? { ...headers } : headers,
    task,
  };
}
