/**
 * @module suite-call-order — one store call decides as if its steps ran one after the other:
 * a submit batch that changes a flow key's limits twice, a claim whose expiries queue new
 * work ahead of what it read. Found by the differential test (test/unit/redis-differential).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type StorageFactory, T0 } from "./harness.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import type { FlowControl } from "../../src/core/task.ts";
import type { Storage } from "../../src/storage/storage.ts";

const owner = { workerId: "w", leaseMs: 60_000 };
const pool = "default";

const fc = (parallelism: number | null, rate: number, periodMs: number): FlowControl => ({
  key: "batch",
  parallelism,
  rate,
  periodMs,
});

const waits = async (s: Storage, ids: string[]) =>
  await Promise.all(ids.map(async (id) => (await s.get(id))?.waitingFor));

export function callOrderSuite(backend: string, factory: StorageFactory): void {
  /** A scenario on a fresh store, driven directly: no worker claims behind the test's back. */
  const scenario = (name: string, body: (s: Storage) => Promise<void>) =>
    it(name, async () => {
      const { storage, dispose } = await factory();
      try {
        await body(storage);
      } finally {
        await dispose();
      }
    });

  describe(`${backend}: one call, its steps in order`, () => {
    scenario(
      "a batch whose last task shortens the key's period starts its rate-parked tasks",
      async (s) => {
        const tasks = ["r0", "r1", "r2", "r3"].map((id) =>
          newTask(id, T0, { flowControl: fc(null, 2, 1_000) })
        );
        await s.enqueue({ tasks, now: T0 });
        const first = await s.claim({ pool, max: 10, owner, now: T0 });
        assert.deepEqual(first.map((t) => t.id), ["r0", "r1"]);
        assert.deepEqual(await waits(s, ["r2", "r3"]), ["rate", "rate"]);
        // Half a second on, the batch's first task keeps the 1 s period (no token free); its
        // second shortens it to 400 ms: both starts have left the window.
        const now = T0 + 500;
        await s.enqueue({
          tasks: [
            newTask("x", now, { flowControl: fc(null, 2, 1_000) }),
            newTask("y", now, { flowControl: fc(null, 2, 400) }),
          ],
          now,
        });
        assert.deepEqual(await waits(s, ["r2", "r3"]), [null, null], "no longer parked");
        const next = await s.claim({ pool, max: 10, owner, now });
        assert.deepEqual(next.map((t) => t.id), ["r2", "r3"]);
      },
    );

    scenario(
      "a batch whose last task lowers the key's rate moves back only what it allows",
      async (s) => {
        const ids = ["p0", "p1", "p2", "p3", "p4", "p5"];
        const tasks = ids.map((id) => newTask(id, T0, { flowControl: fc(1, 5, 1_000) }));
        await s.enqueue({ tasks, now: T0 });
        const first = await s.claim({ pool, max: 10, owner, now: T0 });
        assert.deepEqual(first.map((t) => t.id), ["p0"]);
        // The batch's first task raises parallelism to 3 (two parked tasks go back); its
        // second raises it to 4 but lowers the rate to 2 (one start logged: one more).
        const now = T0 + 1;
        await s.enqueue({
          tasks: [
            newTask("x", now, { flowControl: fc(3, 5, 1_000) }),
            newTask("y", now, { flowControl: fc(4, 2, 1_000) }),
          ],
          now,
        });
        const parked = ["parallelism", "parallelism"];
        assert.deepEqual(await waits(s, ids.slice(1)), [null, null, null, ...parked]);
        const { flowKeys } = await s.stats();
        assert.deepEqual(flowKeys.map(({ key, running, parked }) => ({ key, running, parked })), [
          { key: "batch", running: 1, parked: 2 },
        ]);
      },
    );

    scenario("a claim that expires a task takes the child its expiry queued", async (s) => {
      await s.enqueue({
        tasks: [
          newTask("late", T0, { expiresAt: T0 + 100 }),
          newTask("rescue", T0, { onFailureOf: "late" }),
        ],
        now: T0,
      });
      const claimed = await s.claim({ pool, max: 2, owner, now: T0 + 200 });
      assert.equal((await s.get("late"))?.status, "expired");
      assert.deepEqual(claimed.map((t) => t.id), ["rescue"]);
    });

    scenario(
      "a claim takes the child its expiry queued in priority order, before what it read",
      async (s) => {
        // One slot for the key: whichever of `rescue` and `low` is taken first runs.
        const slot = { key: "one", parallelism: 1, rate: null, periodMs: null };
        await s.enqueue({
          tasks: [
            newTask("late", T0, { priority: 1, expiresAt: T0 + 100 }),
            newTask("low", T0, { flowControl: slot }),
            newTask("also", T0),
            newTask("rescue", T0, { priority: 2, onFailureOf: "late", flowControl: slot }),
          ],
          now: T0,
        });
        const claimed = await s.claim({ pool, max: 2, owner, now: T0 + 200 });
        assert.deepEqual(claimed.map((t) => t.id), ["rescue", "also"]);
        assert.equal((await s.get("low"))?.waitingFor, "parallelism");
      },
    );
  });
}
