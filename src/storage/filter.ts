/**
 * @module filter — matching tasks and attempts against a listing filter, shared by backends
 * that filter in TypeScript.
 */
import type { AttemptRecord, TaskRecord } from "../core/task.ts";
import type { HistoryFilter, TaskFilter } from "./types.ts";

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

/** The fields a task filter looks at. */
export type FilterableTask = Pick<TaskRecord, "id" | "type" | "status" | "pool" | "key" | "error">;

/**
 * A predicate for tasks. `payloadText` gives the payload as JSON for the free-text search
 * (stores that keep it as text pass it through without parsing).
 */
export function taskMatcher<T extends FilterableTask>(
  filter: TaskFilter,
  payloadText: (t: T) => string = (t) => JSON.stringify((t as unknown as TaskRecord).payload),
): (t: T) => boolean {
  const statuses = statusSet(filter);
  const q = filter.q?.toLowerCase();
  return (t) =>
    (!statuses || statuses.has(t.status)) &&
    (!filter.type || t.type === filter.type) &&
    (!filter.pool || t.pool === filter.pool) &&
    (!q ||
      `${t.id} ${t.type} ${t.key ?? ""} ${payloadText(t)} ${t.error?.message ?? ""}`.toLowerCase()
        .includes(q));
}

/** A predicate for attempt records (`status` is the attempt's outcome). */
export function attemptMatcher(filter: HistoryFilter): (a: AttemptRecord) => boolean {
  const statuses = statusSet(filter);
  const q = filter.q?.toLowerCase();
  return (a) =>
    (filter.taskId === undefined || a.taskId === filter.taskId) &&
    (!statuses || statuses.has(a.status)) &&
    (!filter.type || a.type === filter.type) &&
    (!filter.pool || a.pool === filter.pool) &&
    (!q || `${a.taskId} ${a.type} ${a.error?.message ?? ""}`.toLowerCase().includes(q));
}

/**
 * Where a page of a task's log starts: the cursor is the index of a line among all the task
 * ever kept (0: its first), so lines dropped from the front meanwhile do not shift it. An
 * unreadable cursor starts at the oldest line kept.
 */
export function logCursor(cursor: string | undefined): number {
  const n = cursor ? Math.floor(Number(cursor)) : 0;
  // Past any index a log can reach (a count Redis takes as a list index).
  return n > 0 ? Math.min(n, 2 ** 31 - 1) : 0;
}
