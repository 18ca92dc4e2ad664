/**
 * @module task-logs — the embedded store's task logs, kept on the task's row (so they go
 * with it) as lua/includes/task-logs.lua keeps `logs:<id>` and the lb, lf, lw and lm fields
 * beside it, and read as lua/taskLogs-1.lua reads them.
 */
import { MAX_TASK_LOG_BYTES, MAX_TASK_LOG_LINES } from "../../core/bounds.ts";
import { type LogLine, logLineJson, utf8Bytes } from "../../core/task-log.ts";
import { logCursor, pageLimit } from "../filter.ts";
import type { LogBatch, LogFilter, LogPage } from "../types.ts";

/** One task's log. */
export interface LogState {
  /** The lines kept, oldest first, as their JSON text (and its attempt, for the filter). */
  lines: { json: string; attempt: number }[];
  /** Bytes of their JSON (UTF-8). */
  bytes: number;
  /** Lines dropped from the front over the caps: the index of `lines[0]` among all kept. */
  first: number;
  /** Lines workers dropped before handing them over. */
  lost: number;
  /** The claim whose lines were appended last, and the number of its next line. */
  mark: { token: string; next: number } | null;
}

/** Appends the lines of `batch` the log does not hold from claim `token` yet, within the caps. */
export function appendLines(row: { log: LogState | null }, token: string, batch: LogBatch): void {
  if (batch.lines.length === 0) return;
  const log = row.log ??= { lines: [], bytes: 0, first: 0, lost: 0, mark: null };
  const expect = log.mark?.token === token ? log.mark.next : 1;
  if (batch.from > expect) log.lost += batch.from - expect;
  const fresh = batch.lines.slice(Math.max(0, expect - batch.from));
  if (fresh.length === 0) return;
  for (const line of fresh) {
    const json = logLineJson(line);
    log.lines.push({ json, attempt: line.attempt });
    log.bytes += utf8Bytes(json);
  }
  // The newest lines within both caps; each dropped one is counted (and skipped by cursors).
  let drop = 0;
  while (
    log.lines.length - drop > MAX_TASK_LOG_LINES ||
    (log.bytes > MAX_TASK_LOG_BYTES && drop < log.lines.length)
  ) {
    log.bytes -= utf8Bytes(log.lines[drop].json);
    drop++;
  }
  if (drop > 0) log.lines.splice(0, drop);
  log.first += drop;
  log.mark = { token, next: batch.from + batch.lines.length };
}

/** A page of the log, oldest first, from the filter's cursor. */
export function readLines(log: LogState | null, filter: LogFilter): LogPage {
  if (!log) return { items: [], next: null, dropped: 0 };
  const limit = pageLimit(filter);
  const from = Math.max(0, logCursor(filter.cursor) - log.first);
  const items: LogLine[] = [];
  let next: string | null = null;
  for (let i = from; i < log.lines.length; i++) {
    const line = log.lines[i];
    if (filter.attempt !== undefined && line.attempt !== filter.attempt) continue;
    if (items.length === limit) {
      next = String(log.first + i);
      break;
    }
    items.push(JSON.parse(line.json));
  }
  return { items, next, dropped: log.first + log.lost };
}
