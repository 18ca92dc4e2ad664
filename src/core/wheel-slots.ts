/**
 * @module wheel-slots — struct-of-arrays storage for timing-wheel entries and bucket lists,
 * and the bucket delay queue.
 *
 * Every entry and every bucket is an integer slot in one typed array of 16-byte records, so a
 * pending entry owns no JS object of its own: the heap holds its callback reference (and its
 * id, for an entry scheduled by id) and the rest lives in an `ArrayBuffer` the garbage
 * collector never traces. Buckets are circular doubly linked lists whose head is a sentinel
 * slot, so linking, unlinking and moving a whole bucket are a handful of array writes with no
 * branches on "is this the head?".
 *
 * Each entry slot carries a tag: what it holds (an entry added by handle or one scheduled by
 * id; 0 when free) and a generation that grows every time the slot is freed. A handle packs
 * the slot and its generation, so a handle kept after its entry fired or was removed no longer
 * matches once the slot is reused; a slot whose generation runs out is retired, never reused,
 * so a stale handle can never match a newer entry.
 *
 * Records are 16 bytes and stored in chunks of 65 536 slots that are never copied: at a million
 * pending entries bytes and cache lines touched are the cost (docs/BENCHMARKS.md).
 */

/** "No slot": an empty free list or an empty heap. */
export const NIL = -1;

/** A slot's callback. Typed loosely because async callbacks are accepted and not awaited. */
export type WheelCallback = () => unknown;

/** Tag kind (low two bits) of a slot holding an entry added by handle. */
export const BY_HANDLE = 1;
/** Tag kind (low two bits) of a slot holding an entry scheduled by id. */
export const BY_ID = 2;

/** Slots stay below 2 ** 27 (2 GiB of records), so a handle's low 27 bits are its slot. */
const SLOT_BITS = 27;
/** handle = generation × SLOT_SPAN + slot, generation = tag >>> 2. */
const SLOT_SPAN = 2 ** SLOT_BITS;
const SLOT_MASK = SLOT_SPAN - 1;
/**
 * Tags (generation × 4 + kind) stay below 2 ** 26, so handles stay below 2 ** 51 (safe
 * integers): a slot is retired after 16.7 million uses. The first 16 uses of a slot give
 * handles below 2 ** 31, which V8 (Deno) keeps as small integers rather than boxed numbers.
 */
const TAG_LIMIT = 2 ** 26;

/** Slots per chunk (below the 100 000 at which `new Array(n)` goes sparse in JSC). */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK - 1;
/** Slots of a new wheel's first chunk, which doubles up to CHUNK. */
const INITIAL_CAPACITY = 1024;

/** `size` undefined callback cells; dense so reads never check for holes. */
const callbackChunk = (size: number): (WheelCallback | undefined)[] =>
  new Array<WheelCallback | undefined>(size).fill(undefined);

/**
 * Slot storage: a free list and list operations over 16-byte records
 * `[next: i32, prev: i32, tag: i32, tick: i32]`, so everything insert, cancel and fire read or
 * write of a slot is in one record and an unlink touches three records (the slot and its two
 * neighbours). `tick` is an entry's due tick modulo 2 ** 32 (wheel-levels.ts recovers the
 * rest) and a sentinel's bucket number. Slot `s` is record `s & 0xffff` of chunk `s >>> 16`.
 */
export class WheelSlots {
  /**
   * Record chunks: in chunk `s >>> 16`, at `r = (s & 0xffff) << 2`, `[r]` is the next slot,
   * `[r + 1]` the previous one, `[r + 2]` the tag and `[r + 3]` the tick.
   */
  #link: Int32Array[];
  /** Callback chunks, same indexing; cleared on free so the callback can be collected. */
  #callbacks: (WheelCallback | undefined)[][];
  /**
   * Id of an entry scheduled by id (to drop its index entry on fire and to report errors),
   * grown only as far as the highest slot such an entry used: handles never pay for it.
   */
  #ids: (string | undefined)[] = [];
  /** Due time (epoch ms, as given) of an entry scheduled by id, for `dueAt`; made on demand. */
  #dues: Float64Array | undefined;
  /**
   * Most recently freed slot; each free slot's next field holds the one freed before it. A
   * list threaded through the records costs a free nothing beyond the record it already
   * touches; a separate stack of free slots (tried) made a cancel at 1M ~30 ns slower (one
   * more cache line written, and fresh memory) and gained nothing on refills.
   */
  #free = NIL;
  #capacity = INITIAL_CAPACITY;
  /** Slots ever used: the next fresh slot. */
  #top = 0;

  constructor() {
    this.#link = [new Int32Array(INITIAL_CAPACITY * 4)];
    this.#callbacks = [callbackChunk(INITIAL_CAPACITY)];
  }

  /** The slot after `s` in its list (a sentinel's next is itself when the list is empty). */
  nextOf(s: number): number {
    return this.#link[s >>> CHUNK_BITS][(s & CHUNK_MASK) << 2];
  }

  /** Entry: its due tick modulo 2 ** 32, as an int32. Sentinel: its bucket number. */
  tickOf(s: number): number {
    return this.#link[s >>> CHUNK_BITS][((s & CHUNK_MASK) << 2) | 3];
  }

  /** Stores `tick` modulo 2 ** 32 (an `Int32Array` store wraps). */
  setTick(s: number, tick: number): void {
    this.#link[s >>> CHUNK_BITS][((s & CHUNK_MASK) << 2) | 3] = tick;
  }

  /** Tag kind of slot `s`: BY_HANDLE, BY_ID, or 0 for a sentinel or a free slot. */
  kindOf(s: number): number {
    return this.#link[s >>> CHUNK_BITS][((s & CHUNK_MASK) << 2) | 2] & 3;
  }

  /**
   * Takes a slot for an entry of `kind` (BY_HANDLE or BY_ID), reusing the most recently freed
   * one (its cache lines are the most likely to be warm).
   */
  alloc(kind: number): number {
    let s = this.#free;
    if (s !== NIL) {
      const c = this.#link[s >>> CHUNK_BITS], r = (s & CHUNK_MASK) << 2;
      this.#free = c[r];
      // A free slot's tag is a multiple of 4; the kind goes in its low bits.
      c[r | 2] += kind;
      return s;
    }
    s = this.#fresh();
    this.#link[s >>> CHUNK_BITS][((s & CHUNK_MASK) << 2) | 2] += kind;
    return s;
  }

  /**
   * Takes a never-used slot for the sentinel of a new, empty list whose tick field holds
   * `bucket`. Never from the free list: a level's sentinels must be contiguous so a bucket is
   * found by base + index.
   */
  sentinel(bucket: number): number {
    const s = this.#fresh();
    this.empty(s);
    this.setTick(s, bucket);
    return s;
  }

  setCallback(s: number, callback: WheelCallback): void {
    this.#callbacks[s >>> CHUNK_BITS][s & CHUNK_MASK] = callback;
  }

  callbackOf(s: number): WheelCallback {
    return this.#callbacks[s >>> CHUNK_BITS][s & CHUNK_MASK] as WheelCallback;
  }

  /** Sets the id and the requested due time of an entry scheduled by id. */
  setIdDue(s: number, id: string, atMs: number): void {
    const ids = this.#ids;
    // Appending keeps the array packed (a hole would make every access check for one).
    while (ids.length < s) ids.push(undefined);
    if (ids.length === s) ids.push(id);
    else ids[s] = id;
    this.setDue(s, atMs);
  }

  /** Sets the requested due time of an entry scheduled by id. */
  setDue(s: number, atMs: number): void {
    let dues = this.#dues;
    if (dues === undefined || dues.length <= s) {
      // Doubling, not capacity: capacity grows a chunk at a time.
      dues = new Float64Array(Math.max(this.#capacity, 2 * (dues?.length ?? 0)));
      if (this.#dues) dues.set(this.#dues);
      this.#dues = dues;
    }
    dues[s] = atMs;
  }

  /** Id of an entry scheduled by id. */
  idOf(s: number): string {
    return this.#ids[s] as string;
  }

  /** Requested due time of an entry scheduled by id. */
  dueOf(s: number): number {
    return this.#dues![s];
  }

  /** The handle of the entry added by handle in slot `s`. */
  handleOf(s: number): number {
    return (this.#link[s >>> CHUNK_BITS][((s & CHUNK_MASK) << 2) | 2] >>> 2) * SLOT_SPAN + s;
  }

  /**
   * Removes the pending entry added by handle `handle`: unlinks and frees its slot and returns
   * it, or returns NIL (and changes nothing) for a stale handle or any other number. The same
   * steps as slotOf + unlink + free, with the slot's chunk looked up once (fewer instructions
   * per cancel at a million pending entries: docs/BENCHMARKS.md).
   */
  removeHandle(handle: number): number {
    // `&` keeps the low 32 bits of any safe integer; non-numbers and NaN give slot 0 (the run
    // queue's sentinel, tag 0), which never matches.
    const s = handle & SLOT_MASK;
    if (s >= this.#top) return NIL;
    const chunks = this.#link;
    const c = chunks[s >>> CHUNK_BITS], r = (s & CHUNK_MASK) << 2;
    const tag = c[r | 2];
    if ((tag & 3) !== BY_HANDLE || (tag >>> 2) * SLOT_SPAN + s !== handle) return NIL;
    const n = c[r], p = c[r | 1];
    chunks[p >>> CHUNK_BITS][(p & CHUNK_MASK) << 2] = n;
    chunks[n >>> CHUNK_BITS][((n & CHUNK_MASK) << 2) | 1] = p;
    this.#callbacks[s >>> CHUNK_BITS][s & CHUNK_MASK] = undefined;
    const next = tag + 3; // (tag | 3) + 1 for a handle's tag
    c[r | 2] = next;
    if (next < TAG_LIMIT) {
      c[r] = this.#free;
      this.#free = s;
    }
    return s;
  }

  /** The slot of a pending entry added by handle, or NIL for anything else (stale, garbage). */
  slotOf(handle: number): number {
    const s = handle & SLOT_MASK;
    if (s >= this.#top) return NIL;
    const tag = this.#link[s >>> CHUNK_BITS][((s & CHUNK_MASK) << 2) | 2];
    return (tag & 3) === BY_HANDLE && (tag >>> 2) * SLOT_SPAN + s === handle ? s : NIL;
  }

  #fresh(): number {
    const s = this.#top;
    if (s === this.#capacity) this.#grow();
    this.#top = s + 1;
    return s;
  }

  /** Returns an unlinked entry slot to the free list; a slot out of generations is retired. */
  free(s: number): void {
    const c = this.#link[s >>> CHUNK_BITS], r = (s & CHUNK_MASK) << 2;
    const tag = c[r | 2];
    this.#callbacks[s >>> CHUNK_BITS][s & CHUNK_MASK] = undefined;
    if ((tag & 3) === BY_ID) this.#ids[s] = undefined;
    const next = (tag | 3) + 1;
    c[r | 2] = next;
    if (next < TAG_LIMIT) {
      c[r] = this.#free;
      this.#free = s;
    }
  }

  /**
   * Frees every entry slot without touching sentinels, in O(slots). The records stay: reusing
   * the slots with their generations is what keeps old handles stale.
   */
  freeAll(): void {
    for (let s = this.#top - 1; s >= 0; s--) {
      if (this.kindOf(s) !== 0) this.free(s);
    }
  }

  /** Appends slot `s` to the list headed by sentinel `head`. */
  linkTail(s: number, head: number): void {
    const chunks = this.#link;
    const hc = chunks[head >>> CHUNK_BITS], h = (head & CHUNK_MASK) << 2;
    const sc = chunks[s >>> CHUNK_BITS], r = (s & CHUNK_MASK) << 2;
    const last = hc[h | 1];
    chunks[last >>> CHUNK_BITS][(last & CHUNK_MASK) << 2] = s;
    sc[r] = head;
    sc[r | 1] = last;
    hc[h | 1] = s;
  }

  /** Removes slot `s` from whatever list it is in; the sentinel makes this branch-free. */
  unlink(s: number): void {
    const chunks = this.#link;
    const c = chunks[s >>> CHUNK_BITS], r = (s & CHUNK_MASK) << 2;
    const n = c[r], p = c[r | 1];
    chunks[p >>> CHUNK_BITS][(p & CHUNK_MASK) << 2] = n;
    chunks[n >>> CHUNK_BITS][((n & CHUNK_MASK) << 2) | 1] = p;
  }

  /** Makes the list headed by sentinel `head` empty (its slots must be freed separately). */
  empty(head: number): void {
    const c = this.#link[head >>> CHUNK_BITS], h = (head & CHUNK_MASK) << 2;
    c[h] = head;
    c[h | 1] = head;
  }

  /** Moves every slot of the list headed by `from` to the tail of the list headed by `to`. */
  spliceTail(from: number, to: number): void {
    const chunks = this.#link;
    const fc = chunks[from >>> CHUNK_BITS], f = (from & CHUNK_MASK) << 2;
    const tc = chunks[to >>> CHUNK_BITS], t = (to & CHUNK_MASK) << 2;
    const first = fc[f];
    if (first === from) return;
    const last = fc[f | 1], tail = tc[t | 1];
    chunks[tail >>> CHUNK_BITS][(tail & CHUNK_MASK) << 2] = first;
    chunks[first >>> CHUNK_BITS][((first & CHUNK_MASK) << 2) | 1] = tail;
    chunks[last >>> CHUNK_BITS][(last & CHUNK_MASK) << 2] = to;
    tc[t | 1] = last;
    fc[f] = from;
    fc[f | 1] = from;
  }

  /** Doubles the first chunk (copying it) up to CHUNK slots, then adds whole chunks. */
  #grow(): void {
    const capacity = this.#capacity;
    if (capacity >= SLOT_SPAN) {
      throw new RangeError(`TimingWheel: more than ${SLOT_SPAN} entries and buckets`);
    }
    if (capacity < CHUNK) {
      const size = capacity * 2;
      const link = new Int32Array(size * 4);
      link.set(this.#link[0]);
      this.#link[0] = link;
      const callbacks = callbackChunk(size), old = this.#callbacks[0];
      for (let i = 0; i < old.length; i++) callbacks[i] = old[i];
      this.#callbacks[0] = callbacks;
      this.#capacity = size;
    } else {
      this.#link.push(new Int32Array(CHUNK * 4));
      this.#callbacks.push(callbackChunk(CHUNK));
      this.#capacity = capacity + CHUNK;
    }
  }
}

/**
 * Binary min-heap of bucket sentinels keyed by their expiry tick, keys kept beside the items.
 * Holds at most one item per bucket, so it never exceeds levels × wheelSize items.
 */
export class BucketHeap {
  #items = new Int32Array(64);
  #keys = new Float64Array(64);
  size = 0;

  /** The sentinel with the earliest expiry, or NIL. */
  peek(): number {
    return this.size === 0 ? NIL : this.#items[0];
  }

  /** The earliest expiry, or Infinity. */
  peekKey(): number {
    return this.size === 0 ? Infinity : this.#keys[0];
  }

  push(b: number, key: number): void {
    if (this.size === this.#items.length) {
      const items = new Int32Array(this.size * 2), keys = new Float64Array(this.size * 2);
      items.set(this.#items);
      keys.set(this.#keys);
      this.#items = items;
      this.#keys = keys;
    }
    const items = this.#items, keys = this.#keys;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent] <= key) break;
      items[i] = items[parent];
      keys[i] = keys[parent];
      i = parent;
    }
    items[i] = b;
    keys[i] = key;
  }

  pop(): number {
    if (this.size === 0) return NIL;
    const items = this.#items, keys = this.#keys;
    const top = items[0];
    const n = --this.size;
    const last = items[n], key = keys[n];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && keys[child + 1] < keys[child]) child++;
      if (keys[child] >= key) break;
      items[i] = items[child];
      keys[i] = keys[child];
      i = child;
    }
    if (n > 0) {
      items[i] = last;
      keys[i] = key;
    }
    return top;
  }
}
