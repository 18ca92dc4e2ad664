/**
 * @module suite-logs-faults — task logs through faults (injected as in suite-faults.ts): a
 * write or settle whose reply was lost and is retried keeps each line once, a worker that
 * loses its store loses only the lines it had not written, and the lines of an attempt that
 * a cancel or a shutdown stops are kept.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory } from "./harness.ts";
import { Faults } from "../helpers/faulty-storage.ts";
import { gate } from "../../scripts/tools/wait.ts";
import { lines } from "./suite-logs.ts";

/** Resolves when the signal aborts, with why (the abort's kind). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
}

export function logsFaultsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: task logs through faults`, () => {
    it("a write and a completion whose replies were lost, retried, keep each line once", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        const go = gate();
        h.s.register("t", async (_p, ctx) => {
          ctx.log("before");
          await go.promise;
          ctx.log("after");
        });
        faults.inject("appendLogs", "lose-reply", 1).inject("complete", "lose-reply", 1);
        const id = await h.s.submit({ type: "t" });
        await h.until(id, "running");
        await h.clock.advance(5_000);
        await h.eventually(() => faults.applied.includes("appendLogs:lose-reply"), "the write");
        assert.deepEqual(await lines(h, id), ["1:before"], "stored, though its reply was lost");
        go.open();
        await h.eventually(async () => {
          await h.clock.advance(100);
          return (await h.s.get(id))?.status === "succeeded";
        }, "succeeded");
        assert.equal(faults.reached.get("complete"), 2, "tried again after the lost reply");
        assert.deepEqual(await lines(h, id), ["1:before", "1:after"]);
      } finally {
        await h.close();
      }
    });

    it("a failure whose reply was lost, retried, keeps each line once; the retry's follow", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        h.s.register("flaky", (_p, ctx) => {
          ctx.log(`attempt ${ctx.attempt}`);
          if (ctx.attempt === 1) throw new Error("first fails");
        });
        faults.inject("fail", "lose-reply", 1);
        const id = await h.s.submit({
          type: "flaky",
          maxRetries: 1,
          backoff: { type: "fixed", delay: "1s" },
        });
        await h.eventually(async () => {
          await h.clock.advance(200);
          return (await h.s.get(id))?.status === "succeeded";
        }, "succeeded on the retry");
        assert.equal(faults.reached.get("fail"), 2);
        assert.deepEqual(await lines(h, id), ["1:attempt 1", "2:attempt 2"]);
      } finally {
        await h.close();
      }
    });

    it("a worker that loses its store mid-attempt loses only the lines it had not written", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults, leaseMs: 3_000 });
      try {
        const go = gate();
        let runs = 0;
        let logged = false;
        h.s.register("fragile", async (_p, ctx) => {
          if (++runs > 1) return ctx.log("second run");
          ctx.log("written");
          await go.promise;
          ctx.log("never written");
          logged = true;
          await aborted(ctx.signal);
        });
        const id = await h.s.submit({ type: "fragile" });
        await h.until(id, "running");
        await h.clock.advance(5_000);
        await h.eventually(async () => (await lines(h, id)).length === 1, "the periodic write");
        // From here on the worker cannot write: as good as killed, for the store.
        faults.inject("renewLeases", "reject").inject("release", "reject");
        faults.inject("appendLogs", "reject");
        go.open();
        await h.eventually(() => logged, "the last line logged");
        await h.eventually(async () => {
          await h.clock.advance(500);
          return (await h.s.get(id))?.status === "succeeded";
        }, "recovered and run again");
        const t = (await h.s.get(id))!;
        assert.equal(t.stalls, 1, "the lease recovery put it back");
        // A stalled attempt is not counted: the second run is attempt 1 again.
        assert.deepEqual(await lines(h, id), ["1:written", "1:second run"]);
      } finally {
        await h.close();
      }
    });

    it("keeps the lines of an attempt a cancel stopped, its abort handler's too", async () => {
      const h = await harness(factory);
      try {
        h.s.register("stoppable", async (_p, ctx) => {
          ctx.log("working");
          ctx.signal.addEventListener("abort", () => {
            ctx.log("stopping", { why: (ctx.signal.reason as { kind: string }).kind });
          });
          await aborted(ctx.signal);
        });
        const id = await h.s.submit({ type: "stoppable" });
        await h.until(id, "running");
        await h.s.cancel(id, "no longer needed");
        await h.until(id, "cancelled");
        await h.eventually(async () => (await lines(h, id)).length === 2, "the aborted lines");
        const page = (await h.s.taskLogs(id))!;
        assert.deepEqual(page.items.map((l) => [l.message, l.fields]), [
          ["working", undefined],
          ["stopping", { why: "cancelled" }],
        ]);
      } finally {
        await h.close();
      }
    });

    it("keeps the lines of an attempt handed back at shutdown; the next run's follow", async () => {
      const a = await harness(factory);
      const b = await harness(factory, { shared: a.storage, start: false });
      try {
        a.s.register("job", async (_p, ctx) => {
          ctx.log("first run");
          await aborted(ctx.signal);
        });
        b.s.register("job", (_p, ctx) => ctx.log("second run"));
        const id = await a.s.submit({ type: "job" });
        await a.until(id, "running");
        await a.s.shutdown({ timeoutMs: 0 });
        assert.equal((await a.s.get(id))!.status, "queued", "handed back");
        await b.s.start();
        await b.until(id, "succeeded");
        // A hand-back is not counted: both runs are attempt 1.
        assert.deepEqual(await lines(b, id), ["1:first run", "1:second run"]);
      } finally {
        await b.close();
        await a.close();
      }
    });
  });
}
