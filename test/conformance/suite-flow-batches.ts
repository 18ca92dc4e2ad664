/**
 * @module suite-flow-batches — flow control keys inside one store call: a submit batch that
 * changes a key's limits twice, and a claim whose expiries queue new work. Each call must
 * decide as if its steps ran one after the other (found by the differential test).
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

export function flowBatchesSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: flow control within one call`, () => {
    it("a batch whose last task shortens the key's period starts its rate-parked tasks", async () => {
      const h = await harness(factory, { start: false });
      try {
        const tasks = Array.from({ length: 4 }, (_, i) => newTask(`r${i}`, T0, {
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
        const tasks = Array.from({ length: 6 }, (_, i) => newTask(`p${i}`, T0, {
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
        assert.deepEqual(stats.flowKeys.map(({ key, running, parked }) => ({ key, running, parked })), [
          { key: "batch", running: 1, parked: 2 },
        ]);
      } finally {
        await h.close();
      }
    });
  });
}
