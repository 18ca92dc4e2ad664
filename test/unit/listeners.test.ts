/**
 * A store's local subscribers (storage/listeners.ts): the events of one burst are delivered
 * together on a microtask, a pool's `ready` once per burst, and again in every later burst.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Listeners } from "../../src/storage/listeners.ts";
import type { StorageEvent } from "../../src/storage/types.ts";

const tick = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe("Listeners", () => {
  it("delivers a pool's ready once per burst, and in each burst after", async () => {
    const listeners = new Listeners();
    const got: StorageEvent[][] = [];
    let burst: StorageEvent[] = [];
    listeners.add((event) => burst.push(event));
    const settle = async () => {
      await tick();
      got.push(burst);
      burst = [];
    };
    for (let i = 0; i < 3; i++) {
      listeners.emit({ kind: "ready", pool: "a" });
      listeners.emit({ kind: "ready", pool: "b" });
      listeners.emit({ kind: "ready", pool: "a" });
      listeners.emit({ kind: "delayed", id: `t${i}`, runAt: 5 });
      await settle();
    }
    const one = (i: number): StorageEvent[] => [
      { kind: "ready", pool: "a" },
      { kind: "ready", pool: "b" },
      { kind: "delayed", id: `t${i}`, runAt: 5 },
    ];
    assert.deepEqual(got, [one(0), one(1), one(2)]);

    // A burst of more pools than it remembers; each pool's ready still comes once a burst.
    const pools = Array.from({ length: 2_000 }, (_, i) => `p${i}`);
    for (let round = 0; round < 2; round++) {
      for (const pool of [...pools, ...pools]) listeners.emit({ kind: "ready", pool });
      await settle();
      assert.deepEqual(got.at(-1), pools.map((pool) => ({ kind: "ready", pool })));
    }
  });
});
