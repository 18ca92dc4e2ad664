/**
 * @module suite-observe — middleware, results stream, stats, history, workers, shutdown.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, partitionsOf, type StorageFactory, TOGETHER } from "./harness.ts";
import { loggingMiddleware, timingMiddleware } from "../../src/worker/middleware.ts";
import type { AttemptRecord } from "../../src/core/task.ts";
import { gate } from "../../scripts/tools/wait.ts";
import { DURATION_SAMPLES } from "../../src/storage/stats.ts";

export function observeSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: middleware, results, stats, history`, () => {
    it("composes middleware outermost first; built-in logging and timing see every attempt", async () => {
      const h = await harness(factory);
      try {
        const trace: string[] = [];
        const logged: { message: string; fields?: Record<string, unknown> }[] = [];
        const log = (message: string, fields?: Record<string, unknown>) =>
          logged.push({ message, fields });
        const timings: { ok: boolean; type: string }[] = [];
        h.s.use((next) => async (payload, ctx) => {
          trace.push("outer:in");
          const r = await next(payload, ctx);
          trace.push("outer:out");
          return r;
        });
        h.s.use((next) => async (payload, ctx) => {
          trace.push("inner:in");
          const r = await next(payload, ctx);
          trace.push("inner:out");
          return { wrapped: r };
        });
        h.s.use(loggingMiddleware({ debug: log, info: log, warn: log, error: log }));
        h.s.use(timingMiddleware((_ms, ctx, ok) => timings.push({ ok, type: ctx.type })));
        h.s.register("t", () => {
          trace.push("handler");
          return 7;
        });
        h.s.register("bad", () => {
          throw new Error("bad");
        });
        const id = await h.s.submit({ type: "t" });
        const t = await h.until(id, "succeeded");
        assert.deepEqual(t.result, { wrapped: 7 });
        assert.deepEqual(trace, ["outer:in", "inner:in", "handler", "inner:out", "outer:out"]);
        await h.until(await h.s.submit({ type: "bad" }), "dead");
        assert.deepEqual(logged.map((l) => l.message), [
          "task started",
          "task succeeded",
          "task started",
          "task failed",
        ]);
        assert.equal(logged[3].fields?.error, "bad");
        assert.deepEqual(timings, [{ ok: true, type: "t" }, { ok: false, type: "bad" }]);
      } finally {
        await h.close();
      }
    });

    it("streams every finished attempt as a result record, as events and as an async iterator", async () => {
      const h = await harness(factory);
      try {
        h.s.register("ok", () => "fine");
        h.s.register("flaky", (_p, ctx) => {
          if (ctx.attempt === 1) throw new Error("first");
        });
        const seen: AttemptRecord[] = [];
        h.s.onResult((r) => seen.push(r));
        const retries: AttemptRecord[] = [];
        h.s.onResult((r) => retries.push(r), { statuses: ["retrying", "dead"] });
        const ac = new AbortController();
        const iterated: AttemptRecord[] = [];
        const consumer = (async () => {
          for await (const r of h.s.results(ac.signal)) {
            iterated.push(r);
            if (iterated.length === 3) ac.abort();
          }
        })();
        const a = await h.s.submit({ type: "ok" });
        const b = await h.s.submit({ type: "flaky", maxRetries: 1 });
        await h.until(a, "succeeded");
        await h.until(b, "succeeded");
        await consumer;
        assert.equal(seen.length, 3);
        assert.deepEqual(iterated, seen);
        const failed = seen.find((r) => r.status === "retrying")!;
        assert.deepEqual(retries, [failed], "a listener for some statuses gets only those");
        assert.equal(failed.taskId, b);
        assert.equal(failed.error?.message, "first");
        for (const r of seen) {
          assert.equal(r.workerId, h.s.workerId);
          assert.equal(r.durationMs, r.finishedAt - r.startedAt);
          assert.ok(["ok", "flaky"].includes(r.type));
          assert.equal(r.pool, "default");
        }
      } finally {
        await h.close();
      }
    });

    it("stats() counts by status and pool, totals, and per-type durations with p95/p99 from 100 samples", async () => {
      const h = await harness(factory, { pools: { default: 100 } });
      try {
        let started = 0;
        h.s.register("timed", (p: { ms: number }) => {
          started++;
          return new Promise<void>((r) => h.clock.setTimer(r, p.ms));
        });
        const ids = [];
        for (let i = 1; i <= 100; i++) {
          ids.push(await h.s.submit({ type: "timed", payload: { ms: i * 10 } }));
        }
        // Every handler must hold its timer before time moves, or durations would shift.
        await h.eventually(() => started === 100, "all 100 handlers started");
        for (let t = 0; t < 1_000; t += 10) await h.clock.advance(10);
        for (const id of ids) await h.until(id, "succeeded");
        const stats = await h.s.stats();
        assert.equal(stats.byStatus.succeeded, 100);
        assert.equal(stats.totals.succeeded, 100);
        const d = stats.durations.timed;
        assert.equal(d.count, 100);
        assert.equal(d.minMs, 10);
        assert.equal(d.maxMs, 1_000);
        if (partitionsOf(h) === 1) {
          assert.equal(d.medianMs, 505);
          assert.equal(d.meanMs, 505);
          assert.equal(d.p95Ms, 950);
          assert.equal(d.p99Ms, 990);
        } else {
          // Partitions keep their own samples: the mean is exact, percentiles their
          // count-weighted means (docs/PARTITIONS.md), close to the whole's.
          assert.ok(Math.abs(d.meanMs - 505) < 0.1, `mean ${d.meanMs}`);
          for (const [got, want] of [[d.medianMs, 505], [d.p95Ms!, 950], [d.p99Ms!, 990]]) {
            assert.ok(Math.abs(got - want) <= want * 0.1, `${got} is not near ${want}`);
          }
        }
      } finally {
        await h.close();
      }
    });

    it("omits p95/p99 below 100 samples", async () => {
      const h = await harness(factory);
      try {
        h.s.register("quick", () => null);
        await h.until(await h.s.submit({ type: "quick" }), "succeeded");
        const d = (await h.s.stats()).durations.quick;
        assert.equal(d.count, 1);
        assert.equal(d.p95Ms, undefined);
      } finally {
        await h.close();
      }
    });

    it("keeps each type's newest DURATION_SAMPLES durations however many attempts ran", async () => {
      const h = await harness(factory, { pools: { default: 100 } });
      try {
        let started = 0;
        h.s.register("t", (p: { ms: number }) => {
          started++;
          return p.ms ? new Promise<void>((r) => h.clock.setTimer(r, p.ms)) : null;
        });
        // 50 slow attempts first, then more quick ones than a type keeps samples of.
        const slow = await h.s.submitMany(
          Array.from({ length: 50 }, () => ({ type: "t", payload: { ms: 10 } })),
        );
        await h.eventually(() => started === 50, "the slow handlers started");
        await h.clock.advance(10);
        for (const { id } of slow) await h.until(id, "succeeded");
        const quick = DURATION_SAMPLES + 50;
        for (let i = 0; i < quick; i += 100) {
          await h.s.submitMany(
            Array.from(
              { length: Math.min(100, quick - i) },
              () => ({ type: "t", payload: { ms: 0 } }),
            ),
          );
        }
        await h.eventually(
          async () => (await h.s.stats()).totals.succeeded === 50 + quick,
          "every attempt ended",
        );
        const d = (await h.s.stats()).durations.t;
        if (partitionsOf(h) === 1) {
          assert.equal(d.count, DURATION_SAMPLES);
          assert.equal(d.maxMs, 0, "the slow attempts' samples are the oldest: gone");
        } else {
          // Each partition keeps its own newest samples.
          assert.ok(d.count <= DURATION_SAMPLES * partitionsOf(h), `count ${d.count}`);
        }
      } finally {
        await h.close();
      }
    });

    it("files only a type's history share of its succeeded attempts; durations, totals and failures all", async () => {
      const h = await harness(factory, { history: { quiet: 0 } });
      try {
        h.s.register("quiet", () => "ok");
        let failed = 0;
        h.s.register("flaky", () => {
          if (failed++ === 0) throw new Error("first try fails");
          return "ok";
        }, { history: 0 });
        h.s.register("loud", () => "ok", { history: 1 });
        const plain = await h.s.submit({ type: "quiet" });
        // A key takes the store's general path (no fast path) to the ending.
        const keyed = await h.s.submit({ type: "quiet", key: "k1" });
        const loud = await h.s.submit({ type: "loud" });
        for (const id of [plain, keyed, loud]) await h.until(id, "succeeded");
        const flaky = await h.s.submit({
          type: "flaky",
          maxRetries: 1,
          backoff: { type: "fixed", delay: "1s" },
        });
        await h.until(flaky, "retrying");
        await h.clock.advance(1_000);
        await h.until(flaky, "succeeded");
        const filed = (await h.s.history({ limit: 100 })).items.map((a) => `${a.type}:${a.status}`);
        assert.deepEqual(filed.sort(), ["flaky:retrying", "loud:succeeded"]);
        const stats = await h.s.stats();
        assert.equal(stats.totals.succeeded, 4);
        assert.equal(stats.durations.quiet.count, 2, "durations count every attempt");
        assert.equal(stats.durations.flaky.count, 2);
        assert.throws(
          () => h.s.register("x", () => null, { history: 1.5 }),
          /history: expected a number from 0 to 1/,
        );
      } finally {
        await h.close();
      }
    });

    it("keeps history of finished attempts, filterable, with retention by count", async () => {
      const h = await harness(factory, { storageOptions: { history: { maxCount: 5 } } });
      try {
        h.s.register("good", () => "ok");
        h.s.register("bad", () => {
          throw new Error("needle in error");
        });
        // Retention by count is each partition's: the attempts share one.
        const good = { type: "good", ...TOGETHER };
        for (let i = 0; i < 4; i++) await h.until(await h.s.submit(good), "succeeded");
        const bad = await h.s.submit({ type: "bad", pool: "default", ...TOGETHER });
        await h.until(bad, "dead");
        const dead = await h.s.history({ status: "dead" });
        assert.deepEqual(dead.items.map((a) => a.taskId), [bad]);
        assert.equal((await h.s.history({ q: "NEEDLE" })).items.length, 1);
        assert.equal((await h.s.history({ type: "good" })).items.length, 4);
        for (let i = 0; i < 3; i++) await h.until(await h.s.submit(good), "succeeded");
        const all = await h.s.history({ limit: 100 });
        assert.equal(all.items.length, 5, "retention keeps the newest 5");
        assert.equal(all.items[0].type, "good", "newest first");
        const page1 = await h.s.history({ limit: 2 });
        assert.equal(page1.items.length, 2);
        const page2 = await h.s.history({ limit: 2, cursor: page1.next! });
        assert.notDeepEqual(page2.items[0], page1.items[0]);
      } finally {
        await h.close();
      }
    });

    it("lists tasks newest first with filters and cursor paging", async () => {
      const h = await harness(factory, { start: false });
      try {
        const ids = [];
        // Submitted in one millisecond: only one partition's order tells them apart.
        for (let i = 0; i < 5; i++) {
          const spec = { type: i % 2 ? "odd" : "even", payload: { n: `item-${i}` }, ...TOGETHER };
          ids.push(await h.s.submit(spec));
        }
        const first = await h.s.list({ limit: 2 });
        assert.deepEqual(first.items.map((t) => t.id), [ids[4], ids[3]]);
        const second = await h.s.list({ limit: 2, cursor: first.next! });
        assert.deepEqual(second.items.map((t) => t.id), [ids[2], ids[1]]);
        const last = await h.s.list({ limit: 2, cursor: second.next! });
        assert.deepEqual(last.items.map((t) => t.id), [ids[0]]);
        assert.equal(last.next, null);
        assert.equal((await h.s.list({ type: "odd" })).items.length, 2);
        assert.deepEqual((await h.s.list({ q: "item-3" })).items.map((t) => t.id), [ids[3]]);
        assert.equal((await h.s.list({ status: "queued", pool: "default" })).items.length, 5);
      } finally {
        await h.close();
      }
    });

    it("registers the instance for the workers listing and removes it on shutdown", async () => {
      const h = await harness(factory, { host: "node-a", pid: 4242 });
      const workers = await h.eventually(async () => {
        const list = await h.s.workers();
        return list.length ? list : null;
      }, "instance registered");
      assert.equal(workers[0].id, h.s.workerId);
      assert.equal(workers[0].host, "node-a");
      assert.equal(workers[0].pid, 4242);
      assert.deepEqual(workers[0].pools, { default: 4 });
      await h.s.shutdown({ timeoutMs: 0 });
      assert.deepEqual(await h.s.workers(), []);
      await h.close();
    });
  });

  describe(`${backend}: shutdown`, () => {
    it("stops claiming, lets running handlers finish within the timeout, keeps queued work", async () => {
      const h = await harness(factory, { pools: { default: 1 } });
      try {
        const hold = gate();
        h.s.register("w", () => hold.promise.then(() => "finished"));
        const running = await h.s.submit({ type: "w" });
        await h.until(running, "running");
        const queued = await h.s.submit({ type: "w" });
        const stopping = h.s.shutdown({ timeoutMs: 10_000 });
        hold.open();
        await stopping;
        assert.equal((await h.s.get(running))?.status, "succeeded");
        assert.equal((await h.s.get(queued))?.status, "queued", "queued work stays in storage");
      } finally {
        await h.close();
      }
    });

    it("aborts handlers still running at the timeout and hands their tasks back", async () => {
      const h = await harness(factory, { pools: { default: 1 } });
      try {
        let reason: unknown;
        h.s.register("stuck", (_p, ctx) =>
          new Promise((_, reject) => {
            ctx.signal.addEventListener("abort", () => {
              reason = ctx.signal.reason;
              reject(ctx.signal.reason);
            });
          }));
        const id = await h.s.submit({ type: "stuck" });
        await h.until(id, "running");
        const stopping = h.s.shutdown({ timeoutMs: 5_000 });
        await h.clock.advance(5_000);
        await stopping;
        assert.match(String((reason as Error)?.message), /shutting down/);
        const t = await h.s.get(id);
        assert.equal(t?.status, "queued");
        assert.equal(t?.attempt, 0, "an interrupted attempt is not counted");
      } finally {
        await h.close();
      }
    });
  });
}
