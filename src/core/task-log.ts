/**
 * @module task-log — the lines `ctx.log` keeps per attempt: how a line is made from whatever a
 * handler passes (never throwing into the handler), its bounds, and the JSON text both stores
 * keep and count bytes of.
 */
import { MAX_LOG_FIELDS_BYTES, MAX_LOG_MESSAGE_BYTES } from "./bounds.ts";

/** One line of a task's log, as `GET /tasks/:id/logs` answers it. */
export interface LogLine {
  /** When the handler logged it (the worker's clock, epoch ms). */
  at: number;
  /** The attempt that logged it (1 for the first). */
  attempt: number;
  message: string;
  /** Structured fields, when given (a JSON copy made when the line was logged). */
  fields?: Record<string, unknown>;
}

const encoder = new TextEncoder();

/** Bytes of `text` as UTF-8: what Redis stores, and what the byte caps count. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/**
 * A line as the stores keep it: JSON with its keys in this order, whatever object the caller
 * built, so both stores count the same bytes and Redis can read `attempt` without decoding.
 */
export function logLineJson(line: LogLine): string {
  const { at, attempt, message, fields } = line;
  return JSON.stringify(
    fields === undefined ? { at, attempt, message } : {
      at,
      attempt,
      message,
      fields,
    },
  );
}

/**
 * The line a handler's `ctx.log(message, fields)` makes. A message that is not a string is
 * printed; one over MAX_LOG_MESSAGE_BYTES is cut, ending in a marker that gives its size.
 * Fields are copied as JSON (a value that is not an object becomes `{ value }`); fields
 * that cannot be JSON, or whose JSON is over MAX_LOG_FIELDS_BYTES, are left out and the
 * message says so.
 *
 * @example
 * logLine("charged", { cents: 1200 }, Date.now(), 1); // { at, attempt: 1, message: "charged", fields: { cents: 1200 } }
 */
export function logLine(message: unknown, fields: unknown, at: number, attempt: number): LogLine {
  const copied = copyFields(fields);
  let text = cut(printed(message), MAX_LOG_MESSAGE_BYTES);
  if (typeof copied === "string") text += ` [${copied}]`;
  const line: LogLine = { at, attempt, message: text };
  if (typeof copied === "object") line.fields = copied;
  return line;
}

function printed(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    if (typeof value === "object" && value !== null && !(value instanceof Error)) {
      const json = JSON.stringify(value);
      if (json !== undefined) return json;
    }
    return String(value);
  } catch {
    return "[a value that cannot be printed]";
  }
}

/** `text` within `max` bytes of UTF-8: cut at a character boundary, with a marker. */
function cut(text: string, max: number): string {
  // Most messages are short: only a long one is encoded to find where to cut it.
  if (text.length * 3 <= max) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return text;
  const marker = `… [cut: ${bytes.length} bytes]`;
  let end = max - utf8Bytes(marker);
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // not inside a character
  return new TextDecoder().decode(bytes.subarray(0, end)) + marker;
}

/** A JSON copy of the fields, undefined for none, or a note saying why they were left out. */
function copyFields(fields: unknown): Record<string, unknown> | string | undefined {
  if (fields === undefined || fields === null) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(fields);
  } catch (error) {
    return `fields dropped: not JSON (${(error as Error)?.message ?? error})`;
  }
  if (json === undefined) return undefined; // a function, a symbol
  const bytes = utf8Bytes(json);
  if (bytes > MAX_LOG_FIELDS_BYTES) {
    return `fields dropped: ${bytes} bytes of JSON, over ${MAX_LOG_FIELDS_BYTES}`;
  }
  const copy: unknown = JSON.parse(json);
  if (typeof copy === "object" && copy !== null && !Array.isArray(copy)) {
    return copy as Record<string, unknown>;
  }
  return { value: copy };
}
