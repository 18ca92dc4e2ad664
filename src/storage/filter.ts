/**
 * @module filter — matching tasks and attempts against a listing filter, shared by backends
 * that filter in TypeScript.
 */
import type { AttemptRecord, TaskRecord } from "../core/task.ts";
import type { TaskFilter } from "./storage.ts";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/** The page size a filter asks for, clamped to 1..1000. */
export function pageLimit(filter: TaskFilter): number {
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(filter.limit ?? DEFAULT_LIMIT)));
}

function statusSet(filter: TaskFilter): Set<string> | null {
  if (!filter.status) return null;
  return new Set(Array.isArray(filter.status) ? filter.status : [filter.status]);
}

/** A predicate for task records. */
export function taskMatcher(filter: TaskFilter): (t: TaskRecord) => boolean {
  const statuses = statusSet(filter);
  const q = filter.q?.toLowerCase();
  return (t) =>
    (!statuses || statuses.has(t.status)) &&
    (!filter.type || t.type === filter.type) &&
    (!filter.pool || t.pool === filter.pool) &&
    (!q || taskText(t).includes(q));
}

/** A predicate for attempt records (`status` is the attempt's outcome). */
export function attemptMatcher(filter: TaskFilter): (a: AttemptRecord) => boolean {
  const statuses = statusSet(filter);
  const q = filter.q?.toLowerCase();
  return (a) =>
    (!statuses || statuses.has(a.status)) &&
    (!filter.type || a.type === filter.type) &&
    (!filter.pool || a.pool === filter.pool) &&
    (!q || `${a.taskId} ${a.type} ${a.error?.message ?? ""}`.toLowerCase().includes(q));
}

function taskText(t: TaskRecord): string {
  return `${t.id} ${t.type} ${t.key ?? ""} ${JSON.stringify(t.payload)} ${t.error?.message ?? ""}`
    .toLowerCase();
}
