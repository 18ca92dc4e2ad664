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
 * One request's clock: one timer for the request, however often it is held. A hold only
 * notes the instant; when the timer fires, time spent held is given back by arming again for
 * the rest (a hold and a resume cost no timer calls: they were a third of the deadline's CPU).
 */
class RequestClock implements Deadline {
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  done = false;
  /** When the deadline falls, counting the holds that ended (performance.now() time). */
  due = 0;
  /** When the running hold began, or -1. */
  heldAt = -1;
  /** Fails the request (the outer promise of {@link requestDeadline}). */
  fail: (error: Error) => void = () => {};
  constructor(readonly ms: number) {}

  start(): void {
    this.due = performance.now() + this.ms;
    this.timer = setTimeout(expire, this.ms, this);
  }

  hold(): void {
    if (this.heldAt < 0) this.heldAt = performance.now();
  }

  resume(): void {
    if (this.heldAt < 0) return;
    // The full deadline again from now, as before the hold.
    this.due = performance.now() + this.ms;
    this.heldAt = -1;
  }

  end(): void {
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function expire(clock: RequestClock): void {
  clock.timer = undefined;
  if (clock.done) return;
  // Held (an upload): a whole deadline more; resumed since the timer was set: the rest.
  const wait = clock.heldAt >= 0 ? clock.ms : Math.ceil(clock.due - performance.now());
  if (wait > 0) {
    clock.timer = setTimeout(expire, wait, clock);
    return;
  }
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
      clock.start();
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
