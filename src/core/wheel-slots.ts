/**
 * @module wheel-slots — struct-of-arrays storage for timing-wheel entries, bucket lists and
 * the bucket delay queue.
 *
 * Every entry and every bucket is an integer slot in the same typed arrays, so a pending entry
 * owns no JS object of its own: the heap holds one callback and one id reference per slot and
 * the rest lives in `ArrayBuffer`s the garbage collector never traces. Buckets are circular
 * doubly linked lists whose head is a sentinel slot, so linking, unlinking and moving a whole
 * bucket are a handful of array writes with no branches on "is this the head?".
 */

/** "No slot": an empty free list or an empty heap. */
export const NIL = -1;

/** A slot's callback. Typed loosely because async callbacks are accepted and not awaited. */
export type WheelCallback = () => unknown;

const INITIAL_CAPACITY = 1024;

/** Slot storage: per-slot links and time, a free list, and list operations on them. */
export class WheelSlots {
  /** Next slot in the list the slot sits in (a free slot: the next free slot). */
  next: Int32Array;
  /** Previous slot in the list the slot sits in. */
  prev: Int32Array;
  /**
   * Entry slots: the requested due time (epoch ms) as given, so `dueAt` can answer exactly.
   * Sentinel slots: the bucket's expiry tick while it is queued in the heap, else -1.
   */
  time: Float64Array;
  /** Callback per entry slot; cleared on free so the closure can be collected. */
  fns: (WheelCallback | undefined)[] = [];
  /** Id per entry slot; needed on fire to drop the index entry and to report errors. */
  ids: (string | undefined)[] = [];
  #top = 0;
  #free = NIL;

  constructor(capacity = INITIAL_CAPACITY) {
    this.next = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
    this.time = new Float64Array(capacity);
  }

  /** Takes a slot for an entry, reusing the most recently freed one (its cache lines are warm). */
  alloc(): number {
    const s = this.#free;
    if (s !== NIL) {
      this.#free = this.next[s];
      return s;
    }
    if (this.#top === this.next.length) this.#grow();
    // Appending keeps the JS arrays packed (a hole would make every access check for one).
    this.fns.push(undefined);
    this.ids.push(undefined);
    return this.#top++;
  }

  /** Takes a slot as the sentinel of a new, empty list. */
  sentinel(): number {
    const s = this.alloc();
    this.next[s] = s;
    this.prev[s] = s;
    this.time[s] = -1;
    return s;
  }

  /** Returns an unlinked entry slot to the free list. */
  free(s: number): void {
    this.fns[s] = undefined;
    this.ids[s] = undefined;
    this.next[s] = this.#free;
    this.#free = s;
  }

  /** Appends slot `s` to the list headed by sentinel `head`. */
  linkTail(s: number, head: number): void {
    const next = this.next, prev = this.prev;
    const last = prev[head];
    next[last] = s;
    prev[s] = last;
    next[s] = head;
    prev[head] = s;
  }

  /** Removes slot `s` from whatever list it is in; the sentinel makes this branch-free. */
  unlink(s: number): void {
    const next = this.next, prev = this.prev;
    const n = next[s], p = prev[s];
    next[p] = n;
    prev[n] = p;
  }

  /** Moves every slot of the list headed by `from` to the tail of the list headed by `to`. */
  spliceTail(from: number, to: number): void {
    const next = this.next, prev = this.prev;
    const first = next[from];
    if (first === from) return;
    const last = prev[from], tail = prev[to];
    next[tail] = first;
    prev[first] = tail;
    next[last] = to;
    prev[to] = last;
    next[from] = from;
    prev[from] = from;
  }

  #grow(): void {
    const size = this.next.length * 2;
    const next = new Int32Array(size), prev = new Int32Array(size), time = new Float64Array(size);
    next.set(this.next);
    prev.set(this.prev);
    time.set(this.time);
    this.next = next;
    this.prev = prev;
    this.time = time;
  }
}

/**
 * Binary min-heap of bucket sentinels keyed by their expiry tick (`slots.time[sentinel]`).
 * Holds at most one item per bucket, so it never exceeds levels × wheelSize items.
 */
export class BucketHeap {
  #items = new Int32Array(64);
  #slots: WheelSlots;
  size = 0;

  constructor(slots: WheelSlots) {
    this.#slots = slots;
  }

  /** The sentinel with the earliest expiry, or NIL. */
  peek(): number {
    return this.size === 0 ? NIL : this.#items[0];
  }

  push(b: number): void {
    if (this.size === this.#items.length) {
      const items = new Int32Array(this.size * 2);
      items.set(this.#items);
      this.#items = items;
    }
    const items = this.#items, time = this.#slots.time;
    const key = time[b];
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent];
      if (time[p] <= key) break;
      items[i] = p;
      i = parent;
    }
    items[i] = b;
  }

  pop(): number {
    if (this.size === 0) return NIL;
    const items = this.#items, time = this.#slots.time;
    const top = items[0];
    const last = items[--this.size];
    const n = this.size, key = time[last];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && time[items[child + 1]] < time[items[child]]) child++;
      if (time[items[child]] >= key) break;
      items[i] = items[child];
      i = child;
    }
    if (n > 0) items[i] = last;
    return top;
  }
}
