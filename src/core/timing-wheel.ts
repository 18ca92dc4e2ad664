/**
 * @module timing-wheel — the hierarchical timing wheel that drives every deferred firing in a
 * process (retry back-offs, delayed tasks, cron occurrences).
 *
 * Shape (Kafka's TimingWheel): level 0 has `wheelSize` buckets of `tickMs`; each overflow level
 * is created on first use and its tick is the whole span of the level below, so depth is
 * unbounded and "next millisecond" and "next Tuesday" take the same path. An entry lands in the
 * lowest level whose window holds it and cascades down as the clock reaches its bucket.
 * Non-empty buckets sit in a min-heap keyed by expiry; a single driver timer sleeps until the
 * earliest one and is re-armed only when an earlier bucket appears, so an idle wheel costs
 * nothing.
 *
 * Choices, each measured (numbers and method in docs/BENCHMARKS.md):
 * - Times are integer ticks since a wheel-local epoch, rounded up (`ceil`), and a bucket fires
 *   only when the clock has reached its start. That start is never before any of its entries'
 *   due times, so nothing fires early (Kafka rounds down and can fire a tick early).
 * - No object per entry: an entry is an integer slot in one `ArrayBuffer` of 16-byte records
 *   (links and due time, wheel-slots.ts) plus its id and callback in one JS array, with a free
 *   list. After warm-up a schedule allocates nothing, and at 1M pending the wheel holds ~65 B
 *   per entry, about half of it the id → slot `Map` that string ids need anyway; measured, the
 *   Map lookup is most of the cost of insert and cancel at 1M (cache and page-fault bound).
 *   Entry objects would add ~60 B and a traced object each, setTimeout 120–700 B.
 * - Buckets are circular lists headed by a sentinel slot. Kafka keeps a back-pointer from each
 *   entry to its bucket so that cancel can reach the list; with a sentinel the neighbours are
 *   enough, which saves 4 B per entry and lets an expired bucket move onto the run queue in
 *   O(1), however large, before its entries are fired or cascaded under the per-turn budget.
 * - The clock is read only when arming the driver or when an idle wheel gets its first entry,
 *   not on every schedule: placement is relative to the wheel's own current tick.
 * - A driver turn handles at most `maxPerTurn` entries (fired or cascaded), then yields through
 *   a zero-delay timer, so a backlog after a suspend or a long GC cannot starve the event loop.
 * - `wheelSize` 256 rather than 64: three levels instead of four reach 46 h at a 10 ms tick,
 *   so an entry cascades at most twice, and draining 1M entries took ~9% less time per fired
 *   entry on both runtimes (bench `drain` mode). The extra sentinels cost ~25 KiB a wheel.
 *
 * The wheel's time never goes back. If the clock steps backwards (a wall clock corrected by
 * NTP), entries scheduled before the clock catches up again can run up to the step early;
 * pass a monotonic clock (`performance.timeOrigin + performance.now()`) where that matters.
 */

import type { Clock, TimerHandle } from "./clock.ts";
import { RUN, WheelLevels } from "./wheel-levels.ts";
import { resolveWheelOptions, show, type TimingWheelOptions } from "./wheel-options.ts";

export type { TimingWheelOptions } from "./wheel-options.ts";

/** Ticks past this wait forever in practice (≥ 142 000 years at 1 ms) and keep doubles exact. */
const MAX_TICK = 2 ** 52;
/** Longest delay setTimeout accepts before it overflows and fires at once; longer waits chunk. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * A hierarchical timing wheel: O(1) schedule and cancel by string id, one driver timer for any
 * number of entries. Never fires early; fires within a tick of the due time plus however late
 * the event loop runs the driver's timer.
 *
 * @example
 * const wheel = new TimingWheel({ tickMs: 10 });
 * wheel.start();
 * wheel.schedule("task:42", Date.now() + 5_000, () => console.log("retry task 42"));
 * wheel.schedule("task:42", Date.now() + 9_000, () => console.log("replaced"));
 * wheel.cancel("task:42"); // true: it was pending
 * wheel.stop();
 */
export class TimingWheel {
  readonly #tickMs: number;
  readonly #wheelSize: number;
  readonly #clock: Clock;
  readonly #maxPerTurn: number;
  readonly #unref: boolean;
  readonly #onError: (error: unknown, id: string) => void;
  /** Epoch-ms instant of tick 0; ticks stay small integers relative to it. */
  readonly #epoch: number;

  /** id → slot, for cancel, replace, has and dueAt by id. */
  #index = new Map<string, number>();
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
    this.#epoch = this.#clock.now();
    if (!Number.isFinite(this.#epoch)) {
      throw new RangeError(`new TimingWheel: clock.now() must be finite, got ${show(this.#epoch)}`);
    }
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
    const levels = this.#levels, slots = levels.slots;
    let s = this.#index.get(id);
    if (s === undefined) {
      s = slots.alloc();
      this.#index.set(id, s);
    } else {
      slots.unlink(s);
    }
    slots.setRefs(s, id, callback);
    slots.setTime(s, atMs);
    // An idle wheel's current tick is stale; catch up so the entry lands in the right level
    // instead of cascading through buckets that are already due.
    if (levels.heap.size === 0) levels.advance(this.#tickFloor(this.#clock.now()));
    const wake = levels.place(s, this.#tickOf(atMs));
    if (wake < this.#armedTick) this.#arm(wake);
  }

  /** Cancels a pending id; true when it was pending. */
  cancel(id: string): boolean {
    const s = this.#index.get(id);
    if (s === undefined) return false;
    this.#index.delete(id);
    this.#levels.slots.unlink(s);
    this.#levels.slots.free(s);
    return true;
  }

  /** Whether `id` is pending. */
  has(id: string): boolean {
    return this.#index.has(id);
  }

  /** The `atMs` a pending id was scheduled for, or undefined. */
  dueAt(id: string): number | undefined {
    const s = this.#index.get(id);
    return s === undefined ? undefined : this.#levels.slots.timeOf(s);
  }

  /** Number of pending entries. */
  get size(): number {
    return this.#index.size;
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

  /** Drops every pending entry and releases their memory. */
  clear(): void {
    this.#index = new Map();
    this.#levels = new WheelLevels(this.#wheelSize, this.#levels.current);
    if (this.#running) {
      this.#disarm();
      this.#armedTick = Infinity;
    }
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
      const t = this.#tickOf(slots.timeOf(s));
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
    const slots = this.#levels.slots;
    const id = slots.idOf(s);
    const fn = slots.callbackOf(s);
    // Free first, so the callback can schedule the same id again.
    this.#index.delete(id);
    slots.free(s);
    try {
      const result = fn();
      if (result != null && typeof (result as PromiseLike<unknown>).then === "function") {
        // Not awaited; only keeps a rejection from becoming an unhandled one.
        (result as PromiseLike<unknown>).then(undefined, (error) => this.#report(error, id));
      }
    } catch (error) {
      this.#report(error, id);
    }
  }

  #report(error: unknown, id: string): void {
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
