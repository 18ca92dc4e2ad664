/**
 * @module timing-wheel — the hierarchical timing wheel that drives every deferred firing in a
 * process (retry back-offs, delayed tasks, cron occurrences).
 *
 * Kafka's shape: level 0 has `wheelSize` buckets of `tickMs`; each overflow level spans the
 * whole level below and is made on first use, so depth is unbounded. Non-empty buckets sit in
 * a min-heap and one driver timer sleeps until the earliest, so an idle wheel costs nothing.
 * Entries are addressed by id (`schedule`/`cancel`/`has`/`dueAt`: replace by key) or by an
 * integer handle (`add`/`remove`/`pending`: no Map, no allocation, for millions of timers);
 * `firesAt(atMs)` is the instant an entry for `atMs` becomes due. Never early (ticks round
 * up), bounded work per turn, callback errors isolated. Why each choice, with the measured
 * costs: docs/BENCHMARKS.md, "Timing wheel: the choices".
 *
 * Time never goes back: if the clock steps backwards, entries may run up to the step early;
 * pass a monotonic clock where that matters.
 */

import type { Clock, TimerHandle } from "./clock.ts";
import { RUN, WheelLevels } from "./wheel-levels.ts";
import { BY_HANDLE, BY_ID, NIL } from "./wheel-slots.ts";
import { resolveWheelOptions, show, type TimingWheelOptions } from "./wheel-options.ts";

export type { TimingWheelOptions } from "./wheel-options.ts";

/** Ticks past this wait forever in practice (≥ 142 000 years at 1 ms) and keep doubles exact. */
const MAX_TICK = 2 ** 52;
/** Longest delay setTimeout accepts before it overflows and fires at once; longer waits chunk. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * A hierarchical timing wheel: O(1) schedule and cancel by string id or by integer handle, one
 * driver timer for any number of entries. Never fires early; fires within a tick of the due
 * time plus however late the event loop runs the driver's timer.
 *
 * @example
 * const wheel = new TimingWheel({ tickMs: 10 });
 * wheel.start();
 * wheel.schedule("task:42", Date.now() + 5_000, () => console.log("retry task 42"));
 * wheel.schedule("task:42", Date.now() + 9_000, () => console.log("replaced"));
 * wheel.cancel("task:42"); // true: it was pending
 * const handle = wheel.add(Date.now() + 1_000, () => console.log("lease check"));
 * wheel.remove(handle); // true: it was pending; false from now on
 * wheel.stop();
 */
export class TimingWheel {
  readonly #tickMs: number;
  readonly #wheelSize: number;
  readonly #clock: Clock;
  readonly #maxPerTurn: number;
  readonly #unref: boolean;
  readonly #onError: (error: unknown, id: string) => void;
  /**
   * Epoch-ms instant of tick 0, a whole multiple of the tick; ticks stay small integers
   * relative to it.
   */
  readonly #epoch: number;

  /** id → slot, for cancel, replace, has and dueAt by id. */
  #index = new Map<string, number>();
  /** Pending entries added by handle (the rest of `size` is the index). */
  #handles = 0;
  /**
   * Whether a handle was ever issued: then clear() must keep the slots and their generations,
   * or an old handle could match a new entry.
   */
  #issued = false;
  #levels: WheelLevels;

  #running = false;
  #handle: TimerHandle | undefined;
  /**
   * Tick the driver is armed for. Infinity: idle, any bucket should arm it. -Infinity: a turn is
   * running or imminent, or the wheel is stopped, so nothing may arm it.
   */
  #armedTick = -Infinity;

  /** Creates a stopped wheel; entries can be scheduled before {@link start}. */
  constructor(options: TimingWheelOptions = {}) {
    const resolved = resolveWheelOptions(options);
    this.#tickMs = resolved.tickMs;
    this.#wheelSize = resolved.wheelSize;
    this.#maxPerTurn = resolved.maxPerTurn;
    this.#clock = resolved.clock;
    this.#unref = resolved.unref;
    this.#onError = resolved.onError;
    const now = this.#clock.now();
    if (!Number.isFinite(now)) {
      throw new RangeError(`new TimingWheel: clock.now() must be finite, got ${show(now)}`);
    }
    // A whole number of ticks (exact below 2 ** 53): tick starts epoch + t × tickMs are exact
    // integers, so the tick of a tick start is that tick (see firesAt).
    this.#epoch = Math.floor(now / this.#tickMs) * this.#tickMs;
    this.#levels = new WheelLevels(this.#wheelSize, 0);
  }

  /**
   * Schedules `callback` to run once at `atMs` (epoch ms on the clock's scale), rounded up to
   * the tick. A time already reached runs on the next driver turn. Replaces a pending `id`.
   */
  schedule(id: string, atMs: number, callback: () => void): void {
    if (typeof atMs !== "number" || !Number.isFinite(atMs)) {
      throw new RangeError(`TimingWheel.schedule: atMs must be a finite number, got ${show(atMs)}`);
    }
    if (typeof id !== "string") {
      throw new TypeError(`TimingWheel.schedule: id must be a string, got ${show(id)}`);
    }
    if (typeof callback !== "function") {
      throw new TypeError(
        `TimingWheel.schedule: callback must be a function, got ${show(callback)}`,
      );
    }
    const slots = this.#levels.slots;
    let s = this.#index.get(id);
    if (s === undefined) {
      s = slots.alloc(BY_ID);
      this.#index.set(id, s);
      slots.setIdDue(s, id, atMs);
    } else {
      slots.unlink(s);
      slots.setDue(s, atMs);
    }
    slots.setCallback(s, callback);
    this.#place(s, atMs);
  }

  /**
   * Adds an entry that runs `callback` once at `atMs` (epoch ms on the clock's scale, rounded
   * up to the tick; a time already reached runs on the next driver turn) and returns its
   * handle: a safe integer for {@link remove} and {@link pending}. Every call adds a new entry.
   * Allocates nothing once the wheel's storage has grown to the number of pending entries.
   */
  add(atMs: number, callback: () => void): number {
    if (!Number.isFinite(atMs)) {
      throw new RangeError(`TimingWheel.add: atMs must be a finite number, got ${show(atMs)}`);
    }
    if (typeof callback !== "function") {
      throw new TypeError(`TimingWheel.add: callback must be a function, got ${show(callback)}`);
    }
    const slots = this.#levels.slots;
    const s = slots.alloc(BY_HANDLE);
    slots.setCallback(s, callback);
    this.#handles++;
    this.#issued = true;
    this.#place(s, atMs);
    return slots.handleOf(s);
  }

  /**
   * Removes the entry `handle` refers to; true when it was pending. A stale handle (its entry
   * fired or was removed, even if the slot now holds another entry) or any other number
   * returns false and changes nothing.
   */
  remove(handle: number): boolean {
    const levels = this.#levels;
    const s = levels.slots.removeHandle(handle);
    if (s === NIL) return false;
    levels.forgetFar(s);
    this.#handles--;
    return true;
  }

  /** Whether the entry `handle` refers to is pending (false once it fired or was removed). */
  pending(handle: number): boolean {
    return this.#levels.slots.slotOf(handle) !== NIL;
  }

  /**
   * The epoch-ms instant at which an entry scheduled for `atMs` becomes due: the start of its
   * tick, ≥ atMs, and the same for every time within one tick, so callers can keep one entry
   * per tick (an entry for `firesAt(x)` fires in the same turn as one for `x`). Tick starts
   * are whole multiples of `tickMs`. An instant the wheel has already reached means the next
   * driver turn. (Past 2 ** 52 ticks, 142 000 years at 1 ms, everything shares the last tick.)
   */
  firesAt(atMs: number): number {
    if (!Number.isFinite(atMs)) {
      throw new RangeError(`TimingWheel.firesAt: atMs must be a finite number, got ${show(atMs)}`);
    }
    return this.#epoch + this.#tickOf(atMs) * this.#tickMs;
  }

  /** Cancels a pending id; true when it was pending. */
  cancel(id: string): boolean {
    const s = this.#index.get(id);
    if (s === undefined) return false;
    this.#index.delete(id);
    this.#levels.drop(s);
    return true;
  }

  /** Whether `id` is pending. */
  has(id: string): boolean {
    return this.#index.has(id);
  }

  /** The `atMs` a pending id was scheduled for, or undefined. */
  dueAt(id: string): number | undefined {
    const s = this.#index.get(id);
    return s === undefined ? undefined : this.#levels.slots.dueOf(s);
  }

  /** Number of pending entries, by id and by handle. */
  get size(): number {
    return this.#index.size + this.#handles;
  }

  /** Starts (or resumes) firing. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#armedTick = Infinity;
    this.#rearm();
  }

  /** Cancels the driver timer; pending entries stay and {@link start} resumes. */
  stop(): void {
    this.#running = false;
    this.#disarm();
    this.#armedTick = -Infinity;
  }

  /**
   * Drops every pending entry. Their callbacks are released at once; the wheel's storage is
   * released too unless handles were ever issued, in which case it is kept (and reused) so
   * that old handles stay stale.
   */
  clear(): void {
    this.#index = new Map();
    this.#handles = 0;
    if (this.#issued) this.#levels.reset();
    else this.#levels = new WheelLevels(this.#wheelSize, this.#levels.current);
    if (this.#running) {
      this.#disarm();
      this.#armedTick = Infinity;
    }
  }

  /** Links entry slot `s`, due at `atMs`, into the wheel and arms the driver if needed. */
  #place(s: number, atMs: number): void {
    const levels = this.#levels;
    // An idle wheel's current tick is stale; catch up so the entry lands in the right level
    // instead of cascading through buckets that are already due. The only clock read on this
    // path: a busy wheel places relative to its own current tick.
    if (levels.heap.size === 0) levels.advance(this.#tickFloor(this.#clock.now()));
    const wake = levels.place(s, this.#tickOf(atMs));
    if (wake < this.#armedTick) this.#arm(wake);
  }

  /** Smallest tick whose start is not before `atMs`. */
  #tickOf(atMs: number): number {
    const epoch = this.#epoch, tickMs = this.#tickMs;
    let t = Math.ceil((atMs - epoch) / tickMs);
    // Division can round a hair down; the "never early" promise rests on this inequality.
    if (epoch + t * tickMs < atMs) t++;
    return t > MAX_TICK ? MAX_TICK : t;
  }

  /** Largest tick whose start has been reached at `now`. */
  #tickFloor(now: number): number {
    const epoch = this.#epoch, tickMs = this.#tickMs;
    let t = Math.floor((now - epoch) / tickMs);
    if (epoch + t * tickMs > now) t--;
    return t;
  }

  /** One driver turn: run due entries, cascade expired buckets, then re-arm or yield. */
  #turn = (): void => {
    this.#handle = undefined;
    if (!this.#running) return;
    // Placements during the turn must not arm the driver: the end of the turn does.
    this.#armedTick = -Infinity;
    const nowTick = this.#tickFloor(this.#clock.now());
    let budget = this.#maxPerTurn;
    this.#levels.advance(nowTick);
    for (;;) {
      // Re-read every round: a callback may clear() the wheel or make the slot arrays grow.
      const levels = this.#levels, slots = levels.slots;
      const s = slots.nextOf(RUN);
      if (s === RUN) {
        if (levels.flushExpired(nowTick)) continue;
        break;
      }
      if (budget-- === 0) break;
      slots.unlink(s);
      const t = levels.dueTick(s);
      if (t > levels.current) {
        levels.place(s, t);
      } else {
        this.#fire(s);
        if (!this.#running) return;
      }
    }
    this.#rearm();
  };

  #fire(s: number): void {
    const levels = this.#levels, slots = levels.slots;
    const fn = slots.callbackOf(s);
    // Errors name the entry by its id, or by its handle (taken before free changes it).
    let key: string | number;
    // Free first, so the callback can schedule the same id again.
    if (slots.kindOf(s) === BY_ID) {
      key = slots.idOf(s);
      this.#index.delete(key);
    } else {
      key = slots.handleOf(s);
      this.#handles--;
    }
    levels.release(s);
    try {
      const result = fn();
      if (result != null && typeof (result as PromiseLike<unknown>).then === "function") {
        // Not awaited; only keeps a rejection from becoming an unhandled one.
        (result as PromiseLike<unknown>).then(undefined, (error) => this.#report(error, key));
      }
    } catch (error) {
      this.#report(error, key);
    }
  }

  #report(error: unknown, key: string | number): void {
    const id = typeof key === "string" ? key : `#${key}`;
    try {
      this.#onError(error, id);
    } catch (failure) {
      console.error("TimingWheel: onError threw:", failure, "while reporting:", error);
    }
  }

  /** Arms the driver for the run queue or the earliest non-empty bucket, if any. */
  #rearm(): void {
    if (!this.#running) return;
    const levels = this.#levels;
    const next = levels.slots.nextOf(RUN) !== RUN ? -Infinity : levels.nextExpiry();
    if (next === Infinity) {
      this.#disarm();
      this.#armedTick = Infinity;
    } else {
      this.#arm(next);
    }
  }

  /** (Re)arms the driver timer for bucket tick `tick`; -Infinity means "next turn". */
  #arm(tick: number): void {
    const clock = this.#clock;
    this.#disarm();
    let delay = 0;
    if (tick !== -Infinity) {
      delay = Math.ceil(this.#epoch + tick * this.#tickMs - clock.now());
      // Past the setTimeout limit the driver wakes early, finds nothing due and re-arms.
      delay = delay < 0 ? 0 : delay > MAX_DELAY_MS ? MAX_DELAY_MS : delay;
    }
    this.#armedTick = tick;
    const handle = clock.setTimer(this.#turn, delay);
    this.#handle = handle;
    if (this.#unref) clock.unrefTimer?.(handle);
  }

  #disarm(): void {
    if (this.#handle !== undefined) {
      this.#clock.clearTimer(this.#handle);
      this.#handle = undefined;
    }
  }
}
