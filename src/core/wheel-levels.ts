/**
 * @module wheel-levels — the levels of the timing wheel: which bucket an entry goes to for its
 * due tick, how the wheel's current tick advances, and which buckets have expired.
 *
 * Everything here is in integer ticks and there is no clock: timing-wheel.ts owns time and the
 * driver, this file owns placement. Level L has `wheelSize` buckets of `wheelSize ** L` ticks;
 * levels are added when an entry first needs one, so depth is unbounded.
 */

import { BucketHeap, NIL, WheelSlots } from "./wheel-slots.ts";

/** Slot 0 heads the run queue: entries already due and the contents of expired buckets. */
export const RUN = 0;

/** The wheel's levels, their bucket lists and the bucket delay queue. */
export class WheelLevels {
  readonly slots: WheelSlots = new WheelSlots();
  readonly heap: BucketHeap = new BucketHeap(this.slots);
  readonly #wheelSize: number;
  /** Per level: first bucket sentinel (a level's sentinels are contiguous). */
  #base: number[] = [];
  /** Per level: ticks per bucket. */
  #unit: number[] = [];
  /** Per level: current tick, a multiple of the level's unit. */
  #cur: number[] = [];

  /** Creates one level whose current tick is `curTick`; more are added on demand. */
  constructor(wheelSize: number, curTick: number) {
    this.#wheelSize = wheelSize;
    this.slots.sentinel(); // RUN
    this.#addLevel(curTick);
  }

  /** The wheel's current tick: an entry due at or before it belongs on the run queue. */
  get current(): number {
    return this.#cur[0];
  }

  /**
   * Links entry `s`, due at tick `t`, into the run queue or into the lowest level whose window
   * holds it. Returns the tick the driver must now wake for: -Infinity for the run queue, the
   * expiry of a newly queued bucket, or Infinity when the bucket was already queued.
   */
  place(s: number, t: number): number {
    const slots = this.slots, cur = this.#cur, unitOf = this.#unit, ws = this.#wheelSize;
    if (t <= cur[0]) {
      slots.linkTail(s, RUN);
      return -Infinity;
    }
    let level = 0;
    let unit = 1;
    while (t >= cur[level] + unit * ws) {
      if (++level === unitOf.length) this.#addLevel(cur[0]);
      unit = unitOf[level];
    }
    const v = Math.floor(t / unit);
    const b = this.#base[level] + (v % ws);
    slots.linkTail(s, b);
    const expiry = v * unit;
    // A queued bucket keeps its expiry until popped (see advance), so a bucket whose recorded
    // expiry differs is not in the heap yet.
    if (slots.timeOf(b) === expiry) return Infinity;
    slots.setTime(b, expiry);
    this.heap.push(b);
    return expiry;
  }

  /**
   * Moves every level's current tick towards `limit`, but never past the earliest queued
   * bucket: each level's window must keep covering its queued buckets, or a later expiry could
   * land in a bucket that still holds an earlier one.
   */
  advance(limit: number): void {
    const top = this.heap.peek();
    const target = top === NIL ? limit : Math.min(limit, this.slots.timeOf(top));
    const cur = this.#cur, unitOf = this.#unit;
    if (target <= cur[0]) return;
    for (let level = 0; level < cur.length; level++) {
      const unit = unitOf[level];
      cur[level] = Math.floor(target / unit) * unit;
    }
  }

  /**
   * Moves the earliest bucket onto the run queue if it expired by `nowTick`, in O(1) whatever
   * its size; false when no bucket has expired. Its entries are re-examined from there: due
   * ones fire, the rest cascade to a lower level.
   */
  flushExpired(nowTick: number): boolean {
    const slots = this.slots, heap = this.heap;
    const b = heap.peek();
    if (b === NIL || slots.timeOf(b) > nowTick) return false;
    heap.pop();
    slots.setTime(b, -1);
    slots.spliceTail(b, RUN);
    this.advance(nowTick);
    return true;
  }

  /** Expiry tick of the earliest non-empty bucket, or Infinity; drops buckets cancel emptied. */
  nextExpiry(): number {
    const slots = this.slots, heap = this.heap;
    for (;;) {
      const b = heap.peek();
      if (b === NIL) return Infinity;
      if (slots.nextOf(b) !== b) return slots.timeOf(b);
      heap.pop();
      slots.setTime(b, -1);
    }
  }

  #addLevel(curTick: number): void {
    const level = this.#unit.length;
    const unit = this.#wheelSize ** level;
    this.#base.push(this.slots.sentinel());
    for (let i = 1; i < this.#wheelSize; i++) this.slots.sentinel();
    this.#unit.push(unit);
    this.#cur.push(Math.floor(curTick / unit) * unit);
  }
}
