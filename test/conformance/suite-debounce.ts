/**
 * @module suite-debounce — debounced submit: a burst of submits with one `debounce` key
 * yields one run, `delay` after the last submit (never past `maxWait` after the first),
 * carrying the last submit's payload; once that run is due or started, a new burst begins.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0 } from "./harness.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import type { Harness } from "./harness.ts";

/** Runs of type `reindex`: the payload and the manual clock's time at the start of each. */
function recordRuns(h: Harness): { payload: unknown; at: number }[] {
  const runs: { payload: unknown; at: number }[] = [];
  h.s.register("reindex", (payload) => {
    runs.push({ payload, at: h.clock.now() });
    return "done";
  });
  return runs;
}

const debounce = (payload: number, extra: Record<string, unknown> = {}) => ({
  type: "reindex",
  payload,
  debounce: { key: "reindex-7", delay: 300, ...extra },
});

export function debounceSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: debounced submit`, () => {
    it("runs a burst once, delay after its last submit, with the last payload", async () => {
      const h = await harness(factory);
      try {
        const runs = recordRuns(h);
        const answers = [];
        for (let n = 0; n < 5; n++) {
          if (n > 0) await h.clock.advance(50);
          answers.push((await h.s.submitMany([debounce(n)]))[0]);
        }
        const last = T0 + 200;
        assert.equal(answers[0].debounced, undefined, "the first submit stores the task");
        for (const a of answers.slice(1)) {
          assert.deepEqual([a.id, a.status, a.debounced, a.runAt], [
            answers[0].id,
            "scheduled",
            true,
            a === answers[4] ? last + 300 : a.runAt,
          ]);
        }
        assert.equal((await h.s.list()).items.length, 1);
        await h.clock.advance(299);
        assert.equal(runs.length, 0, "never before delay after the last submit");
        assert.equal((await h.s.get(answers[0].id))?.status, "scheduled");
        await h.clock.advance(1);
        const done = await h.until(answers[0].id, "succeeded");
        assert.deepEqual(done.payload, 4);
        assert.equal(runs.length, 1);
        assert.deepEqual(runs[0].payload, 4, "the last submit's payload");
        assert.ok(runs[0].at >= last + 300, `started at ${runs[0].at - T0}, after ${last - T0}`);
      } finally {
        await h.close();
      }
    });

    it("never runs later than maxWait after the burst's first submit", async () => {
      const h = await harness(factory);
      try {
        const runs = recordRuns(h);
        const first = (await h.s.submitMany([debounce(0, { maxWait: 500 })]))[0];
        const runAts = [];
        for (const n of [1, 2]) {
          await h.clock.advance(200);
          runAts.push((await h.s.submitMany([debounce(n, { maxWait: 500 })]))[0].runAt);
        }
        // T0 + 400 + 300 would be T0 + 700: capped at T0 + maxWait.
        assert.deepEqual(runAts, [T0 + 500, T0 + 500]);
        await h.clock.advance(99);
        assert.equal(runs.length, 0);
        await h.clock.advance(1);
        const done = await h.until(first.id, "succeeded");
        assert.deepEqual(done.payload, 2);
        assert.equal(runs.length, 1);
        assert.ok(runs[0].at >= T0 + 500, `ran at T0 + ${runs[0].at - T0}`);
      } finally {
        await h.close();
      }
    });

    it("opens a new burst once the task is due or has started, or was cancelled", async () => {
      const h = await harness(factory);
      try {
        const runs = recordRuns(h);
        const first = await h.s.submit(debounce(1));
        await h.clock.advance(300);
        await h.until(first, "succeeded");
        const [second] = await h.s.submitMany([debounce(2)]);
        assert.notEqual(second.id, first);
        assert.equal(second.debounced, undefined);
        await h.s.cancel(second.id);
        const [third] = await h.s.submitMany([debounce(3)]);
        assert.notEqual(third.id, second.id);
        assert.equal(third.debounced, undefined);
        await h.clock.advance(300);
        await h.until(third.id, "succeeded");
        assert.deepEqual(runs.map((r) => r.payload), [1, 3]);
      } finally {
        await h.close();
      }
    });

    it("re-arms at the store on the callers' now: a batch's repeats, and due means a new burst", async () => {
      const { storage, dispose } = await factory();
      try {
        const task = (id: string, now: number, payload: number, maxWaitMs: number | null = null) =>
          newTask(id, now, {
            payload,
            runAt: now + 300,
            debounce: { key: "b", delayMs: 300, maxWaitMs },
          });
        const batch = await storage.enqueue({
          tasks: [task("a", T0, 1), task("b", T0, 2), task("c", T0, 3)],
          now: T0,
        });
        assert.equal(batch[0].id, "a");
        assert.deepEqual(batch.slice(1), [
          { id: "a", status: "scheduled", runAt: T0 + 300, debounced: true },
          { id: "a", status: "scheduled", runAt: T0 + 300, debounced: true },
        ]);
        const hit = await storage.enqueue({ tasks: [task("d", T0 + 299, 4, 400)], now: T0 + 299 });
        assert.deepEqual(hit, [{ id: "a", status: "scheduled", runAt: T0 + 400, debounced: true }]);
        const a = await storage.get("a");
        assert.deepEqual([a?.payload, a?.runAt, a?.status], [4, T0 + 400, "scheduled"]);
        assert.deepEqual(await storage.dueDelayed({ until: T0 + 1000, limit: 10 }), [
          { id: "a", runAt: T0 + 400 },
        ]);
        assert.equal(await storage.get("d"), null);
        // Due (not yet promoted): the burst is over, a new one begins.
        const [fresh] = await storage.enqueue({ tasks: [task("e", T0 + 400, 5)], now: T0 + 400 });
        assert.equal(fresh.id, "e");
        assert.equal("debounced" in fresh, false);
        assert.equal((await storage.list({ limit: 10 })).items.length, 2);
      } finally {
        await dispose();
      }
    });
  });
}
