/**
 * @module callbacks — callback tasks in the embedded store, as lua/includes/callback.lua
 * makes them: a task whose `callback` lists the status it ended in gets, in the same
 * critical section, a `callback` task that carries a copy of the ended row.
 */
import {
  CALLBACK_ID_PREFIX,
  CALLBACK_ID_PROBES,
  callbackTask,
  wantsCallback,
} from "../../core/callback.ts";
import type { FinalStatus, NewTask } from "../../core/task.ts";
import type { Row, TaskTable } from "./task-table.ts";

/**
 * The callback task of `row`, which just ended in `status`, or null when its callback does
 * not ask for one. Its id counts the row's callbacks, skipping ids in use (callbacks of an
 * earlier task of the same id, pruned since), at most CALLBACK_ID_PROBES, then a seq.
 */
export function callbackFor(table: TaskTable, row: Row, status: FinalStatus, now: number):
  | NewTask
  | null {
  if (!wantsCallback(row.callback, status)) return null;
  let id: string | null = null;
  for (let i = 0; i < CALLBACK_ID_PROBES && id === null; i++) {
    const candidate = `${CALLBACK_ID_PREFIX}${row.id}_${++row.callbacksMade}`;
    if (!table.rows.has(candidate)) id = candidate;
  }
  id ??= `${CALLBACK_ID_PREFIX}${row.id}_s${table.nextSeq()}`;
  return callbackTask(id, row.id, status, row.callback!.pool, now);
}

/**
 * The ended row as its callback keeps it (Redis keeps the hash's fields): a copy, so what
 * happens to the row later (a resubmit, retention) leaves the callback's record as it was.
 */
export function snapshotOf(row: Row): Row {
  return row.copy();
}
