/**
 * @module row-index — the embedded store's rows by id, as a Map would hold them, in chunks
 * of ids that share their first eight characters. Generated ids start with their creation
 * time (ids.ts), so new rows go into one small chunk while the older ones are left alone.
 * That matters to the garbage collector: a Map that gains a new row is scanned whole at the
 * next young collection, and one of every row made that scan grow with the store
 * (docs/BENCHMARKS.md, "A store that grows").
 */

/** Characters of an id that choose its chunk: 8 of a generated id are ~36 ms of ids. */
const CHUNK_CHARS = 8;

/** The chunk of `id`: its first characters, 6 bits each (ids that collide share a chunk). */
function chunkOf(id: string): number {
  let key = 0;
  const n = id.length < CHUNK_CHARS ? id.length : CHUNK_CHARS;
  for (let i = 0; i < n; i++) key = key * 64 + (id.charCodeAt(i) & 63);
  return key * 16 + n;
}

export class RowIndex<V> implements ReadonlyMap<string, V> {
  readonly #chunks = new Map<number, Map<string, V>>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(id: string): V | undefined {
    return this.#chunks.get(chunkOf(id))?.get(id);
  }

  has(id: string): boolean {
    return this.#chunks.get(chunkOf(id))?.has(id) ?? false;
  }

  set(id: string, value: V): this {
    const key = chunkOf(id);
    let chunk = this.#chunks.get(key);
    if (!chunk) this.#chunks.set(key, chunk = new Map());
    const before = chunk.size;
    chunk.set(id, value);
    this.#size += chunk.size - before;
    return this;
  }

  delete(id: string): boolean {
    const key = chunkOf(id);
    const chunk = this.#chunks.get(key);
    if (!chunk?.delete(id)) return false;
    this.#size--;
    if (chunk.size === 0) this.#chunks.delete(key);
    return true;
  }

  *values(): MapIterator<V> {
    for (const chunk of this.#chunks.values()) yield* chunk.values();
  }

  *keys(): MapIterator<string> {
    for (const chunk of this.#chunks.values()) yield* chunk.keys();
  }

  *entries(): MapIterator<[string, V]> {
    for (const chunk of this.#chunks.values()) yield* chunk.entries();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, id: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [id, value] of this.entries()) fn(value, id, this);
  }
}
