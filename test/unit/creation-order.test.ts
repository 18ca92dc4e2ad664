/**
 * The embedded store's rows in creation order (storage/memory/creation-order.ts): a listing's
 * walk back from a cursor sees exactly the rows a sort of every live row would, through
 * removals, the compaction of their holes, and a row added out of order.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CreationOrder } from "../../src/storage/memory/creation-order.ts";
import type { Row } from "../../src/storage/memory/row.ts";
import { prng } from "../../scripts/tools/prng.ts";

const rowOf = (order: number) => ({ id: `r${order}`, order }) as unknown as Row;

describe("CreationOrder", () => {
  it("walks the live rows newest first from any cursor, and all oldest first, through removals and compactions", () => {
    const random = prng(11);
    const list = new CreationOrder();
    const live = new Map<number, Row>();
    let next = 0;
    const check = (before: number) => {
      const want = [...live.values()].filter((r) => r.order < before)
        .sort((a, b) => b.order - a.order);
      assert.deepEqual([...list.newestFirst(before)], want, `before ${before}`);
      if (before === Infinity) assert.deepEqual([...list.oldestFirst()], want.toReversed());
    };
    for (let step = 0; step < 20_000; step++) {
      if (random() < 0.55 || live.size === 0) {
        // Orders only grow, but now and then one is added below the newest.
        next += 1 + Math.floor(random() * 3);
        const order = random() < 0.01 && next > 10 ? next - 1 - Math.floor(random() * 5) : next;
        if (live.has(order)) continue;
        const row = rowOf(order);
        list.add(row);
        live.set(order, row);
      } else {
        // Mostly the oldest, as retention prunes; sometimes any.
        const orders = [...live.keys()];
        const order = random() < 0.8
          ? Math.min(...orders.slice(0, 50))
          : orders[Math.floor(random() * orders.length)];
        list.remove(live.get(order)!);
        live.delete(order);
      }
      if (step % 2_000 === 0) {
        for (const before of [Infinity, next / 2, next - 3, 0]) check(before);
      }
    }
    for (const before of [Infinity, next / 3, next + 1]) check(before);
    // A row removed twice, or never added, changes nothing.
    const gone = rowOf(-5);
    list.remove(gone);
    check(Infinity);
  });
});
