/**
 * @module records — the embedded store's rows as the public records: one task, and a page
 * of the listing (newest first, filtered, with a cursor).
 */
import { redactedPayload, unsealPayload } from "../../core/secret-headers.ts";
import { callbackPayload, redactedCallback } from "../../core/callback.ts";
import type { ScheduleRecord, TaskRecord } from "../../core/task.ts";
import { pageLimit, taskMatcher } from "../filter.ts";
import type { ClaimedTask, Page, TaskFilter } from "../storage.ts";
import type { Row, TaskTable } from "./task-table.ts";

/** One page of tasks matching `filter`, newest first. */
export function listRows(table: TaskTable, filter: TaskFilter): Page<TaskRecord> {
  const match = taskMatcher<Row>(filter, (row) => row.payloadJson);
  const limit = pageLimit(filter);
  const before = filter.cursor ? Number(filter.cursor) : Infinity;
  const page: Row[] = [];
  let more = false;
  for (const row of table.byOrder.newestFirst(before)) {
    if (!match(row)) continue;
    if (page.length === limit) {
      more = true;
      break;
    }
    page.push(row);
  }
  const next = more ? String(page[page.length - 1].order) : null;
  return { items: page.map(toRecord), next };
}

/** The public record, in the documented field order, with its own payload and result. */
export function toRecord(row: Row): TaskRecord {
  return recordWith(row, readPayload(row));
}

/** The record of `row` with `payload` (as read back, or as a claim hands it over). */
function recordWith(row: Row, payload: unknown): TaskRecord {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    pool: row.pool,
    priority: row.priority,
    payload,
    attempt: row.attempt,
    maxRetries: row.maxRetries,
    stalls: row.stalls,
    maxStalls: row.maxStalls,
    progress: row.progress,
    result: JSON.parse(row.resultJson),
    error: row.error ? { ...row.error } : null,
    createdAt: row.createdAt,
    runAt: row.runAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    scheduleId: row.scheduleId,
    dependsOn: [...row.dependsOn],
    onSuccessOf: row.onSuccessOf,
    onFailureOf: row.onFailureOf,
    key: row.key,
    timeoutMs: row.timeoutMs,
    backoff: row.backoff,
    cancelReason: row.cancelReason,
    workerId: row.workerId,
    expiresAt: row.expiresAt,
    flowControl: row.flowControl ? { ...row.flowControl } : null,
    waitingFor: row.waitingFor,
    traceparent: row.traceparent,
    callback: row.callback ? redactedCallback(row.callback) : null,
  };
}

/** The payload as read back: an `http` task's header values redacted in JSON. */
function readPayload(row: Row): unknown {
  const stored = JSON.parse(row.payloadJson);
  return row.snapshot
    ? callbackPayload(stored, toRecord(row.snapshot), false)
    : redactedPayload(row.type, stored, row.secrets);
}

/** The record a claim hands over with its token: the only read with header values. */
export function claimedRecord(row: Row, token: string): ClaimedTask {
  const stored = JSON.parse(row.payloadJson);
  const payload = row.snapshot
    ? callbackPayload(stored, toRecord(row.snapshot), true)
    : unsealPayload(stored, row.secrets);
  const task = recordWith(row, payload) as ClaimedTask;
  task.token = token;
  return task;
}

/** A stored schedule as read back: its own copy, an `http` template's header values redacted. */
export function scheduleRecord(stored: ScheduleRecord): ScheduleRecord {
  const s = structuredClone(stored);
  s.template.payload = redactedPayload(s.template.type, s.template.payload, null);
  if (s.template.callback) s.template.callback = redactedCallback(s.template.callback);
  return s;
}
