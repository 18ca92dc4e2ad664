/**
 * @module attempt-codec — a history entry as the `attempts` stream stores it (layout 5):
 *
 *   taskId|type|pool|attempt|status|startedAt|finishedAt - startedAt|durationMs|tail
 *
 * the pool empty when it is the default, the status empty when `succeeded`, and the tail the
 * JSON of the worker id, then `,` and the error's JSON when there is one (JSON, because both
 * may hold any text; ids, types and pools are names, which never hold "|"). Entries written
 * before layout 5 are a JSON array of the values in ATTEMPT_FIELDS order, and read the same.
 * lua/includes/attempts.lua writes the same text, lua/includes/attempt-entry.lua reads it.
 */
import { type AttemptRecord, DEFAULT_POOL } from "../../core/task.ts";

/** The values of a layout-3 and -4 entry, in order (a generated Lua fact: ATTEMPT_AT, 1-based). */
export const ATTEMPT_FIELDS = [
  "taskId",
  "type",
  "pool",
  "attempt",
  "status",
  "error",
  "startedAt",
  "finishedAt",
  "durationMs",
  "workerId",
] as const satisfies readonly (keyof AttemptRecord)[];

export function encodeAttempt(a: AttemptRecord): string {
  const tail = a.error === null
    ? JSON.stringify(a.workerId)
    : `${JSON.stringify(a.workerId)},${JSON.stringify(a.error)}`;
  return `${a.taskId}|${a.type}|${a.pool === DEFAULT_POOL ? "" : a.pool}|${a.attempt}|${
    a.status === "succeeded" ? "" : a.status
  }|${a.startedAt}|${a.finishedAt - a.startedAt}|${a.durationMs}|${tail}`;
}

export function decodeAttempt(text: string): AttemptRecord {
  if (text.startsWith("[")) return fromArray(JSON.parse(text) as unknown[]);
  const v: string[] = [];
  let from = 0;
  for (let i = 0; i < 8; i++) {
    const bar = text.indexOf("|", from);
    v.push(text.slice(from, bar));
    from = bar + 1;
  }
  const [workerId, error = null] = JSON.parse(`[${text.slice(from)}]`) as [string, unknown?];
  const startedAt = Number(v[5]);
  return {
    taskId: v[0]!,
    type: v[1]!,
    pool: v[2] || DEFAULT_POOL,
    attempt: Number(v[3]),
    status: (v[4] || "succeeded") as AttemptRecord["status"],
    error: error as AttemptRecord["error"],
    startedAt,
    finishedAt: startedAt + Number(v[6]),
    durationMs: Number(v[7]),
    workerId,
  };
}

function fromArray(v: unknown[]): AttemptRecord {
  const out: Record<string, unknown> = {};
  ATTEMPT_FIELDS.forEach((f, i) => (out[f] = v[i]));
  return out as unknown as AttemptRecord;
}
