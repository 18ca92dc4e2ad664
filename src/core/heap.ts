/**
 * @module heap — a binary min-heap over an array, ordered by a comparator.
 */

/**
 * A binary min-heap. `less(a, b)` is true when `a` must come out before `b`.
 *
 * @example
 * const h = new Heap<number>((a, b) => a < b);
 * h.push(3); h.push(1); h.pop(); // 1
 */
export class Heap<T> {
  #items: T[] = [];
  readonly #less: (a: T, b: T) => boolean;

  constructor(less: (a: T, b: T) => boolean) {
    this.#less = less;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.#items;
    if (items.length === 0) return undefined;
    const top = items[0];
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      this.#siftDown(0);
    }
    return top;
  }

  /** Drops every item for which `keep` is false (O(n)); used to compact lazy deletions. */
  filter(keep: (item: T) => boolean): void {
    this.#items = this.#items.filter(keep);
    for (let i = (this.#items.length >> 1) - 1; i >= 0; i--) this.#siftDown(i);
  }

  #siftDown(i: number): void {
    const items = this.#items;
    const n = items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < n && this.#less(items[l], items[best])) best = l;
      if (r < n && this.#less(items[r], items[best])) best = r;
      if (best === i) return;
      [items[i], items[best]] = [items[best], items[i]];
      i = best;
    }
  }
}
