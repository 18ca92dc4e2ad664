/**
 * @module suite-call-order — one store call decides as if its steps ran one after the other:
 * a submit batch that changes a flow key's limits twice, a claim whose expiries queue new
 * work ahead of what it read. Found by the differential test (test/unit/redis-differential).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0 } from "./harness.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import type { FlowControl } from "../../src/core/task.ts";

const owner = { workerId: "w", leaseMs: 60_000 };

const fc = (parallelism: number | null, rate: number, periodMs: number): FlowControl => ({
  key: "batch",
  parallelism,
  rate,
  periodMs,
});

export function callOrderSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: one call, its steps in order`, () => {
    it("a batch whose last task shortens the key's period starts its rate-parked tasks", async () => {
      const h = await harness(factory, { start: false });
      try {
        const tasks = Array.from({ length: 4 }, (_, i) =>
          newTask(`r${i}`, T0, {
            flowControl: fc(null, 2, 1_000),
          }));
        await h.storage.enqueue({ tasks, now: T0 });
        const first = await h.storage.claim({ pool: "default", max: 10, owner, now: T0 });
        assert.deepEqual(first.map((t) => t.id), ["r0", "r1"]);
        assert.equal((await h.storage.get("r2"))?.waitingFor, "rate");
        // Half a second on, the first task of the batch keeps the 1 s period (no token
        // free); the second shortens it to 400 ms: both starts left the window.
        const now = T0 + 500;
        await h.storage.enqueue({
          tasks: [
            newTask("x", now, { flowControl: fc(null, 2, 1_000) }),
            newTask("y", now, { flowControl: fc(null, 2, 400) }),
          ],
          now,
        });
        for (const id of ["r2", "r3"]) {
          assert.equal((await h.storage.get(id))?.waitingFor, null, `${id} is no longer parked`);
        }
        const next = await h.storage.claim({ pool: "default", max: 10, owner, now });
        assert.deepEqual(next.map((t) => t.id), ["r2", "r3"]);
      } finally {
        await h.close();
      }
    });

    it("a batch whose last task lowers the key's rate moves back only what the new rate allows", async () => {
      const h = await harness(factory, { start: false });
      try {
        const tasks = Array.from({ length: 6 }, (_, i) =>
          newTask(`p${i}`, T0, {
            flowControl: fc(1, 5, 1_000),
          }));
        await h.storage.enqueue({ tasks, now: T0 });
        const first = await h.storage.claim({ pool: "default", max: 10, owner, now: T0 });
        assert.deepEqual(first.map((t) => t.id), ["p0"]);
        // The first task of the batch raises parallelism to 3 (two parked tasks go back);
        // the second raises it to 4 but lowers the rate to 2 (one start logged: one more).
        const now = T0 + 1;
        await h.storage.enqueue({
          tasks: [
            newTask("x", now, { flowControl: fc(3, 5, 1_000) }),
            newTask("y", now, { flowControl: fc(4, 2, 1_000) }),
          ],
          now,
        });
        const waits = [];
        for (const id of ["p1", "p2", "p3", "p4", "p5"]) {
          waits.push((await h.storage.get(id))?.waitingFor);
        }
        assert.deepEqual(waits, [null, null, null, "parallelism", "parallelism"]);
        const stats = await h.storage.stats();
        assert.deepEqual(
          stats.flowKeys.map(({ key, running, parked }) => ({ key, running, parked })),
          [
            { key: "batch", running: 1, parked: 2 },
          ],
        );
      } finally {
        await h.close();
      }
    });

    it("a claim that expires a task takes the child its expiry queued", async () => {
      const h = await harness(factory, { start: false });
      try {
        await h.storage.enqueue({
          tasks: [
            newTask("late", T0, { expiresAt: T0 + 100 }),
            newTask("rescue", T0, { onFailureOf: "late" }),
          ],
          now: T0,
        });
        const claimed = await h.storage.claim({ pool: "default", max: 2, owner, now: T0 + 200 });
        assert.equal((await h.storage.get("late"))?.status, "expired");
        assert.deepEqual(claimed.map((t) => t.id), ["rescue"]);
      } finally {
        await h.close();
      }
    });

    it("a claim takes the child its expiry queued in priority order, before what it read", async () => {
      const h = await harness(factory, { start: false });
      try {
        // One slot for the key: whichever of `rescue` and `low` is taken first runs.
        const slot = { key: "one", parallelism: 1, rate: null, periodMs: null };
        await h.storage.enqueue({
          tasks: [
            newTask("late", T0, { priority: 1, expiresAt: T0 + 100 }),
            newTask("low", T0, { flowControl: slot }),
            newTask("also", T0),
            newTask("rescue", T0, { priority: 2, onFailureOf: "late", flowControl: slot }),
          ],
          now: T0,
        });
        const claimed = await h.storage.claim({ pool: "default", max: 2, owner, now: T0 + 200 });
        assert.deepEqual(claimed.map((t) => t.id), ["rescue", "also"]);
        assert.equal((await h.storage.get("low"))?.waitingFor, "parallelism");
      } finally {
        await h.close();
      }
    });
  });
}
