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
 * One request's clock. A hold only notes the instant; a resume gives the request a whole
 * deadline again from then. Its timing is its app's {@link Deadlines}'.
 */
class RequestClock implements Deadline {
  /** When the deadline falls (performance.now() time). */
  due = 0;
  /** When the running hold began, or -1. */
  heldAt = -1;
  /** Fails the request (the outer promise of {@link RequestDeadlines.run}). */
  fail: (error: Error) => void = () => {};
  constructor(readonly deadlines: Deadlines) {}

  hold(): void {
    if (this.heldAt < 0) this.heldAt = performance.now();
  }

  resume(): void {
    if (this.heldAt < 0) return;
    this.heldAt = -1;
    this.deadlines.renew(this);
  }

  end(): void {
    this.deadlines.remove(this);
  }
}

/**
 * The clocks of the requests in flight under one deadline, in the order their deadlines fall,
 * and one timer for the first: a request costs a set insert and delete, not a timer of its
 * own (a timer pair per request was ~2 µs of a submit's CPU over HTTP). Every deadline has
 * the same length, so a clock added or renewed now falls last, and the set stays in order.
 */
class Deadlines {
  readonly #clocks = new Set<RequestClock>();
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  constructor(readonly ms: number, readonly unref: ((timer: unknown) => void) | undefined) {}

  add(clock: RequestClock): void {
    clock.due = performance.now() + this.ms;
    this.#clocks.add(clock);
    if (this.#timer === undefined) this.#arm(this.ms);
  }

  /** A whole deadline again from now (after a hold), last in the order. */
  renew(clock: RequestClock): void {
    this.#clocks.delete(clock);
    this.add(clock);
  }

  remove(clock: RequestClock): void {
    this.#clocks.delete(clock);
    // No timer left behind once nothing is in flight (a process or a test may end then),
    // unless it is unref'd: then it stays armed between requests, one timer per `ms` under
    // steady traffic instead of a timer pair per request (~5 µs of a request's CPU on Deno).
    if (this.unref === undefined && this.#clocks.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #arm(wait: number): void {
    this.#timer = setTimeout(() => this.#sweep(), Math.max(1, Math.ceil(wait)));
    this.unref?.(this.#timer);
  }

  /** Fails the requests whose deadline fell; a held one gets a whole deadline more. */
  #sweep(): void {
    this.#timer = undefined;
    const now = performance.now();
    const held: RequestClock[] = [];
    for (const clock of this.#clocks) {
      if (clock.due > now) break;
      this.#clocks.delete(clock);
      if (clock.heldAt >= 0) held.push(clock);
      else clock.fail(deadlineError(this.ms));
    }
    for (const clock of held) {
      clock.due = now + this.ms;
      this.#clocks.add(clock);
    }
    const first = this.#clocks.values().next();
    if (!first.done) this.#arm(first.value.due - now);
  }
}

/**
 * The request deadline of one app: {@link run} for a call, {@link middleware} for a chain.
 * Past `ms` the request fails with {@link deadlineError}; the work keeps running in the
 * background and its late result is dropped (a late submit may still be stored, which is
 * why retries with an id are safe).
 */
export class RequestDeadlines {
  readonly #deadlines: Deadlines;
  /**
   * `unref`: the runtime's timer unref (a Clock's `unrefTimer`), when it has one; its timer
   * may then outlive the requests (see `Deadlines.remove`).
   */
  constructor(readonly ms: number, unref?: (timer: unknown) => void) {
    this.#deadlines = new Deadlines(ms, unref);
  }

  /** Runs `work`, which may hold the clock it is given; rejects when the deadline falls. */
  run<T>(work: (clock: Deadline) => Promise<T>): Promise<T> {
    const clock = new RequestClock(this.#deadlines);
    return new Promise<T>((resolve, reject) => {
      clock.fail = reject;
      this.#deadlines.add(clock);
      work(clock).then((value) => {
        clock.end();
        resolve(value);
      }, (error) => {
        clock.end();
        reject(error);
      });
    });
  }

  /** Middleware: the rest of the chain runs under the deadline, its clock in `c.var.deadline`. */
  readonly middleware: MiddlewareHandler<SkedulrEnv> = (c, next) =>
    this.run((clock) => {
      c.set("deadline", clock);
      return next();
    });
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
