/**
 * @module submission — turns validated specs into what storage stores: tasks in dependency
 * order (cycles rejected) and schedule records with their first occurrence; and whether a
 * pool named by a request exists.
 */
import { ConflictError, ValidationError } from "./errors.ts";
import { newId } from "./ids.ts";
import { nextOccurrence } from "./recurrence.ts";
import type { ParsedSpec } from "./task-schema.ts";
import { type NewTask, parentConditions, type ScheduleRecord } from "./task.ts";

export function toNewTask(spec: ParsedSpec, now: number): NewTask {
  return {
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
  };
}

/**
 * A schedule for an `every` or `cron` spec. Interval schedules first fire at `runAt` when
 * given, else one interval from now; that first firing anchors every later one. Cron
 * schedules first fire at the first occurrence after `runAt` (or now).
 */
export function toSchedule(
  spec: ParsedSpec,
  now: number,
  skipIfRunning = true,
): ScheduleRecord {
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
    id: newId("sch_", now),
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
    },
    startAt,
    nextRunAt: first,
    lastRunId: null,
    lastRunAt: null,
    skipIfRunning,
    createdAt: now,
  };
}

/**
 * Orders a batch so every parent comes before its children (parents outside the batch are
 * storage's to check). Throws a ValidationError naming the first task on a cycle.
 */
export function orderBatch(tasks: NewTask[]): NewTask[] {
  const byId = new Map<string, NewTask>();
  const indexOf = new Map<NewTask, number>();
  tasks.forEach((task, i) => {
    const earlier = byId.get(task.id);
    if (earlier) {
      throw new ConflictError(
        `Task id "${task.id}" appears twice in the batch (at [${indexOf.get(earlier)}] and [${i}])`,
      );
    }
    byId.set(task.id, task);
    indexOf.set(task, i);
  });
  const state = new Map<string, "visiting" | "done">();
  const out: NewTask[] = [];
  const visit = (task: NewTask, index: number) => {
    const mark = state.get(task.id);
    if (mark === "done") return;
    if (mark === "visiting") {
      const at = tasks.length > 1 ? `[${index}].` : "";
      throw new ValidationError([{
        path: `${at}dependsOn`,
        message: `workflow cycle through task "${task.id}"`,
      }]);
    }
    state.set(task.id, "visiting");
    for (const parentId of parentConditions(task).keys()) {
      const parent = byId.get(parentId);
      if (parent) visit(parent, indexOf.get(parent)!);
    }
    state.set(task.id, "done");
    out.push(task);
  };
  tasks.forEach(visit);
  return out;
}
