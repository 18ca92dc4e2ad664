/**
 * The embedded store's rows by id (storage/memory/row-index.ts): a young and an old Map, the
 * young one joining the old one as it grows; it answers every call as one Map does, before,
 * during and after those merges, for new rows and for rows set again, asked about first or not.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RowIndex } from "../../src/storage/memory/row-index.ts";
import { newId } from "../../src/core/ids.ts";
import { prng } from "../../scripts/tools/prng.ts";

describe("RowIndex", () => {
  it("answers a random run of sets, gets and deletes as a Map does, across its merges", () => {
    const random = prng(7);
    // Enough ids that the young Map joins the old one many times over the run.
    const pool = [
      ...Array.from({ length: 60_000 }, (_, i) => newId("", 1_700_000_000_000 + i)),
      ...Array.from({ length: 40 }, (_, i) => `order-${i}`),
      "a",
      "",
      "x".repeat(200),
    ];
    const index = new RowIndex<number>();
    const map = new Map<string, number>();
    // Mostly sets at first, so the store fills past several merges; then a mix.
    for (let step = 0; step < 160_000; step++) {
      const id = pool[Math.floor(random() * pool.length)];
      const op = random();
      const setShare = step < 80_000 ? 0.9 : 0.4;
      if (op < setShare) {
        // Half the sets ask first, as a submit does (the index remembers a miss for the set).
        if (op < setShare / 2) assert.equal(index.has(id), map.has(id), `has ${id} at ${step}`);
        assert.equal(index.set(id, step), index);
        map.set(id, step);
      } else if (op < setShare + 0.3) {
        assert.equal(index.delete(id), map.delete(id), `delete ${id} at step ${step}`);
      } else {
        assert.equal(index.get(id), map.get(id), `get ${id} at step ${step}`);
        assert.equal(index.has(id), map.has(id), `has ${id} at step ${step}`);
      }
      if (index.size !== map.size) assert.equal(index.size, map.size, `size at step ${step}`);
    }
    const sorted = <T>(xs: Iterable<T>) => [...xs].sort();
    assert.deepEqual(sorted(index.keys()), sorted(map.keys()));
    assert.deepEqual(sorted(index.values()), sorted(map.values()));
    assert.deepEqual(new Map(index), map);
    const seen = new Map<string, number>();
    index.forEach((value, id) => seen.set(id, value));
    assert.deepEqual(seen, map);
  });
});
