/**
 * @module suite-pools — priorities, pool independence, concurrency bounds, scaling, pause.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, TOGETHER } from "./harness.ts";
import { gate } from "../../scripts/tools/wait.ts";
import { poolLimitsSuite } from "./suite-pool-limits.ts";

export function poolsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: priorities and pools`, () => {
    it("runs higher priority first, FIFO among equals (one busy worker, then 1, 10, 5, 20, 2)", async () => {
      const h = await harness(factory, { pools: { default: 1 } });
      try {
        const order: number[] = [];
        const hold = gate();
        h.s.register("block", () => hold.promise);
        h.s.register("p", (payload: { p: number; n?: number }) => {
          order.push(payload.n ?? payload.p);
        });
        const blocker = await h.s.submit({ type: "block" });
        await h.until(blocker, "running");
        // Priority and FIFO order one partition's queue: the tasks share one.
        for (const p of [1, 10, 5, 20, 2]) {
          await h.s.submit({ type: "p", priority: p, payload: { p }, ...TOGETHER });
        }
        for (const n of [100, 101, 102]) {
          await h.s.submit({ type: "p", priority: 3, payload: { p: 3, n }, ...TOGETHER });
        }
        hold.open();
        await h.eventually(() => order.length === 8, "all eight to run");
        assert.deepEqual(order, [20, 10, 5, 100, 101, 102, 2, 1]);
      } finally {
        await h.close();
      }
    });

    it("never exceeds a pool's size, and a busy or zero-sized pool never delays another", async () => {
      const h = await harness(factory, { pools: { default: 3, critical: 2, off: 0 } });
      try {
        const hold = gate();
        let running = 0;
        let peak = 0;
        h.s.register("busy", async () => {
          peak = Math.max(peak, ++running);
          await hold.promise;
          running--;
        });
        h.s.register("urgent", () => "done");
        const busy = [];
        for (let i = 0; i < 10; i++) busy.push(await h.s.submit({ type: "busy" }));
        const stuck = await h.s.submit({ type: "urgent", pool: "off" });
        const urgent = await h.s.submit({ type: "urgent", pool: "critical" });
        await h.until(urgent, "succeeded");
        await h.eventually(() => running === 3, "default pool full");
        assert.equal(peak, 3);
        const stats = await h.s.stats();
        assert.equal(stats.pools.default.running, 3);
        assert.equal(stats.pools.default.queued, 7);
        assert.equal(stats.pools.default.size, 3);
        assert.equal((await h.s.get(stuck))?.status, "queued");
        hold.open();
        for (const id of busy) await h.until(id, "succeeded");
        assert.equal(peak, 3);
      } finally {
        await h.close();
      }
    });

    it("a large pool (claimed through two lanes) fills every slot, never more, again after a lull", async () => {
      const h = await harness(factory, { pools: { default: 21 } });
      try {
        let hold = gate();
        let running = 0;
        let peak = 0;
        h.s.register("busy", async () => {
          peak = Math.max(peak, ++running);
          await hold.promise;
          running--;
        });
        for (let round = 1; round <= 2; round++) {
          const ids = [];
          for (let i = 0; i < 30; i++) ids.push(await h.s.submit({ type: "busy" }));
          await h.eventually(() => running === 21, `round ${round}: all 21 slots busy`);
          const stats = await h.s.stats();
          assert.equal(stats.pools.default.running, 21);
          assert.equal(stats.pools.default.queued, 9);
          hold.open();
          for (const id of ids) await h.until(id, "succeeded");
          assert.equal(peak, 21);
          hold = gate();
        }
      } finally {
        await h.close();
      }
    });

    it("scalePool grows and shrinks a pool live", async () => {
      const h = await harness(factory, { pools: { default: 1 } });
      try {
        const holds: (() => void)[] = [];
        let running = 0;
        h.s.register("w", () => {
          running++;
          return new Promise<void>((r) => holds.push(() => (running--, r())));
        });
        for (let i = 0; i < 6; i++) await h.s.submit({ type: "w" });
        await h.eventually(() => running === 1, "one running");
        await h.s.scalePool("default", 4);
        await h.eventually(() => running === 4, "four running after growing");
        await h.s.scalePool("default", 2);
        holds.splice(0).forEach((release) => release());
        await h.eventually(() => running === 2, "two running after shrinking");
        assert.equal((await h.s.stats()).pools.default.size, 2);
        await assert.rejects(h.s.scalePool("default", -1), /concurrency: must be an integer/);
        holds.splice(0).forEach((release) => release());
      } finally {
        await h.close();
      }
    });

    it("pause and resume work for one pool and for all pools", async () => {
      const h = await harness(factory, { pools: { default: 2, critical: 2 } });
      try {
        h.s.register("t", () => "ok");
        await h.s.pause("critical");
        const c1 = await h.s.submit({ type: "t", pool: "critical" });
        const d1 = await h.s.submit({ type: "t" });
        await h.until(d1, "succeeded");
        await h.clock.advance(2_000);
        assert.equal((await h.s.get(c1))?.status, "queued", "paused pool does not run");
        assert.equal((await h.s.stats()).pools.critical.paused, true);
        await h.s.resume("critical");
        await h.until(c1, "succeeded");
        await h.s.pause();
        const d2 = await h.s.submit({ type: "t" });
        const c2 = await h.s.submit({ type: "t", pool: "critical" });
        await h.clock.advance(2_000);
        assert.equal((await h.s.get(d2))?.status, "queued");
        assert.equal((await h.s.get(c2))?.status, "queued");
        await h.s.resume();
        await h.until(d2, "succeeded");
        await h.until(c2, "succeeded");
      } finally {
        await h.close();
      }
    });
  });
  poolLimitsSuite(backend, factory);
}
