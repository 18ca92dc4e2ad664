/**
 * @module attempt-codec — a history entry as the `attempts` stream stores it: the
 * AttemptRecord's values as a JSON array in ATTEMPT_FIELDS order, without the field names,
 * which were most of its bytes (lua/includes/attempts.lua builds the same array).
 */
import type { AttemptRecord } from "../../core/task.ts";

/** The order of an entry's values (a generated Lua fact: ATTEMPT_AT, 1-based). */
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
  return JSON.stringify(ATTEMPT_FIELDS.map((f) => a[f]));
}

export function decodeAttempt(text: string): AttemptRecord {
  const v = JSON.parse(text) as unknown[];
  const out: Record<string, unknown> = {};
  ATTEMPT_FIELDS.forEach((f, i) => (out[f] = v[i]));
  return out as unknown as AttemptRecord;
}
