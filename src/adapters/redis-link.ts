/**
 * @module redis-link — what both TCP transports add to their client so a caller always gets
 * an answer: a bounded wait while the connection is down, and a watchdog for a connection
 * that went silent.
 *
 * Neither client is allowed to queue a command while disconnected (it would run much later,
 * when nobody waits for it any more) or to resend one after a reconnect (a claim would run
 * twice). So a command that finds the connection down waits a bounded time for the client's
 * own background reconnection, then rejects unsent; a command in flight when the connection
 * drops rejects at once, and the caller decides whether to send it again. Nothing here runs
 * per command beyond two counters: the waits share one timer, the watchdog is one interval.
 */

/** Options both TCP transports take on top of their client's own. */
export interface LinkOptions {
  /**
   * How long a command issued while the connection is down waits for it to come back before
   * it rejects without having been sent (default 1000 ms).
   */
  offlineWaitMs?: number;
  /**
   * Commands in flight and no reply for this long: the connection is taken as dead (a
   * stopped Redis, a half-open socket), cut, and reconnected; those commands reject, and may
   * still run if the server was only paused (default 15000 ms; 0 turns the watchdog off).
   * Generous on purpose: a pause shorter than this is waited out, nothing is lost.
   */
  stallTimeoutMs?: number;
}

export const DEFAULT_OFFLINE_WAIT_MS = 1_000;
export const DEFAULT_STALL_TIMEOUT_MS = 15_000;

/** Splits {@link LinkOptions} from the client options they were passed with. */
export function splitLinkOptions<T extends LinkOptions>(
  options: T,
): [Required<LinkOptions>, Omit<T, keyof LinkOptions>] {
  const { offlineWaitMs, stallTimeoutMs, ...client } = options;
  return [{
    offlineWaitMs: offlineWaitMs ?? DEFAULT_OFFLINE_WAIT_MS,
    stallTimeoutMs: stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS,
  }, client];
}

declare const Deno: { unrefTimer(id: number): void } | undefined;

/** Lets the process exit while only this timer is pending (Deno's timers are numbers). */
function unref(handle: unknown): void {
  if (typeof handle === "number" && typeof Deno !== "undefined") Deno.unrefTimer(handle);
  else (handle as { unref?: () => void })?.unref?.();
}

/**
 * Waits for a connection that is down, a bounded time. Every command that finds it down
 * joins the same wait, so an outage costs one timer, not one per command.
 */
export class ConnectionGate {
  readonly #isOpen: () => boolean;
  readonly #waitMs: number;
  #wait: Promise<boolean> | null = null;
  #opened: (() => void) | null = null;

  constructor(isOpen: () => boolean, waitMs: number) {
    this.#isOpen = isOpen;
    this.#waitMs = waitMs;
  }

  /** Resolves true once the connection is up, false if it stayed down for the wait. */
  ready(): Promise<boolean> {
    if (this.#isOpen()) return Promise.resolve(true);
    this.#wait ??= new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(this.#isOpen()), this.#waitMs);
      unref(timer);
      const finish = (up: boolean) => {
        clearTimeout(timer);
        this.#wait = null;
        this.#opened = null;
        resolve(up);
      };
      this.#opened = () => finish(true);
    });
    return this.#wait;
  }

  /** Tells the waiters the client is connected again. */
  opened(): void {
    this.#opened?.();
  }

  /** The error a command gets when the wait ran out; it was never sent. */
  unreachable(url: string, command: string | undefined): Error {
    return new Error(
      `Redis at ${redactUrl(url)} is unreachable: no connection within ${this.#waitMs} ms; ` +
        `${command ?? "the command"} was not sent`,
    );
  }
}

/** Commands that legitimately hold a connection silent: the watchdog waits them out. */
const BLOCKING = new Set([
  "BLPOP",
  "BRPOP",
  "BRPOPLPUSH",
  "BLMOVE",
  "BLMPOP",
  "BZPOPMIN",
  "BZPOPMAX",
  "BZMPOP",
  "XREAD",
  "XREADGROUP",
  "WAIT",
  "WAITAOF",
]);

/** True for a command that may block its connection on purpose. */
export function isBlocking(name: string): boolean {
  const c = name.charCodeAt(0) | 0x20; // lower-cased first letter: b, w, x
  return (c === 0x62 || c === 0x77 || c === 0x78) && BLOCKING.has(name.toUpperCase());
}

/**
 * Notices a connection that stopped answering: commands in flight and no reply for
 * `stallMs`. The transport counts sends and replies; one interval compares the counts.
 */
export class StallWatch {
  /** Commands sent and not yet answered. */
  inflight = 0;
  /** Blocking commands in flight: while any is, silence is expected. */
  blocking = 0;
  /** Replies (or failures) seen so far. */
  replies = 0;
  readonly #timer: unknown;
  #seen = -1;
  #quietSince = 0;

  constructor(stallMs: number, onStall: (silentMs: number) => void) {
    if (stallMs <= 0) return;
    this.#timer = setInterval(() => {
      const now = Date.now();
      if (this.inflight === 0 || this.blocking > 0 || this.replies !== this.#seen) {
        this.#seen = this.replies;
        this.#quietSince = now;
      } else if (now - this.#quietSince >= stallMs) {
        this.#quietSince = now;
        onStall(stallMs);
      }
    }, Math.max(50, Math.floor(stallMs / 4)));
    unref(this.#timer);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer as number);
  }
}

/**
 * Sends `cmd` through `call`, counted by `watch` (in flight, replies, blocking commands), a
 * failure passed through `toError`: the one send path of every TCP transport.
 */
export async function watchedSend<T>(
  watch: StallWatch,
  cmd: string[],
  call: () => Promise<T>,
  toError: (error: unknown, cmd: string[]) => unknown,
): Promise<T> {
  const blocking = isBlocking(cmd[0]);
  watch.inflight++;
  if (blocking) watch.blocking++;
  try {
    return await call();
  } catch (error) {
    throw toError(error, cmd);
  } finally {
    watch.inflight--;
    watch.replies++;
    if (blocking) watch.blocking--;
  }
}

/**
 * The listeners of a transport's channels: a channel is subscribed on the server for its
 * first listener (`open`; a failure leaves nothing behind) and unsubscribed after its last
 * (`close`), whatever client carries the messages.
 */
export class ChannelListeners {
  readonly #map = new Map<string, Set<(message: string) => void>>();

  /** Hands a message of `channel` to its listeners. */
  deliver(channel: string, message: string): void {
    for (const listener of this.#map.get(channel) ?? []) listener(message);
  }

  async add(
    channel: string,
    onMessage: (message: string) => void,
    open: () => Promise<void>,
    close: () => Promise<void>,
  ): Promise<() => Promise<void>> {
    let set = this.#map.get(channel);
    if (!set) {
      set = new Set();
      this.#map.set(channel, set);
      try {
        await open();
      } catch (error) {
        this.#map.delete(channel);
        throw error;
      }
    }
    set.add(onMessage);
    return async () => {
      const current = this.#map.get(channel);
      if (!current?.delete(onMessage) || current.size > 0) return;
      this.#map.delete(channel);
      await close();
    };
  }

  clear(): void {
    this.#map.clear();
  }
}

/** The error for a command whose connection failed while it was in flight. */
export function connectionLost(
  url: string,
  command: string | undefined,
  cause: unknown,
  why = cause instanceof Error ? cause.message : String(cause),
): Error {
  return new Error(
    `Redis connection to ${redactUrl(url)} failed with ${command ?? "a command"} in flight ` +
      `(it may or may not have run; it was not resent): ${why}`,
    { cause },
  );
}

/** The URL without its password, for error messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}
