/**
 * The embedded store's heaps of rows (storage/memory/row-heap.ts): `walk` hands out the
 * entries up to a key in the order popping would, stale ones included for the reader to skip,
 * and stops when told to, which is how a look-ahead scan reads the earliest delayed rows.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RowHeap } from "../../src/storage/memory/row-heap.ts";
import type { Row } from "../../src/storage/memory/row.ts";
import { prng } from "../../scripts/tools/prng.ts";

interface Entry {
  row: Row;
  first: number;
  second: number;
}

/** A heap of `n` entries with keys drawn from few values (many ties on the first key). */
function filled(n: number, seed: number): { heap: RowHeap; entries: Entry[] } {
  const random = prng(seed);
  const heap = new RowHeap();
  const entries: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const e = {
      row: { id: `r${i}` } as unknown as Row,
      first: Math.floor(random() * 500),
      second: i,
    };
    entries.push(e);
    heap.push(e.row, e.first, e.second);
  }
  return { heap, entries };
}

const earliest = (a: Entry, b: Entry) => a.first - b.first || a.second - b.second;

describe("RowHeap.walk", () => {
  it("visits the entries up to a key earliest first, skipping none, and stops when told", () => {
    for (
      const [n, upTo, limit] of [[0, 10, 5], [1, 0, 5], [5_000, 120, 50], [5_000, 499, 10_000]]
    ) {
      const { heap, entries } = filled(n, n + upTo);
      // Every third row is stale: a reader skips it, and it still counts as visited.
      const live = (e: { second: number }) => e.second % 3 !== 0;
      const want = entries.filter((e) => e.first <= upTo).sort(earliest).filter(live)
        .slice(0, limit).map((e) => e.row);
      const got: Row[] = [];
      const visited: number[] = [];
      heap.walk(upTo, (row, first, second) => {
        visited.push(first);
        if (live({ second })) got.push(row);
        return got.length < limit;
      });
      assert.deepEqual(got, want, `n ${n}, up to ${upTo}, limit ${limit}`);
      assert.ok(visited.every((f, i) => f <= upTo && (i === 0 || visited[i - 1] <= f)));
      assert.equal(heap.size, n, "walking removes nothing");
    }
  });

  it("reads only as far as it is asked: the earliest ten of 100,000 in a few visits", () => {
    const { heap } = filled(100_000, 3);
    let visits = 0;
    heap.walk(Infinity, () => ++visits < 10);
    assert.equal(visits, 10);
  });
});
