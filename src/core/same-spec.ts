/**
 * @module same-spec — whether a stored task is what a submit would store, so that retrying
 * a submit whose answer was lost (a timeout, a dropped connection) is safe: the same custom
 * id with the same spec is answered with the stored task, a different spec stays a conflict.
 */
import type { NewTask, TaskRecord } from "./task.ts";

/**
 * The spec fields a retry must repeat. A new spec field belongs here when a different value
 * makes it a different task; `runAt` is handled apart (see {@link sameSpec}), and
 * `expiresAt` is not compared (a relative `expiresIn` moves it on every try).
 */
export const SPEC_FIELDS = [
  "type",
  "pool",
  "priority",
  "payload",
  "maxRetries",
  "maxStalls",
  "key",
  "timeoutMs",
  "backoff",
  "dependsOn",
  "onSuccessOf",
  "onFailureOf",
  "flowControl",
  "callback",
] as const satisfies readonly (keyof NewTask & keyof TaskRecord)[];

/**
 * True when `stored` holds the task `task` describes. `absoluteRunAt` says the spec named
 * its `runAt`: a relative `delay` gives a new runAt on every try, so it is compared only
 * then, and only before the first attempt (a retry back-off moves it).
 *
 * @example
 * sameSpec(await storage.get("order-1"), toNewTask(parsed, now), spec.runAt !== undefined);
 */
export function sameSpec(stored: TaskRecord, task: NewTask, absoluteRunAt: boolean): boolean {
  if (stored.id !== task.id || stored.scheduleId !== null) return false;
  // A store may keep an absent payload as null.
  const same = (field: (typeof SPEC_FIELDS)[number]) =>
    sameJson(stored[field] ?? null, task[field] ?? null);
  if (!SPEC_FIELDS.every(same)) return false;
  return !absoluteRunAt || stored.attempt > 0 || stored.runAt === task.runAt;
}

/** Deep equality of JSON values; the order of object keys does not matter. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((x, i) => sameJson(x, other[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length &&
    keys.every((k) => Object.hasOwn(y, k) && sameJson(x[k], y[k]));
}
