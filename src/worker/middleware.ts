/**
 * @module middleware — handler types and middleware composition.
 *
 * A middleware wraps the next handler: `(next) => (payload, ctx) => ...`. The first one
 * registered is the outermost, as in Hono and Koa.
 */
import type { Parents } from "./parents.ts";

/** Logger with structured fields. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a handler knows about the attempt it runs. */
export interface TaskContext {
  id: string;
  type: string;
  pool: string;
  /** 1 for the first attempt. */
  attempt: number;
  maxRetries: number;
  scheduleId: string | null;
  /** Aborts on timeout, cancel, lost lease and forced shutdown; `signal.reason` says which. */
  signal: AbortSignal;
  /** Reports progress 0..100; visible in `get(id)` and the dashboard. */
  progress(percent: number): Promise<void>;
  /**
   * Keeps a line in the task's log, with this attempt's number and the time: `GET
   * /tasks/:id/logs` and the dashboard's task view show it. Returns at once (lines are
   * buffered and stored with the attempt's outcome, and every 5 s or 100 lines while it
   * runs) and never throws: a message that is not a string is printed, one over 2 KiB is cut,
   * fields that are not JSON or over 4 KiB of it are left out (the line says so). A task
   * keeps its newest 1,000 lines within 256 KiB; a crash loses the lines since the last write.
   *
   * @example
   * ctx.log("charging card", { orderId: payload.orderId, cents: 1200 });
   */
  log(message: string, fields?: Record<string, unknown>): void;
  /**
   * The workflow parents' outcomes, id → `{ status, result }` (`dependsOn`, `onSuccessOf`,
   * `onFailureOf`), read from the store when first read: at most 100 parents and 1 MiB of
   * results (a result past that reads `truncated: true`); a parent removed by retention reads
   * `pruned`. `{}` for a task without parents.
   */
  readonly parents: Promise<Parents>;
  /**
   * The W3C traceparent to forward downstream: the attempt's span's (an SDK registered), else
   * the task's own (`traceparent` at submit); null when neither.
   */
  readonly traceparent: string | null;
  logger: Logger;
}

/** A task handler: its return value is stored as the task's `result`. */
export type Handler<P = any, R = unknown> = (payload: P, ctx: TaskContext) => R | Promise<R>;

/** Wraps a handler. */
export type Middleware = (next: Handler) => Handler;

/** Composes middleware around a handler, first one outermost. */
export function compose(middleware: readonly Middleware[], handler: Handler): Handler {
  return middleware.reduceRight<Handler>((next, mw) => mw(next), handler);
}

/** Logs start and end of every attempt with its duration and outcome (structured). */
export function loggingMiddleware(logger: Logger): Middleware {
  return (next) => async (payload, ctx) => {
    const started = performance.now();
    logger.info("task started", { id: ctx.id, type: ctx.type, attempt: ctx.attempt });
    try {
      const result = await next(payload, ctx);
      logger.info("task succeeded", { id: ctx.id, type: ctx.type, ms: elapsed(started) });
      return result;
    } catch (error) {
      logger.warn("task failed", {
        id: ctx.id,
        type: ctx.type,
        attempt: ctx.attempt,
        ms: elapsed(started),
        error: (error as Error)?.message ?? String(error),
      });
      throw error;
    }
  };
}

/** Calls `report` with each attempt's wall time in ms, whatever its outcome. */
export function timingMiddleware(
  report: (ms: number, ctx: TaskContext, ok: boolean) => void,
): Middleware {
  return (next) => async (payload, ctx) => {
    const started = performance.now();
    let ok = false;
    try {
      const result = await next(payload, ctx);
      ok = true;
      return result;
    } finally {
      report(elapsed(started), ctx, ok);
    }
  };
}

const elapsed = (t0: number) => Math.round((performance.now() - t0) * 100) / 100;

/** A logger that prints one JSON line per entry at or above `level`. */
export function consoleLogger(level: "debug" | "info" | "warn" | "error" = "info"): Logger {
  const order = { debug: 0, info: 1, warn: 2, error: 3 };
  const at = (l: keyof typeof order) => (message: string, fields?: Record<string, unknown>) => {
    if (order[l] < order[level]) return;
    const line = JSON.stringify({ level: l, time: new Date().toISOString(), message, ...fields });
    (l === "error" || l === "warn" ? console.error : console.log)(line);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A logger that drops everything. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
