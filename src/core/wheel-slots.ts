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

/**
 * Slot storage: a free list and list operations over one `ArrayBuffer` laid out as 16-byte
 * records `[next: i32, prev: i32, time: f64]`, so a slot's links and time share a cache line:
 * an unlink touches three lines (the slot and its two neighbours) instead of six.
 */
export class WheelSlots {
  /** Int32 view: `link[4s]` is the next slot, `link[4s + 1]` the previous one. */
  link: Int32Array;
  /**
   * Float64 view: `time[2s + 1]`. Entry slots: the requested due time (epoch ms) as given, so
   * `dueAt` answers exactly. Sentinel slots: the bucket's expiry tick while queued, else -1.
   */
  time: Float64Array;
  /**
   * `refs[2s]` is the entry's id (needed on fire to drop the index entry and to report errors),
   * `refs[2s + 1]` its callback. One array, so both come in on the same cache line; cleared on
   * free so the closure can be collected.
   */
  refs: (string | WheelCallback | undefined)[] = [];
  #capacity: number;
  #top = 0;
  #free = NIL;

  constructor(capacity = INITIAL_CAPACITY) {
    this.#capacity = capacity;
    const buffer = new ArrayBuffer(capacity * 16);
    this.link = new Int32Array(buffer);
    this.time = new Float64Array(buffer);
  }

  /** The slot after `s` in its list (a sentinel's next is itself when the list is empty). */
  nextOf(s: number): number {
    return this.link[s << 2];
  }

  timeOf(s: number): number {
    return this.time[(s << 1) | 1];
  }

  setTime(s: number, value: number): void {
    this.time[(s << 1) | 1] = value;
  }

  /** Takes a slot for an entry, reusing the most recently freed one (its cache lines are warm). */
  alloc(): number {
    const s = this.#free;
    if (s !== NIL) {
      this.#free = this.link[s << 2];
      return s;
    }
    return this.#fresh();
  }

  /**
   * Takes a never-used slot for the sentinel of a new, empty list. Never from the free list:
   * a level's sentinels must be contiguous so a bucket is found by base + index.
   */
  sentinel(): number {
    const s = this.#fresh();
    this.link[s << 2] = s;
    this.link[(s << 2) | 1] = s;
    this.time[(s << 1) | 1] = -1;
    return s;
  }

  /** Sets an entry's id and callback. */
  setRefs(s: number, id: string, callback: WheelCallback): void {
    this.refs[s << 1] = id;
    this.refs[(s << 1) | 1] = callback;
  }

  idOf(s: number): string {
    return this.refs[s << 1] as string;
  }

  callbackOf(s: number): WheelCallback {
    return this.refs[(s << 1) | 1] as WheelCallback;
  }

  #fresh(): number {
    if (this.#top === this.#capacity) this.#grow();
    // Appending keeps the JS arrays packed (a hole would make every access check for one).
    this.refs.push(undefined, undefined);
    return this.#top++;
  }

  /** Returns an unlinked entry slot to the free list. */
  free(s: number): void {
    this.refs[s << 1] = undefined;
    this.refs[(s << 1) | 1] = undefined;
    this.link[s << 2] = this.#free;
    this.#free = s;
  }

  /** Appends slot `s` to the list headed by sentinel `head`. */
  linkTail(s: number, head: number): void {
    const link = this.link;
    const last = link[(head << 2) | 1];
    link[last << 2] = s;
    link[s << 2] = head;
    link[(s << 2) | 1] = last;
    link[(head << 2) | 1] = s;
  }

  /** Removes slot `s` from whatever list it is in; the sentinel makes this branch-free. */
  unlink(s: number): void {
    const link = this.link;
    const n = link[s << 2], p = link[(s << 2) | 1];
    link[p << 2] = n;
    link[(n << 2) | 1] = p;
  }

  /** Moves every slot of the list headed by `from` to the tail of the list headed by `to`. */
  spliceTail(from: number, to: number): void {
    const link = this.link;
    const first = link[from << 2];
    if (first === from) return;
    const last = link[(from << 2) | 1], tail = link[(to << 2) | 1];
    link[tail << 2] = first;
    link[(first << 2) | 1] = tail;
    link[last << 2] = to;
    link[(to << 2) | 1] = last;
    link[from << 2] = from;
    link[(from << 2) | 1] = from;
  }

  #grow(): void {
    this.#capacity *= 2;
    const buffer = new ArrayBuffer(this.#capacity * 16);
    const link = new Int32Array(buffer);
    link.set(this.link);
    this.link = link;
    this.time = new Float64Array(buffer);
  }
}

/**
 * Binary min-heap of bucket sentinels keyed by their expiry tick (`slots.timeOf(sentinel)`).
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
    const items = this.#items, slots = this.#slots;
    const key = slots.timeOf(b);
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent];
      if (slots.timeOf(p) <= key) break;
      items[i] = p;
      i = parent;
    }
    items[i] = b;
  }

  pop(): number {
    if (this.size === 0) return NIL;
    const items = this.#items, slots = this.#slots;
    const top = items[0];
    const last = items[--this.size];
    const n = this.size, key = slots.timeOf(last);
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && slots.timeOf(items[child + 1]) < slots.timeOf(items[child])) child++;
      if (slots.timeOf(items[child]) >= key) break;
      items[i] = items[child];
      i = child;
    }
    if (n > 0) items[i] = last;
    return top;
  }
}
