/**
 * @module submission — turns validated specs into what storage stores: tasks in dependency
 * order (cycles rejected) and schedule records with their first occurrence; and whether a
 * pool named by a request exists.
 */
import { DEFAULT_CALLBACK_POOL } from "./callback.ts";
import { ConflictError, ValidationError } from "./errors.ts";
import { newId } from "./ids.ts";
import { nextOccurrence } from "./recurrence.ts";
import type { ParsedSpec } from "./task-schema.ts";
import { type Callback, type NewTask, parentConditions, type ScheduleRecord } from "./task.ts";

/** A spec's callback, its tasks to run in the deployment's callback pool. */
function callbackOf(spec: ParsedSpec, pool: string): Callback | null {
  return spec.callback && { ...spec.callback, pool };
}

/** The task a one-off spec stores; its callback tasks run in `callbackPool`. */
export function toNewTask(
  spec: ParsedSpec,
  now: number,
  callbackPool = DEFAULT_CALLBACK_POOL,
): NewTask {
  const callback = callbackOf(spec, callbackPool);
  const task: NewTask = {
    id: spec.id ?? newId("", now),
    type: spec.type,
    pool: spec.pool,
    priority: spec.priority,
    payload: spec.payload,
    maxRetries: spec.maxRetries,
    maxStalls: spec.maxStalls,
    runAt: spec.runAt,
    key: spec.key,
    timeoutMs: spec.timeoutMs,
    backoff: spec.backoff,
    scheduleId: null,
    dependsOn: spec.dependsOn,
    onSuccessOf: spec.onSuccessOf,
    onFailureOf: spec.onFailureOf,
    createdAt: now,
    expiresAt: spec.expiresAt,
  };
  // Optional fields only when set (assigned, not spread: every submit makes one of these).
  if (spec.dedupe) task.dedupe = spec.dedupe;
  if (spec.debounce) task.debounce = spec.debounce;
  if (spec.flowControl) task.flowControl = spec.flowControl;
  if (spec.partitionKey) task.partitionKey = spec.partitionKey;
  if (spec.traceparent) task.traceparent = spec.traceparent;
  if (callback) task.callback = callback;
  if (spec.id === null) task.generatedId = true;
  return task;
}

/**
 * A schedule for an `every` or `cron` spec. Interval schedules first fire at `runAt` when
 * given, else one interval from now; that first firing anchors every later one. Cron
 * schedules first fire at the first occurrence after `runAt` (or now).
 */
export function toSchedule(
  spec: ParsedSpec,
  now: number,
  callbackPool = DEFAULT_CALLBACK_POOL,
): ScheduleRecord {
  const callback = callbackOf(spec, callbackPool);
  const base = {
    kind: spec.cron ? "cron" as const : "every" as const,
    everyMs: spec.everyMs,
    cron: spec.cron,
    timezone: spec.timezone,
  };
  const startAt = spec.cron ? (spec.runAt ?? now) : (spec.runAt ?? now + spec.everyMs!);
  const first = spec.cron ? nextOccurrence({ ...base, startAt }, startAt - 1) : startAt;
  if (first === null) {
    throw new ValidationError([{ path: "cron", message: "has no future occurrence" }]);
  }
  return {
    id: spec.id ?? newId("sch_", now),
    ...base,
    template: {
      type: spec.type,
      pool: spec.pool,
      priority: spec.priority,
      payload: spec.payload,
      maxRetries: spec.maxRetries,
      maxStalls: spec.maxStalls,
      timeoutMs: spec.timeoutMs,
      backoff: spec.backoff,
      dependsOn: [],
      onSuccessOf: null,
      onFailureOf: null,
      ...(spec.expiresInMs !== null ? { expiresInMs: spec.expiresInMs } : {}),
      // Each run carries it (scheduleRun copies the template).
      ...(callback ? { callback } : {}),
    },
    startAt,
    nextRunAt: first,
    lastRunId: null,
    lastRunAt: null,
    skipIfRunning: spec.skipIfRunning,
    catchUp: spec.catchUp,
    paused: false,
    lastFiredAt: null,
    createdAt: now,
  };
}

/** Where the tasks of a batch stood in the caller's list (schedules are not tasks). */
export interface CallerIndex {
  /** The caller's index of each task, in the order of the tasks. */
  indices: number[];
  /** False for a single submit: paths carry no `[i].` prefix. */
  batch: boolean;
}

/**
 * Orders a batch so every parent comes before its children (parents outside the batch are
 * storage's to check). Throws a ValidationError naming the first task on a cycle, and a
 * ConflictError for an id twice; both name the caller's indices (`caller`).
 */
export function orderBatch(tasks: NewTask[], caller: CallerIndex): NewTask[] {
  const at = new Map<string, number>();
  let linked = false;
  tasks.forEach((task, k) => {
    const i = caller.indices[k] ?? k;
    const earlier = at.get(task.id);
    if (earlier !== undefined) {
      throw new ConflictError(
        `Task id "${task.id}" appears twice in the batch (at [${earlier}] and [${i}])`,
      );
    }
    at.set(task.id, i);
    if (task.dependsOn.length > 0 || task.onSuccessOf || task.onFailureOf) linked = true;
  });
  // No task names a parent: the order given already puts parents first.
  if (!linked) return tasks;
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const state = new Map<string, "visiting" | "done">();
  const out: NewTask[] = [];
  const visit = (task: NewTask) => {
    const mark = state.get(task.id);
    if (mark === "done") return;
    if (mark === "visiting") {
      throw new ValidationError([{
        path: `${caller.batch ? `[${at.get(task.id)}].` : ""}dependsOn`,
        message: `workflow cycle through task "${task.id}"`,
      }]);
    }
    state.set(task.id, "visiting");
    for (const parentId of parentConditions(task).keys()) {
      const parent = byId.get(parentId);
      if (parent) visit(parent);
    }
    state.set(task.id, "done");
    out.push(task);
  };
  tasks.forEach(visit);
  return out;
}

/**
 * A store's validation error about `ordered` (its paths index the store's list, `[j].` only
 * when it held several tasks) with the paths of the caller's list instead. `callerOf` maps
 * a task id to the caller's index.
 */
export function callerIssues(
  error: ValidationError,
  ordered: readonly NewTask[],
  callerOf: ReadonlyMap<string, number>,
  batch: boolean,
): ValidationError {
  const issues = error.issues.map((issue) => {
    const m = /^\[(\d+)\]\.(.*)$/.exec(issue.path);
    const task = m ? ordered[Number(m[1])] : ordered.length === 1 ? ordered[0] : undefined;
    if (!task) return issue;
    const rest = m ? m[2] : issue.path;
    const i = callerOf.get(task.id) ?? 0;
    return { ...issue, path: batch ? `[${i}].${rest}` : rest };
  });
  return new ValidationError(issues);
}

/** A run of `schedule` for occurrence `runAt` (a trigger's: now). */
export function scheduleRun(schedule: ScheduleRecord, runAt: number, now: number): NewTask {
  // A run expires relative to its own occurrence (the template's expiresIn).
  const { expiresInMs, ...template } = schedule.template;
  return {
    ...template,
    expiresAt: expiresInMs ? runAt + expiresInMs : null,
    dependsOn: [],
    id: newId("", now),
    generatedId: true,
    runAt,
    key: null,
    scheduleId: schedule.id,
    createdAt: now,
  };
}
