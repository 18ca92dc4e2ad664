/**
 * @module wheel-levels — the levels of the timing wheel: which bucket an entry goes to for its
 * due tick, how the wheel's current tick advances, and which buckets have expired.
 *
 * Everything here is in integer ticks and there is no clock: timing-wheel.ts owns time and the
 * driver, this file owns placement. Level L has `wheelSize` buckets of `wheelSize ** L` ticks;
 * levels are added when an entry first needs one, so depth is unbounded.
 *
 * An entry's record keeps only its due tick modulo 2 ** 32 (16-byte records, wheel-slots.ts).
 * The full tick is needed only when the entry comes off the run queue, and it can be recovered
 * there: an entry that came from a bucket is due within that bucket's span of its expiry, and
 * an entry placed on the run queue directly was already due. So the run queue remembers the
 * expiry of the bucket it last received (`runBase`) and the tick is runBase plus the stored
 * value's distance from it modulo 2 ** 32. The only entries for which that is ambiguous sit in
 * buckets spanning more than 2 ** 32 ticks (at 256 buckets per level, 2 ** 40 ticks: 348 years
 * at 10 ms); their full tick is kept in a Map.
 */

import { BucketHeap, NIL, WheelSlots } from "./wheel-slots.ts";

/** Slot 0 heads the run queue: entries already due and the contents of expired buckets. */
export const RUN = 0;

/** Buckets spanning more ticks than this keep their entries' full ticks in a Map. */
const EXACT_SPAN = 2 ** 32;

/** The wheel's levels, their bucket lists and the bucket delay queue. */
export class WheelLevels {
  readonly slots: WheelSlots = new WheelSlots();
  readonly heap: BucketHeap = new BucketHeap();
  readonly #wheelSize: number;
  /** Per level: first bucket sentinel (a level's sentinels are contiguous). */
  #base: number[] = [];
  /** Per level: ticks per bucket. */
  #unit: number[] = [];
  /** Per level: current tick, a multiple of the level's unit. */
  #cur: number[] = [];
  /**
   * Per bucket number (level × wheelSize + index, kept in the sentinel's tick field): its
   * expiry tick while it is queued in the heap, else -1.
   */
  #expiry = new Float64Array(0);
  /** Full due ticks of the entries in buckets spanning more than 2 ** 32 ticks. */
  #far = new Map<number, number>();
  /** Expiry of the last bucket moved onto the run queue (see the module comment). */
  #runBase: number;

  /** Creates one level whose current tick is `curTick`; more are added on demand. */
  constructor(wheelSize: number, curTick: number) {
    this.#wheelSize = wheelSize;
    this.slots.sentinel(-1); // RUN
    this.#runBase = curTick;
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
    if (this.#far.size !== 0) this.#far.delete(s);
    if (t <= cur[0]) {
      // Due: any tick up to the current one will do, and this one is never below runBase.
      slots.setTick(s, cur[0]);
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
    const index = v % ws;
    const b = this.#base[level] + index;
    slots.setTick(s, t);
    slots.linkTail(s, b);
    if (unit > EXACT_SPAN) this.#far.set(s, t);
    const expiry = v * unit;
    // A queued bucket keeps its expiry until popped (see advance), so a bucket whose recorded
    // expiry differs is not in the heap yet.
    const bucket = level * ws + index;
    if (this.#expiry[bucket] === expiry) return Infinity;
    this.#expiry[bucket] = expiry;
    this.heap.push(b, expiry);
    return expiry;
  }

  /**
   * The full due tick of entry `s`, taken off the run queue. Only valid there: the stored low
   * 32 bits are resolved against the expiry of the bucket the run queue last received.
   */
  dueTick(s: number): number {
    if (this.#far.size !== 0) {
      const t = this.#far.get(s);
      if (t !== undefined) return t;
    }
    const base = this.#runBase;
    return base + ((this.slots.tickOf(s) - (base | 0)) >>> 0);
  }

  /** Unlinks entry `s` and frees its slot. */
  drop(s: number): void {
    this.slots.unlink(s);
    this.release(s);
  }

  /** Forgets entry `s`'s full tick, if it had one kept (call when `s` is freed). */
  forgetFar(s: number): void {
    if (this.#far.size !== 0) this.#far.delete(s);
  }

  /** Frees the slot of entry `s`, already unlinked. */
  release(s: number): void {
    if (this.#far.size !== 0) this.#far.delete(s);
    this.slots.free(s);
  }

  /**
   * Moves every level's current tick towards `limit`, but never past the earliest queued
   * bucket: each level's window must keep covering its queued buckets, or a later expiry could
   * land in a bucket that still holds an earlier one.
   */
  advance(limit: number): void {
    const top = this.heap.peekKey();
    const target = top < limit ? top : limit;
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
   * ones fire, the rest cascade to a lower level. Call only with an empty run queue.
   */
  flushExpired(nowTick: number): boolean {
    const slots = this.slots, heap = this.heap;
    const expiry = heap.peekKey();
    if (expiry > nowTick) return false;
    const b = heap.pop();
    this.#expiry[slots.tickOf(b)] = -1;
    this.#runBase = expiry;
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
      if (slots.nextOf(b) !== b) return heap.peekKey();
      heap.pop();
      this.#expiry[slots.tickOf(b)] = -1;
    }
  }

  /**
   * Drops every entry in O(slots), keeping the levels, the current tick and the storage (so
   * slots come back with their generations and handles issued before stay stale).
   */
  reset(): void {
    const slots = this.slots;
    slots.empty(RUN);
    for (const base of this.#base) {
      for (let b = base; b < base + this.#wheelSize; b++) slots.empty(b);
    }
    this.#expiry.fill(-1);
    this.heap.size = 0;
    this.#far.clear();
    slots.freeAll();
  }

  #addLevel(curTick: number): void {
    const level = this.#unit.length, ws = this.#wheelSize;
    const unit = ws ** level;
    const expiry = new Float64Array((level + 1) * ws).fill(-1);
    expiry.set(this.#expiry);
    this.#expiry = expiry;
    this.#base.push(this.slots.sentinel(level * ws));
    for (let i = 1; i < ws; i++) this.slots.sentinel(level * ws + i);
    this.#unit.push(unit);
    this.#cur.push(Math.floor(curTick / unit) * unit);
  }
}
