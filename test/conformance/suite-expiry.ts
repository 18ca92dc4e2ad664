/**
 * @module suite-expiry — `expiresIn` / `expiresAt`: a task not started by then ends
 * `expired` (queued in a paused pool, delayed or retrying past it, waiting on parents), on
 * time, and never runs late; a running task is not affected; workflows treat `expired` like
 * `dead`; expired tasks are counted, listed and resubmittable.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0, TOGETHER } from "./harness.ts";
import type { Harness } from "./harness.ts";

/** Starts of type `job`, by payload. */
function recordRuns(h: Harness): unknown[] {
  const runs: unknown[] = [];
  h.s.register("job", (payload) => {
    runs.push(payload);
    return "ok";
  });
  return runs;
}

export function expirySuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: expiry`, () => {
    it("expires a task queued in a paused pool at its time, not before", async () => {
      const h = await harness(factory);
      try {
        const runs = recordRuns(h);
        await h.s.pause("default");
        const id = await h.s.submit({ type: "job", payload: 1, expiresIn: 500 });
        const queued = await h.s.get(id);
        assert.equal(queued?.expiresAt, T0 + 500);
        await h.clock.advance(499);
        assert.equal((await h.s.get(id))?.status, "queued", "not before its expiry");
        await h.clock.advance(1);
        // The duty fires on the wheel at the expiry: the clock stays where it is.
        const t = await h.until(id, "expired");
        assert.equal(h.clock.now(), T0 + 500);
        assert.deepEqual([t.attempt, t.finishedAt, t.startedAt], [0, T0 + 500, null]);
        await h.s.resume("default");
        await h.clock.advance(1000);
        assert.deepEqual(runs, [], "an expired task never runs");
        assert.deepEqual((await h.s.history({ taskId: id })).items, [], "no attempt of its own");
      } finally {
        await h.close();
      }
    });

    it("never claims an expired task, even when the expiry duty has not run", async () => {
      const h = await harness(factory, { start: false });
      try {
        // In one queue (one partition of a partitioned store), in this order.
        const late = await h.s.submit({
          type: "job",
          payload: "late",
          expiresIn: 100,
          ...TOGETHER,
        });
        const fresh = await h.s.submit({
          type: "job",
          payload: "fresh",
          expiresIn: 10_000,
          ...TOGETHER,
        });
        const none = await h.s.submit({ type: "job", payload: "none", ...TOGETHER });
        // No worker: the store's claim alone meets the expired task first.
        const owner = { workerId: "w1", leaseMs: 30_000 };
        const claimed = await h.storage.claim({ pool: "default", max: 2, owner, now: T0 + 100 });
        assert.deepEqual(claimed.map((t) => t.id), [fresh, none], "the next ones are taken");
        assert.equal(claimed[0].expiresAt, T0 + 10_000);
        const t = await h.s.get(late);
        assert.deepEqual([t?.status, t?.attempt, t?.finishedAt], ["expired", 0, T0 + 100]);
        const stats = await h.s.stats();
        assert.equal(stats.byStatus.expired, 1);
        assert.equal(stats.totals.expired, 1);
      } finally {
        await h.close();
      }
    });

    it("starts workers after the expiry: the expired task never runs", async () => {
      const h = await harness(factory, { start: false });
      try {
        const runs = recordRuns(h);
        const late = await h.s.submit({ type: "job", payload: "late", expiresIn: 100 });
        const ok = await h.s.submit({ type: "job", payload: "ok" });
        await h.clock.advance(100);
        await h.s.start();
        await h.until(ok, "succeeded");
        assert.equal((await h.until(late, "expired")).attempt, 0);
        assert.deepEqual(runs, ["ok"]);
      } finally {
        await h.close();
      }
    });

    it("expires a retrying task whose next attempt would start after its expiry", async () => {
      const h = await harness(factory);
      try {
        let calls = 0;
        h.s.register("flaky", () => {
          calls++;
          throw new Error("boom");
        });
        const id = await h.s.submit({
          type: "flaky",
          maxRetries: 3,
          backoff: { type: "fixed", delay: 1000 },
          expiresIn: 500,
        });
        const retrying = await h.until(id, "retrying");
        assert.equal(retrying.runAt, T0 + 1000);
        await h.clock.advance(499);
        assert.equal((await h.s.get(id))?.status, "retrying");
        await h.clock.advance(1);
        const t = await h.until(id, "expired");
        assert.deepEqual([t.attempt, t.error?.message], [1, "boom"], "its earlier attempt stays");
        await h.clock.advance(1000);
        assert.equal(calls, 1, "never retried after its expiry");
        const history = (await h.s.history({ taskId: id })).items;
        assert.deepEqual(history.map((a) => a.status), ["retrying"], "no attempt for the expiry");
      } finally {
        await h.close();
      }
    });

    it("expires a delayed task whose runAt is after its expiry", async () => {
      const h = await harness(factory);
      try {
        const runs = recordRuns(h);
        const expiresAt = new Date(T0 + 300).toISOString();
        const id = await h.s.submit({ type: "job", delay: 1000, expiresAt });
        await h.clock.advance(299);
        assert.equal((await h.s.get(id))?.status, "scheduled");
        await h.clock.advance(1);
        await h.until(id, "expired");
        await h.clock.advance(1000);
        assert.deepEqual(runs, []);
        assert.equal((await h.s.get(id))?.status, "expired");
      } finally {
        await h.close();
      }
    });

    it("leaves a running task alone when its expiry passes", async () => {
      const h = await harness(factory);
      try {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        h.s.register("slow", async () => {
          await released;
          return "done";
        });
        const id = await h.s.submit({ type: "slow", expiresIn: 100 });
        await h.until(id, "running");
        await h.clock.advance(500);
        assert.equal((await h.s.get(id))?.status, "running");
        release();
        const t = await h.until(id, "succeeded");
        assert.equal(t.result, "done");
        assert.equal((await h.s.stats()).totals.expired, 0);
      } finally {
        await h.close();
      }
    });

    it("settles workflow children as for dead: onFailureOf runs, dependsOn is cancelled", async () => {
      const h = await harness(factory);
      try {
        const runs = recordRuns(h);
        await h.s.pause("slow");
        const parent = await h.s.submit({ type: "job", pool: "slow", expiresIn: 200 });
        const onFailure = await h.s.submit({
          type: "job",
          payload: "cleanup",
          onFailureOf: parent,
        });
        const onSuccess = await h.s.submit({ type: "job", onSuccessOf: parent });
        const dependent = await h.s.submit({ type: "job", dependsOn: [parent] });
        await h.clock.advance(200);
        await h.until(parent, "expired");
        await h.until(onFailure, "succeeded");
        for (const child of [onSuccess, dependent]) {
          const t = await h.until(child, "cancelled");
          assert.equal(t.cancelReason, `parent ${parent} ended expired`);
        }
        assert.deepEqual(runs, ["cleanup"]);
      } finally {
        await h.close();
      }
    });

    it("expires a child still waiting on its parents", async () => {
      const h = await harness(factory);
      try {
        await h.s.pause("slow");
        const parent = await h.s.submit({ type: "job", pool: "slow" });
        const child = await h.s.submit({ type: "job", dependsOn: [parent], expiresIn: 100 });
        await h.clock.advance(100);
        await h.until(child, "expired");
        assert.equal((await h.s.get(parent))?.status, "queued");
      } finally {
        await h.close();
      }
    });

    it("counts, lists and filters expired tasks, and resubmits them", async () => {
      const h = await harness(factory);
      try {
        const runs = recordRuns(h);
        await h.s.pause("default");
        const ids = [];
        for (const n of [1, 2, 3]) {
          ids.push(await h.s.submit({ type: "job", payload: n, expiresIn: 100 }));
        }
        await h.clock.advance(100);
        for (const id of ids) await h.until(id, "expired");
        const stats = await h.s.stats();
        assert.equal(stats.byStatus.expired, 3);
        assert.equal(stats.totals.expired, 3);
        const listed = await h.s.list({ status: "expired" });
        assert.deepEqual(listed.items.map((t) => t.id).sort(), [...ids].sort());
        await h.s.resume("default");
        const again = await h.s.resubmit(ids[0]);
        assert.deepEqual([again.status, again.expiresAt, again.attempt], ["queued", null, 0]);
        await h.until(ids[0], "succeeded");
        assert.equal(await h.s.resubmitMatching({ status: "expired" }), 2);
        for (const id of ids.slice(1)) await h.until(id, "succeeded");
        assert.deepEqual([...runs].sort(), [1, 2, 3]);
        const after = await h.s.stats();
        assert.equal(after.byStatus.expired, 0);
        assert.equal(after.totals.expired, 3, "an all-time total");
      } finally {
        await h.close();
      }
    });

    it("expires each run of a schedule relative to its own occurrence", async () => {
      const h = await harness(factory);
      try {
        await h.s.pause("default");
        const sid = await h.s.scheduleRecurring({ type: "job", expiresIn: 300 }, 1000);
        const schedule = await h.s.getSchedule(sid);
        assert.equal(schedule?.template.expiresInMs, 300);
        await h.clock.advance(1000);
        const run = await h.eventually(async () => (await h.s.list({ type: "job" })).items[0]);
        assert.equal(run.expiresAt, T0 + 1300);
        await h.clock.advance(300);
        await h.until(run.id, "expired");
      } finally {
        await h.close();
      }
    });
  });
}
