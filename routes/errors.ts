/**
 * @module errors — the one mapping from error codes to HTTP statuses, and the JSON error body
 * `{ "error": { "code", "message", "issues"? } }` every failing route answers with.
 *
 * Library errors ({@link SkedulrError}) keep their code; HTTP-only conditions (auth, roles,
 * hosts, body size, media type, login limits, unknown route) are {@link ApiError}s. Anything else is a bug and answers
 * 500 `internal` without details (the full error goes to the scheduler's logger).
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ErrorCode, type FieldIssue, type Logger, SkedulrError } from "../src/mod.ts";

/** Every code an API error body can carry. */
export type ApiErrorCode =
  | ErrorCode
  | "unauthorized"
  | "forbidden"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "internal";

/**
 * Code → HTTP status. `capacity` is 503 (not 429): the store as a whole is full, which is
 * not about the caller's rate; it answers with `Retry-After` like the other 503s.
 */
const STATUS: Record<ApiErrorCode, ContentfulStatusCode> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  // Strict type checks only: a valid spec whose type no live worker handles.
  unknown_type: 422,
  rate_limited: 429,
  capacity: 503,
  storage: 503,
  shutdown: 503,
  internal: 500,
};

/** Every error code the API answers with (docs/CONTRACT.md lists the same). */
export const API_ERROR_CODES = Object.keys(STATUS) as ApiErrorCode[];

/** The HTTP status for an error code (500 for a code this table does not know). */
export function httpStatus(code: string): ContentfulStatusCode {
  return STATUS[code as ApiErrorCode] ?? 500;
}

/** An HTTP-level failure: raised by middleware and routes, answered by {@link errorHandler}. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly issues?: FieldIssue[];
  /** Seconds for the `Retry-After` header (a 429 says how long to wait). */
  readonly retryAfterS?: number;
  constructor(code: ApiErrorCode, message: string, issues?: FieldIssue[], retryAfterS?: number) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.issues = issues;
    this.retryAfterS = retryAfterS;
  }
}

/** What an error answers: the status of its code, the headers that code calls for, the body. */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  headers: Record<string, string>;
  body: { error: { code: ApiErrorCode; message: string; issues?: FieldIssue[] } };
}

function answerOf(
  code: ApiErrorCode,
  message: string,
  issues?: FieldIssue[],
  retryAfterS?: number,
): ErrorAnswer {
  const status = httpStatus(code);
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (status === 401) headers["WWW-Authenticate"] = 'Bearer realm="skedulr"';
  if (status === 503 || retryAfterS !== undefined) {
    headers["Retry-After"] = String(retryAfterS ?? 1);
  }
  const error = issues?.length ? { code, message, issues } : { code, message };
  return { status, headers, body: { error } };
}

/** Writes the error body with the status of `code`, plus the headers that code calls for. */
export function errorResponse(
  c: Context,
  code: ApiErrorCode,
  message: string,
  issues?: FieldIssue[],
  retryAfterS?: number,
): Response {
  const a = answerOf(code, message, issues, retryAfterS);
  return c.json(a.body, a.status, a.headers);
}

/**
 * The answer to any thrown error: its own code for API and library errors, `internal`
 * without details for anything else (a bug: logged in full, naming `method` and `path`).
 */
export function errorAnswer(
  err: Error,
  logger: Logger,
  method: string,
  path: string,
): ErrorAnswer {
  if (err instanceof ApiError) return answerOf(err.code, err.message, err.issues, err.retryAfterS);
  if (err instanceof SkedulrError) {
    return answerOf(err.code, err.message, (err as { issues?: FieldIssue[] }).issues);
  }
  if (err instanceof HTTPException) {
    const code = CODE_OF_STATUS[err.status] ?? "internal";
    if (code !== "internal") return answerOf(code, err.message || code);
  }
  logger.error("api: unexpected error", { method, path, error: err?.stack ?? String(err) });
  return answerOf("internal", "Internal error; the server log has the details");
}

/** Hono `onError`: every thrown error becomes the JSON error body. */
export function errorHandler(logger: Logger): (err: Error, c: Context) => Response {
  return (err, c) => {
    const a = errorAnswer(err, logger, c.req.method, c.req.path);
    return c.json(a.body, a.status, a.headers);
  };
}

const CODE_OF_STATUS: Record<number, ApiErrorCode> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

/** Hono `notFound`: unknown routes (and wrong methods) answer 404 `not_found`. */
export function notFoundHandler(c: Context): Response {
  return errorResponse(c, "not_found", `No route for ${c.req.method} ${c.req.path}`);
}
