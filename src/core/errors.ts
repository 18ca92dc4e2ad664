/**
 * @module errors — the errors Skedulr throws, each with a stable `code`.
 *
 * The HTTP API maps codes to statuses in one place (`routes/`), and the Redis backend maps
 * Lua return codes to these classes in one place (`src/storage/redis/`).
 */
import { cleanStack } from "./stack-paths.ts";

/** Stable machine-readable error codes. */
export type ErrorCode =
  | "invalid_request"
  | "not_found"
  | "conflict"
  | "capacity"
  | "storage"
  | "shutdown"
  | "unknown_type";

/** One problem with one field of an input. */
export interface FieldIssue {
  /** Dotted path of the field, e.g. `backoff.base` or `[3].type` in a batch. */
  path: string;
  message: string;
}

/** Base class: every Skedulr error has a code. */
export class SkedulrError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SkedulrError";
    this.code = code;
  }
}

/** Input that fails validation; `issues` names each bad field. Nothing was stored. */
export class ValidationError extends SkedulrError {
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], what = "task spec") {
    const list = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
    super("invalid_request", `Invalid ${what}: ${list}`);
    this.name = "ValidationError";
    this.issues = issues;
  }
}

/** The id (task or schedule) does not exist. */
export class NotFoundError extends SkedulrError {
  constructor(what: string, id: string) {
    super("not_found", `${what} "${id}" was not found`);
    this.name = "NotFoundError";
  }
}

/** The request clashes with the current state: id in use, duplicate key, wrong status. */
export class ConflictError extends SkedulrError {
  /** For a duplicate `key`, the id of the task that holds it. */
  readonly activeId?: string;
  constructor(message: string, activeId?: string) {
    super("conflict", message);
    this.name = "ConflictError";
    this.activeId = activeId;
  }
}

/** The store is at its configured capacity; the submit was rejected, nothing stored. */
export class CapacityError extends SkedulrError {
  constructor(limit: number) {
    super("capacity", `Submit rejected: the store holds its limit of ${limit} unfinished tasks`);
    this.name = "CapacityError";
  }
}

/**
 * Strict type checking (`strictTypes`, `SKEDULR_STRICT_TYPES=1`): a submit names a task type
 * that no live worker handles; `issues` names each spec (`[i].type` in a batch). Nothing was
 * stored.
 */
export class UnknownTypeError extends SkedulrError {
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[]) {
    const list = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
    super("unknown_type", `Submit refused (strict task types): ${list}`);
    this.name = "UnknownTypeError";
    this.issues = issues;
  }
}

/** Why the store could not answer: each is temporary, and the call may be retried. */
export type StorageFault = "unreachable" | "timeout" | "loading" | "full" | "busy";

const FAULT_TEXT: Record<StorageFault, string> = {
  unreachable: "the store is unreachable",
  timeout: "the store did not answer in time",
  loading: "the store is loading its data after a restart",
  full: "the store is full (maxmemory reached)",
  busy: "the store is busy",
};

/**
 * The store failed to answer (connection lost, timed out, loading, out of memory). Unlike
 * every other error here, the call may or may not have taken effect (its reply may have been
 * lost), and it is worth retrying: the HTTP API answers 503 with `Retry-After`.
 */
export class StorageUnavailableError extends SkedulrError {
  readonly fault: StorageFault;
  constructor(fault: StorageFault, detail?: string, options?: ErrorOptions) {
    super(
      "storage",
      `Storage unavailable: ${FAULT_TEXT[fault]}${detail ? ` (${detail})` : ""}`,
      options,
    );
    this.name = "StorageUnavailableError";
    this.fault = fault;
  }
}

/** True for an error a storage call may succeed after: see {@link StorageUnavailableError}. */
export function isStorageFault(error: unknown): error is StorageUnavailableError {
  return error instanceof StorageUnavailableError;
}

/**
 * Thrown by a handler for a failure no retry can fix (a target the outbound policy refuses,
 * a payload that can never pass): the task is dead at once, whatever retries it has left.
 *
 * @example
 * if (!account) throw new PermanentError(`account ${id} was deleted`);
 */
export class PermanentError extends Error {
  readonly permanent = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PermanentError";
  }
}

/** True for a {@link PermanentError}, also one from another copy of this module. */
export function isPermanentError(error: unknown): boolean {
  if (error instanceof PermanentError) return true;
  const e = error as { name?: unknown; permanent?: unknown } | null;
  return typeof e === "object" && e !== null && e.name === "PermanentError" && e.permanent === true;
}

/**
 * Turns anything thrown into the `{ message, stack }` kept on a task. The stack loses its
 * absolute paths, or is dropped, as configured (see stack-paths.ts).
 */
export function toErrorInfo(error: unknown): { message: string; stack?: string } {
  if (error instanceof Error) {
    const stack = cleanStack(error.stack);
    return { message: error.message || error.name, ...(stack === undefined ? {} : { stack }) };
  }
  return { message: typeof error === "string" ? error : JSON.stringify(error) ?? String(error) };
}
