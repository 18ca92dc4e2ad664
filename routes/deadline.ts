/**
 * @module deadline — the per-request deadline of the API: a request whose store does not
 * answer in time gets 503 `storage` with `Retry-After`, instead of hanging until a proxy
 * or the server's idle timeout drops the connection.
 *
 * The clock runs while the route waits on the store, not while the client uploads its
 * body: `jsonBody` holds it during the read, so a slow upload is never blamed on the store.
 * Web-standard timers only, so it behaves the same on Bun, Deno and Cloudflare Workers.
 */
import type { MiddlewareHandler } from "hono";
import { type Storage, StorageUnavailableError } from "../src/mod.ts";
import type { SkedulrEnv } from "./env.ts";

/** The default deadline of an API request: 2 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 2_000;

/** How long `/skedulr/healthz` waits for the store's PING: an answer within 1 s, with headroom. */
export const HEALTH_TIMEOUT_MS = 750;

/** The handle routes get in `c.var.deadline` to stop the clock while the client uploads. */
export interface Deadline {
  hold(): void;
  /** Restarts the full deadline (after the body has been read). */
  resume(): void;
}

/** The error a request that ran out of time answers with (503 `storage`). */
export function deadlineError(ms: number, what = "no answer"): StorageUnavailableError {
  return new StorageUnavailableError("timeout", `${what} within ${ms} ms`);
}

/**
 * One request's clock. Its methods live on the prototype and its timer gets the handle as an
 * argument, so a request costs one object and one timer, not a set of closures.
 */
class RequestClock implements Deadline {
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  done = false;
  /** Fails the request (the outer promise of {@link requestDeadline}). */
  fail: (error: Error) => void = () => {};
  constructor(readonly ms: number) {}

  hold(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  resume(): void {
    this.hold();
    if (!this.done) this.timer = setTimeout(expire, this.ms, this);
  }

  end(): void {
    this.done = true;
    this.hold();
  }
}

function expire(clock: RequestClock): void {
  clock.timer = undefined;
  clock.done = true;
  clock.fail(deadlineError(clock.ms));
}

/**
 * Middleware: the rest of the chain must answer within `ms`, else the request fails with
 * {@link deadlineError}. The handler keeps running in the background; its late result is
 * dropped (a late submit may still be stored, which is why retries with an id are safe).
 */
export function requestDeadline(ms: number): MiddlewareHandler<SkedulrEnv> {
  return (c, next) => {
    const clock = new RequestClock(ms);
    c.set("deadline", clock);
    return new Promise<void>((resolve, reject) => {
      clock.fail = reject;
      clock.resume();
      next().then(() => {
        clock.end();
        resolve();
      }, (error) => {
        clock.end();
        reject(error);
      });
    });
  };
}

/**
 * Why the store fails a health check, or null when it answered PING within `ms`: a refused
 * or failed PING, an error it threw, or no answer in time.
 */
export async function pingProblem(storage: Storage, ms: number): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(deadlineError(ms, "no answer to PING").message), ms);
  });
  const ping = storage.ping().then(
    (up) => up === true ? null : new StorageUnavailableError("unreachable", "PING failed").message,
    (error) => error instanceof Error ? error.message : String(error),
  );
  try {
    return await Promise.race([ping, late]);
  } finally {
    clearTimeout(timer);
  }
}
