/**
 * @module exact-timer — the last stretch of a due time, finer than the wheel's tick: the
 * distinct due instants of the next tick or so, in ms, and one runtime timer for the earliest.
 * When it fires (never before: a runtime timer that comes early is armed again for the rest),
 * every instant reached is dropped and `fire` runs once.
 *
 * It holds a handful of instants at a time (those of the wheel tick that opened), so a
 * binary heap of numbers and a set are plenty.
 */
import type { Clock } from "../core/clock.ts";

export class ExactTimer {
  readonly #clock: Clock;
  readonly #fire: () => void;
  /** Instants (epoch ms), a min-heap, each at most once (`#held`). */
  #heap: number[] = [];
  readonly #held = new Set<number>();
  #timer: unknown;
  /** The instant the timer is armed for (Infinity: none). */
  #armedAt = Infinity;

  constructor(clock: Clock, fire: () => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Instants waiting. */
  get size(): number {
    return this.#heap.length;
  }

  /** Fires at `at` (or at once, when it has passed). */
  add(at: number): void {
    if (this.#held.has(at)) return;
    this.#held.add(at);
    const h = this.#heap;
    let i = h.push(at) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p] <= at) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = at;
    if (at < this.#armedAt) this.#arm(at);
  }

  /** Drops every instant and the timer. */
  clear(): void {
    this.#heap = [];
    this.#held.clear();
    this.#disarm();
  }

  #arm(at: number): void {
    this.#disarm();
    this.#armedAt = at;
    const clock = this.#clock;
    this.#timer = clock.setTimer(this.#due, Math.max(0, at - clock.now()));
    clock.unrefTimer?.(this.#timer);
  }

  #disarm(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Infinity;
  }

  readonly #due = (): void => {
    this.#timer = undefined;
    this.#armedAt = Infinity;
    const now = this.#clock.now();
    let reached = false;
    while (this.#heap.length > 0 && this.#heap[0] <= now) {
      this.#held.delete(this.#pop());
      reached = true;
    }
    if (this.#heap.length > 0) this.#arm(this.#heap[0]);
    if (reached) this.#fire();
  };

  #pop(): number {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop()!;
    const n = h.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && h[c + 1] < h[c]) c++;
      if (last <= h[c]) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = last;
    return top;
  }
}
