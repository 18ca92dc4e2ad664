/**
 * @module clock — the injectable source of time and timers.
 *
 * Every component that reads the time or sleeps takes a `Clock`, so tests drive time with
 * {@link ManualClock} and production uses {@link systemClock}. Times are epoch milliseconds.
 */

/** An opaque timer handle, as returned by {@link Clock.setTimer}. */
export type TimerHandle = unknown;

/** Time and one-shot timers. */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
  /**
   * Calls `fn` once after `ms` milliseconds (never before), whatever the size of `ms`: a
   * wait past the host's timer limit must still last the full time (see
   * {@link timerFunctions}). A negative `ms` means now, `Infinity` never; `NaN` throws.
   */
  setTimer(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimer(handle: TimerHandle): void;
  /**
   * Lets the process exit while only this timer is pending. Runtimes differ here, so the
   * real implementation comes from an adapter; the default does nothing.
   */
  unrefTimer?(handle: TimerHandle): void;
}

/**
 * The longest delay `setTimeout` honours: 2^31−1 ms (about 24.8 days). Bun, Deno and Node
 * fire a longer one after 1 ms (with a `TimeoutOverflowWarning`), so longer waits chain.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The host's one-shot timers, which {@link timerFunctions} builds on. */
export interface HostTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Monotonic ms, to measure what is left of a chained wait. Default `performance.now()`. */
  now?(): number;
}

/** A wait longer than one host timer: the link now pending, replaced as each one expires. */
class TimerChain {
  link: unknown = undefined;
  /** Set by unref: applied to the pending link and to every later one. */
  unref: ((link: unknown) => void) | null = null;
}

/** `setTimer` and `clearTimer` of a {@link Clock}, safe for delays of any size. */
export interface ChainedTimers {
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/**
 * Clock timers over the host's: a delay up to `maxChunkMs` is one host timer (the common
 * case, nothing allocated beyond it); a longer one is a chain of host timers, each waking
 * to measure what is left on the monotonic clock, so the chain fires once, never early and
 * without piling up each link's lateness. `clearTimer` cancels the whole chain.
 *
 * @example
 * const t = timerFunctions({ setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout }, 50);
 * t.setTimer(() => console.log("after 120 ms, in links of ≤ 50 ms"), 120);
 */
export function timerFunctions(host: HostTimers, maxChunkMs = MAX_TIMER_MS): ChainedTimers {
  const set = host.setTimeout;
  const clear = host.clearTimeout;
  const mono = host.now ?? (() => performance.now());
  const chain = (fn: () => void, ms: number): TimerChain => {
    const c = new TimerChain();
    const due = mono() + ms;
    const wake = () => {
      const left = due - mono();
      if (left <= 0) {
        c.link = undefined;
        return fn();
      }
      // Infinity stays Infinity here: the chain wakes every maxChunkMs and never fires.
      c.link = set(wake, Math.min(Math.ceil(left), maxChunkMs));
      c.unref?.(c.link);
    };
    c.link = set(wake, maxChunkMs);
    return c;
  };
  return {
    setTimer(fn, ms) {
      if (ms >= 0 && ms <= maxChunkMs) return set(fn, ms);
      if (ms < 0) return set(fn, 0);
      if (ms !== ms) throw new RangeError(`Setting a timer: expected a delay in ms, got ${ms}`);
      return chain(fn, ms);
    },
    clearTimer(handle) {
      if (!(handle instanceof TimerChain)) return clear(handle);
      if (handle.link !== undefined) clear(handle.link);
      handle.link = undefined;
    },
  };
}

/**
 * Applies the runtime's `unrefOne` to a timer from {@link timerFunctions}: to a chain's
 * pending link and every later one, so a long wait never holds the process open.
 */
export function unrefEachLink(handle: TimerHandle, unrefOne: (link: unknown) => void): void {
  if (!(handle instanceof TimerChain)) return unrefOne(handle);
  handle.unref = unrefOne;
  if (handle.link !== undefined) unrefOne(handle.link);
}

const systemTimers = timerFunctions({
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
});

/** The real clock: `Date.now()` and the global `setTimeout`, chained past its limit. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: systemTimers.setTimer,
  clearTimer: systemTimers.clearTimer,
};

interface ManualTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock that moves only when told to. Timers fire in due order during {@link advance}.
 *
 * @example
 * const clock = new ManualClock(0);
 * clock.setTimer(() => console.log("fired"), 100);
 * await clock.advance(100); // logs "fired"
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers = new Map<number, ManualTimer>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    if (ms !== ms) throw new RangeError(`Setting a timer: expected a delay in ms, got ${ms}`);
    const seq = ++this.#seq;
    this.#timers.set(seq, { at: this.#now + Math.max(0, ms), seq, fn });
    return seq;
  }

  clearTimer(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  /** Number of timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * Moves time forward by `ms`, firing each due timer at its own time, in order. Between
   * timers it yields to the event loop so promise chains started by a timer settle first.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (let fired = 0;; fired++) {
      const next = this.#earliest();
      if (!next || next.at > target) break;
      if (fired > 100_000) {
        throw new Error(
          `ManualClock.advance: over 100000 timers fired without time moving past ${next.at}; ` +
            `a timer keeps re-arming itself: ${next.fn.toString().slice(0, 200)}`,
        );
      }
      this.#timers.delete(next.seq);
      if (next.at > this.#now) this.#now = next.at;
      next.fn();
      await this.quiesce();
    }
    this.#now = target;
    await this.quiesce();
  }

  /**
   * What `advance` awaits after each timer before time moves on: by default one macrotask
   * turn. Tests over an asynchronous backend replace it with "until no storage call is in
   * flight", so time never moves while the system is still reacting to the last timer.
   */
  quiesce: () => Promise<void> = settle;

  /** Sets the time without firing timers (for tests of "the process was asleep"). */
  jump(to: number): void {
    this.#now = to;
  }

  #earliest(): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.#timers.values()) {
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/** Lets pending promise callbacks and one macrotask turn run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
