/**
 * @module revive — a dead, cancelled or expired task queued again under the same id
 * (resubmit), as lua/includes/revive.lua does it: attempts reset, outcome and expiry
 * cleared, its key taken again.
 */
import { ConflictError, NotFoundError } from "../../core/errors.ts";
import { RESUBMITTABLE_STATUSES, type TaskStatus } from "../../core/task.ts";
import type { Row, TaskTable } from "./task-table.ts";

/** Revives row `id` in place and queues it; throws not-found or conflict, changing nothing. */
export function reviveRow(t: TaskTable, id: string, now: number): Row {
  const row = t.rows.get(id);
  if (!row) throw new NotFoundError("Task", id);
  if (!(RESUBMITTABLE_STATUSES as readonly TaskStatus[]).includes(row.status)) {
    throw new ConflictError(
      `Task "${id}" is ${row.status}; only dead, cancelled or expired tasks can be resubmitted`,
    );
  }
  if (row.key) {
    const holder = t.keys.get(row.key);
    if (holder && holder !== id) {
      throw new ConflictError(`Key "${row.key}" is held by unfinished task "${holder}"`, holder);
    }
    t.keys.set(row.key, id);
  }
  Object.assign(row, {
    attempt: 0,
    stalls: 0,
    claimSeq: null,
    error: null,
    resultJson: "null",
    progress: null,
    startedAt: null,
    finishedAt: null,
    cancelReason: null,
    pendingParents: 0,
    runAt: null,
    expiresAt: null,
  });
  t.expiries.delete(id);
  t.move(row, "queued", now);
  return row;
}
