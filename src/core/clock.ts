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
  /** Calls `fn` once after `ms` milliseconds (never before). */
  setTimer(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimer(handle: TimerHandle): void;
  /**
   * Lets the process exit while only this timer is pending. Runtimes differ here, so the
   * real implementation comes from an adapter; the default does nothing.
   */
  unrefTimer?(handle: TimerHandle): void;
}

/** The real clock: `Date.now()` and the global `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimer: (handle) => clearTimeout(handle as number),
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
