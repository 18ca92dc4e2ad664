/**
 * The embedded store's rows by id (storage/memory/row-index.ts): chunked by the ids' first
 * characters, it answers every call as one Map does, whatever the ids look like: generated
 * ones, short ones, ones whose first characters share a chunk.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RowIndex } from "../../src/storage/memory/row-index.ts";
import { newId } from "../../src/core/ids.ts";
import { prng } from "../../scripts/tools/prng.ts";

describe("RowIndex", () => {
  it("answers a random run of sets, gets and deletes as a Map does", () => {
    const random = prng(7);
    // '0' and 'p' share their low 6 bits: ids that differ only there share a chunk.
    const pool = [
      ...Array.from({ length: 300 }, (_, i) => newId("", 1_700_000_000_000 + i * 7)),
      ...Array.from({ length: 40 }, (_, i) => `order-${i}`),
      ...Array.from({ length: 40 }, (_, i) => `${i % 2 ? "0" : "p"}abcdefg-${i % 5}`),
      "a",
      "ab",
      "",
      "x".repeat(200),
    ];
    const index = new RowIndex<number>();
    const map = new Map<string, number>();
    for (let step = 0; step < 20_000; step++) {
      const id = pool[Math.floor(random() * pool.length)];
      const op = random();
      if (op < 0.45) {
        assert.equal(index.set(id, step), index);
        map.set(id, step);
      } else if (op < 0.75) {
        assert.equal(index.delete(id), map.delete(id), `delete ${id} at step ${step}`);
      } else {
        assert.equal(index.get(id), map.get(id), `get ${id} at step ${step}`);
        assert.equal(index.has(id), map.has(id), `has ${id} at step ${step}`);
      }
      assert.equal(index.size, map.size, `size at step ${step}`);
    }
    const sorted = <T>(xs: Iterable<T>) => [...xs].sort();
    assert.deepEqual(sorted(index.keys()), sorted(map.keys()));
    assert.deepEqual(sorted(index.values()), sorted(map.values()));
    assert.deepEqual(new Map(index), map);
    const seen = new Map<string, number>();
    index.forEach((value, id) => seen.set(id, value));
    assert.deepEqual(seen, map);
  });

  it("keeps ids made in one stretch of time together and newer ones apart", () => {
    // Not observable through the Map interface: what it is for is that writing new rows
    // touches only a young chunk. The entries come back in chunk order, oldest first.
    const index = new RowIndex<string>();
    const old = Array.from({ length: 50 }, () => newId("", 1_700_000_000_000));
    const young = Array.from({ length: 50 }, () => newId("", 1_700_000_900_000));
    for (let i = 0; i < 50; i++) {
      index.set(young[i], "young");
      index.set(old[i], "old");
    }
    const order = [...index.values()];
    assert.deepEqual(order, [...Array(50).fill("young"), ...Array(50).fill("old")]);
  });
});
