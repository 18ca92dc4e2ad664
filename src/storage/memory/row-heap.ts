/**
 * @module row-heap — a binary min-heap of rows by two numbers (runAt or -priority, then seq),
 * the keys in typed arrays beside the rows: an entry is 24 bytes and no object, where an
 * `{ runAt, seq, id }` entry was an object per queued or delayed task for the collector to
 * trace. Entries are not removed when their row moves on: a reader checks the keys it popped
 * against the row (see task-table.ts) and skips stale ones.
 */
import type { Row } from "./row.ts";

export class RowHeap {
  #first = new Float64Array(64);
  #second = new Float64Array(64);
  #rows: (Row | undefined)[] = new Array(64).fill(undefined);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The earliest entry's row, first and second key (read with the heap non-empty). */
  topRow(): Row {
    return this.#rows[0]!;
  }

  topFirst(): number {
    return this.#first[0];
  }

  topSecond(): number {
    return this.#second[0];
  }

  push(row: Row, first: number, second: number): void {
    if (this.#size === this.#first.length) this.#grow();
    const f = this.#first, s = this.#second;
    let i = this.#size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (f[p] < first || (f[p] === first && s[p] <= second)) break;
      this.#copy(i, p);
      i = p;
    }
    this.#put(i, row, first, second);
  }

  /** Removes the earliest entry. */
  pop(): void {
    const n = --this.#size;
    const f = this.#first, s = this.#second;
    const first = f[n], second = s[n], row = this.#rows[n]!;
    this.#rows[n] = undefined;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      const r = c + 1;
      if (r < n && (f[r] < f[c] || (f[r] === f[c] && s[r] < s[c]))) c = r;
      if (first < f[c] || (first === f[c] && second <= s[c])) break;
      this.#copy(i, c);
      i = c;
    }
    this.#put(i, row, first, second);
  }

  /**
   * Calls `visit` with the entries whose first key is at most `upTo`, earliest first (by
   * first, then second key), until it returns false. It looks only at those entries and
   * their children, through a small heap of positions to look at next: the earliest k of n
   * entries cost O(k log k), not a pass over all n.
   */
  walk(upTo: number, visit: (row: Row, first: number, second: number) => boolean): void {
    const f = this.#first, s = this.#second, size = this.#size;
    const before = (a: number, b: number) => f[a] < f[b] || (f[a] === f[b] && s[a] < s[b]);
    const open: number[] = size > 0 ? [0] : [];
    while (open.length > 0) {
      const i = open[0];
      const last = open.pop()!;
      if (open.length > 0) siftDown(open, last, before);
      if (f[i] > upTo || !visit(this.#rows[i]!, f[i], s[i])) return;
      for (let c = 2 * i + 1; c <= 2 * i + 2 && c < size; c++) siftUp(open, c, before);
    }
  }

  #copy(to: number, from: number): void {
    this.#first[to] = this.#first[from];
    this.#second[to] = this.#second[from];
    this.#rows[to] = this.#rows[from];
  }

  #put(i: number, row: Row, first: number, second: number): void {
    this.#first[i] = first;
    this.#second[i] = second;
    this.#rows[i] = row;
  }

  #grow(): void {
    const n = this.#first.length * 2;
    const f = new Float64Array(n), s = new Float64Array(n);
    f.set(this.#first);
    s.set(this.#second);
    this.#first = f;
    this.#second = s;
    this.#rows.length = n;
    this.#rows.fill(undefined, this.#size);
  }
}

/** Adds position `p` to the heap of positions `open`, ordered by `before`. */
function siftUp(open: number[], p: number, before: (a: number, b: number) => boolean): void {
  let i = open.length;
  open.push(p);
  while (i > 0) {
    const up = (i - 1) >> 1;
    if (!before(p, open[up])) break;
    open[i] = open[up];
    i = up;
  }
  open[i] = p;
}

/** Puts `p` at the root of `open` (its old root taken out) and sinks it into place. */
function siftDown(open: number[], p: number, before: (a: number, b: number) => boolean): void {
  const n = open.length;
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(open[c + 1], open[c])) c++;
    if (!before(open[c], p)) break;
    open[i] = open[c];
    i = c;
  }
  open[i] = p;
}
