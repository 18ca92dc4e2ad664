/**
 * @module row-index — the embedded store's rows by id, as a Map would hold them, in two
 * Maps: new rows go into a young one, which joins the old one once it holds an eighth as
 * many. That matters to the garbage collector: a Map that gains a new row is scanned whole
 * at the next young collection, and one Map of every row made that scan, and so each
 * submit, cost more the more tasks the store held (docs/BENCHMARKS.md, "A store that
 * grows"). The old Map is written to only when the young one joins it.
 */

/** The young Map joins the old one at this size at least, and at an eighth of the old one. */
const MIN_YOUNG = 16_384;

export class RowIndex<V> implements ReadonlyMap<string, V> {
  #old = new Map<string, V>();
  #young = new Map<string, V>();
  /**
   * The id the last `has` found in neither Map, until the next `set` (a delete cannot make it
   * present): a submit asks `has` and then sets the same id, and this spares the set a
   * second look into the old Map.
   */
  #absent: string | null = null;

  get size(): number {
    return this.#old.size + this.#young.size;
  }

  get(id: string): V | undefined {
    return this.#young.get(id) ?? this.#old.get(id);
  }

  has(id: string): boolean {
    if (this.#young.has(id) || this.#old.has(id)) return true;
    this.#absent = id;
    return false;
  }

  set(id: string, value: V): this {
    const absent = this.#absent === id;
    this.#absent = null;
    if (!absent && this.#old.has(id)) {
      this.#old.set(id, value);
      return this;
    }
    const young = this.#young;
    young.set(id, value);
    if (young.size >= MIN_YOUNG && young.size * 8 >= this.#old.size) {
      const old = this.#old;
      for (const [k, v] of young) old.set(k, v);
      // A new Map, not clear(): the young one's table goes with it.
      this.#young = new Map();
    }
    return this;
  }

  delete(id: string): boolean {
    return this.#young.delete(id) || this.#old.delete(id);
  }

  *values(): MapIterator<V> {
    yield* this.#old.values();
    yield* this.#young.values();
  }

  *keys(): MapIterator<string> {
    yield* this.#old.keys();
    yield* this.#young.keys();
  }

  *entries(): MapIterator<[string, V]> {
    yield* this.#old.entries();
    yield* this.#young.entries();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, id: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [id, value] of this.entries()) fn(value, id, this);
  }
}
