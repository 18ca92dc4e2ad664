/**
 * @module suite-retries — retries with back-off on the wheel, dead letters, resubmit, cancel.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory } from "./harness.ts";
import { ConflictError, NotFoundError } from "../../src/core/errors.ts";
import { gate } from "../../scripts/tools/wait.ts";
import { Scheduler } from "../../src/scheduler.ts";
import { silentLogger } from "../../src/worker/middleware.ts";

export function retriesSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: retries and dead letters`, () => {
    it("retries under the same id after each back-off, never early, then succeeds", async () => {
      const h = await harness(factory);
      try {
        const attempts: { attempt: number; at: number }[] = [];
        h.s.register("flaky", (_p, ctx) => {
          attempts.push({ attempt: ctx.attempt, at: h.clock.now() });
          if (ctx.attempt < 3) throw new Error(`failure ${ctx.attempt}`);
          return "ok";
        });
        const id = await h.s.submit({
          type: "flaky",
          maxRetries: 3,
          backoff: { type: "exponential", base: "1s", max: "10s" },
        });
        await h.until(id, "retrying");
        const failedAt = attempts[0].at;
        await h.clock.advance(990);
        assert.equal((await h.s.get(id))?.status, "retrying", "not before the 1 s back-off");
        await h.clock.advance(20);
        await h.eventually(() => attempts.length === 2, "second attempt");
        assert.ok(attempts[1].at - failedAt >= 1_000);
        await h.clock.advance(attempts[1].at + 1_990 - h.clock.now());
        assert.equal(attempts.length, 2, "second back-off is 2 s");
        await h.clock.advance(20);
        await h.eventually(() => attempts.length === 3, "third attempt");
        assert.ok(attempts[2].at - attempts[1].at >= 2_000);
        const t = await h.until(id, "succeeded");
        assert.equal(t.id, id);
        assert.equal(t.attempt, 3);
        assert.equal(t.result, "ok");
        assert.deepEqual(attempts.map((a) => a.attempt), [1, 2, 3]);
      } finally {
        await h.close();
      }
    });

    it("spreads retries by the task's jitter, inside the documented band, and honours a back-off function", async () => {
      const h = await harness(factory, { pools: { default: 50 } });
      try {
        const starts = new Map<string, number[]>();
        const failFirst = (_p: unknown, ctx: { id: string; attempt: number }) => {
          starts.set(ctx.id, [...(starts.get(ctx.id) ?? []), h.clock.now()]);
          if (ctx.attempt === 1) throw new Error("first attempt fails");
          return "ok";
        };
        h.s.register("jittery", failFirst);
        h.s.register("custom", failFirst, { backoff: (attempt) => 700 * attempt });
        const backoff = { type: "exponential" as const, base: "1s", max: "10s", jitter: 0.5 };
        const ids: string[] = [];
        for (let i = 0; i < 40; i++) {
          ids.push(await h.s.submit({ type: "jittery", maxRetries: 1, backoff }));
        }
        const custom = await h.s.submit({ type: "custom", maxRetries: 1, backoff });
        const failed = h.clock.now();
        const delays = await h.eventually(async () => {
          const all = await Promise.all([...ids, custom].map((id) => h.s.get(id)));
          if (!all.every((t) => t?.status === "retrying")) return null;
          return all.map((t) => t!.runAt! - failed);
        }, "every task waiting out its back-off");
        const jittered = delays.slice(0, 40);
        // base 1 s, jitter 0.5: each first back-off lies in [500, 1500] ms...
        for (const d of jittered) assert.ok(d >= 500 && d <= 1_500, `back-off ${d} ms`);
        // ...and they spread over that band instead of retrying in lock-step.
        assert.ok(new Set(jittered).size >= 20, `${new Set(jittered).size} distinct back-offs`);
        assert.ok(jittered.some((d) => d < 900) && jittered.some((d) => d > 1_100));
        assert.equal(delays[40], 700, "the type's back-off function wins over the spec's policy");
        await h.eventually(async () => {
          await h.clock.advance(100);
          return [...starts.values()].every((s) => s.length === 2);
        }, "every second attempt");
        for (const [i, id] of [...ids, custom].entries()) {
          assert.ok(starts.get(id)![1] >= failed + delays[i], `${id} never retried early`);
        }
      } finally {
        await h.close();
      }
    });

    it("after maxRetries + 1 failures the task is dead, in the dead-letter list with its last error", async () => {
      const h = await harness(factory);
      try {
        let calls = 0;
        h.s.register("doomed", () => {
          throw new Error(`attempt ${++calls} failed`);
        });
        const id = await h.s.submit({
          type: "doomed",
          maxRetries: 2,
          backoff: { type: "fixed", delay: "100ms" },
        });
        await h.eventually(async () => {
          await h.clock.advance(100);
          return (await h.s.get(id))?.status === "dead";
        }, "dead");
        const t = (await h.s.get(id))!;
        assert.equal(calls, 3);
        assert.equal(t.attempt, 3);
        assert.equal(t.error?.message, "attempt 3 failed");
        const dlq = await h.s.deadLetters();
        assert.deepEqual(dlq.items.map((x) => x.id), [id]);
        const stats = await h.s.stats();
        assert.equal(stats.byStatus.dead, 1);
        assert.equal(stats.totals.dead, 1);
        assert.equal(stats.totals.failedAttempts, 3);
      } finally {
        await h.close();
      }
    });

    it("resubmit of a dead task resets attempts and runs it again under the same id", async () => {
      const h = await harness(factory);
      try {
        let fail = true;
        h.s.register("fixable", () => {
          if (fail) throw new Error("broken");
          return "fixed";
        });
        const id = await h.s.submit({ type: "fixable" });
        await h.until(id, "dead");
        fail = false;
        const queued = await h.s.resubmit(id);
        assert.equal(queued.attempt, 0);
        const t = await h.until(id, "succeeded");
        assert.equal(t.attempt, 1);
        assert.equal(t.result, "fixed");
        assert.equal((await h.s.deadLetters()).items.length, 0);
        await assert.rejects(h.s.resubmit(id), ConflictError);
        await assert.rejects(h.s.resubmit("no-such-task"), NotFoundError);
      } finally {
        await h.close();
      }
    });

    it("bulk-resubmits the dead tasks that match a filter", async () => {
      const h = await harness(factory);
      try {
        let fail = true;
        h.s.register("a", () => {
          if (fail) throw new Error("a");
        });
        h.s.register("b", () => {
          if (fail) throw new Error("b");
        });
        const ids = [
          await h.s.submit({ type: "a" }),
          await h.s.submit({ type: "a" }),
          await h.s.submit({ type: "b" }),
        ];
        for (const id of ids) await h.until(id, "dead");
        fail = false;
        assert.equal(await h.s.resubmitMatching({ status: "dead", type: "a" }), 2);
        await h.until(ids[0], "succeeded");
        await h.until(ids[1], "succeeded");
        assert.equal((await h.s.get(ids[2]))?.status, "dead");
      } finally {
        await h.close();
      }
    });
  });

  describe(`${backend}: cancel`, () => {
    it("a cancelled queued, scheduled or waiting task never runs", async () => {
      const h = await harness(factory, { pools: { default: 1 } });
      try {
        const ran: string[] = [];
        const hold = gate();
        h.s.register("block", () => hold.promise);
        h.s.register("t", (_p, ctx) => {
          ran.push(ctx.id);
        });
        const blocker = await h.s.submit({ type: "block" });
        await h.until(blocker, "running");
        const queued = await h.s.submit({ type: "t" });
        const scheduled = await h.s.submit({ type: "t", delay: "5s" });
        const waiting = await h.s.submit({ type: "t", dependsOn: [blocker] });
        for (const id of [queued, scheduled, waiting]) {
          assert.deepEqual(await h.s.cancel(id), { id, status: "cancelled" });
        }
        hold.open();
        await h.until(blocker, "succeeded");
        await h.clock.advance(10_000);
        assert.deepEqual(ran, []);
        for (const id of [queued, scheduled, waiting]) {
          assert.equal((await h.s.get(id))?.status, "cancelled");
        }
        await assert.rejects(h.s.cancel(blocker), ConflictError);
        await assert.rejects(h.s.cancel("missing"), NotFoundError);
      } finally {
        await h.close();
      }
    });

    it("cancelling a running task aborts its signal; it ends cancelled with no retry", async () => {
      const h = await harness(factory);
      // Another instance (an API node) cancels: the worker learns it through the store.
      const api = new Scheduler({ storage: h.storage, pools: {}, logger: silentLogger });
      try {
        let attempts = 0;
        const aborts: string[] = [];
        h.s.register("long", (_p, ctx) => {
          attempts++;
          return new Promise((_, reject) => {
            ctx.signal.addEventListener("abort", () => {
              const why = ctx.signal.reason as { kind: string; message: string };
              aborts.push(`${why.kind}: ${why.message}`);
              reject(new Error("stopped"));
            });
          });
        });
        const id = await h.s.submit({ type: "long", maxRetries: 5 });
        await h.until(id, "running");
        await api.cancel(id);
        await h.eventually(() => aborts.length === 1, "the handler to see the abort");
        assert.deepEqual(aborts, ["cancelled: task cancelled"]);
        const t = await h.until(id, "cancelled");
        assert.equal(t.cancelReason, "cancelled by request");
        await h.clock.advance(60_000);
        assert.equal(attempts, 1);
        assert.equal((await h.s.get(id))?.status, "cancelled");
        const history = await h.s.history({ q: id });
        assert.deepEqual(
          history.items.map((a) => [a.status, a.error?.message]),
          [["cancelled", "cancelled by request"]],
          "the interrupted attempt is kept in history",
        );
      } finally {
        await h.close();
      }
    });
  });
}
