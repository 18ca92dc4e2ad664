/**
 * @module suite-retries — retries with back-off on the wheel, dead letters, resubmit, cancel.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory } from "./harness.ts";
import { ConflictError, NotFoundError } from "../../src/core/errors.ts";
import { gate } from "../helpers/wait.ts";

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
      try {
        let attempts = 0;
        h.s.register("long", (_p, ctx) => {
          attempts++;
          return new Promise((_, reject) => {
            ctx.signal.addEventListener("abort", () => reject(new Error("stopped")));
          });
        });
        const id = await h.s.submit({ type: "long", maxRetries: 5 });
        await h.until(id, "running");
        await h.s.cancel(id);
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
