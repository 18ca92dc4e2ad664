/**
 * @module suite-basics — submit, run, results, failures, timeouts, validation, conflicts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0, TOGETHER } from "./harness.ts";
import { ConflictError, ValidationError } from "../../src/core/errors.ts";
import { gate } from "../../scripts/tools/wait.ts";

export function basicsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: submit and run`, () => {
    it("runs a submitted task exactly once and stores its return value as result", async () => {
      const h = await harness(factory);
      try {
        let calls = 0;
        h.s.register("double", (p: { n: number }) => {
          calls++;
          return p.n * 2;
        });
        const id = await h.s.submit({ type: "double", payload: { n: 21 } });
        const done = await h.until(id, "succeeded");
        assert.equal(done.result, 42);
        assert.equal(done.attempt, 1);
        assert.deepEqual(done.payload, { n: 21 });
        await h.clock.advance(1_000);
        assert.equal(calls, 1);
        const page = await h.s.history({ type: "double" });
        assert.equal(page.items.length, 1);
        assert.equal(page.items[0].status, "succeeded");
      } finally {
        await h.close();
      }
    });

    it("treats a thrown error and a rejected promise as failures, never successes", async () => {
      const h = await harness(factory);
      try {
        h.s.register("throws", () => {
          throw new Error("boom");
        });
        h.s.register("rejects", () => Promise.reject(new Error("nope")));
        const a = await h.s.submit({ type: "throws" });
        const b = await h.s.submit({ type: "rejects" });
        const ta = await h.until(a, "dead");
        const tb = await h.until(b, "dead");
        assert.equal(ta.error?.message, "boom");
        assert.match(ta.error?.stack ?? "", /boom/);
        assert.equal(tb.error?.message, "nope");
        assert.equal(ta.result, null);
      } finally {
        await h.close();
      }
    });

    it("fails a task that exceeds its timeout and aborts ctx.signal", async () => {
      const h = await harness(factory);
      try {
        let abortReason: unknown;
        h.s.register("slow", (_p, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener("abort", () => {
              abortReason = ctx.signal.reason;
            });
            // Resolves only long after the timeout: the timeout must win.
            h.clock.setTimer(() => resolve("late"), 60_000);
          }));
        const id = await h.s.submit({ type: "slow", timeout: "2s" });
        await h.until(id, "running");
        await h.clock.advance(1_999);
        assert.equal((await h.s.get(id))?.status, "running");
        await h.clock.advance(1);
        const t = await h.until(id, "dead");
        assert.match(t.error!.message, /timed out after 2000 ms/);
        assert.equal((abortReason as Error).name, "TimeoutError");
        await h.clock.advance(60_000);
        assert.equal(
          (await h.s.get(id))?.status,
          "dead",
          "a late result never turns it into success",
        );
      } finally {
        await h.close();
      }
    });

    it("fails a claimed task whose type has no handler, with a clear error", async () => {
      const h = await harness(factory);
      try {
        const id = await h.s.submit({ type: "nobody_home" });
        const t = await h.until(id, "dead");
        assert.match(t.error!.message, /No handler registered for task type "nobody_home"/);
      } finally {
        await h.close();
      }
    });

    it("reports progress from the handler in get()", async () => {
      const h = await harness(factory);
      try {
        const release = gate();
        h.s.register("progressing", async (_p, ctx) => {
          await ctx.progress(40);
          await release.promise;
        });
        const id = await h.s.submit({ type: "progressing" });
        await h.eventually(async () => (await h.s.get(id))?.progress === 40, "progress 40");
        release.open();
        await h.until(id, "succeeded");
      } finally {
        await h.close();
      }
    });
  });

  describe(`${backend}: validation and conflicts`, () => {
    it("rejects an invalid spec naming each bad field, and stores nothing", async () => {
      const h = await harness(factory);
      try {
        await assert.rejects(
          h.s.submit({ type: "bad type!", priority: 1.5, delay: "soon", extra: 1 } as never),
          (error: unknown) => {
            assert.ok(error instanceof ValidationError);
            const paths = error.issues.map((i) => i.path).sort();
            assert.deepEqual(paths, ["delay", "extra", "priority", "type"]);
            return true;
          },
        );
        await assert.rejects(
          h.s.submit({ type: "x", cron: "61 * * * *" }),
          /cron: invalid cron "61 \* \* \* \*"/,
        );
        await assert.rejects(
          h.s.submit({ type: "x", cron: "* * * * *", timezone: "Mars/Olympus" }),
          /timezone: unknown IANA time zone/,
        );
        const all = await h.s.list({});
        assert.equal(all.items.length, 0);
        assert.equal((await h.s.listSchedules()).length, 0);
      } finally {
        await h.close();
      }
    });

    it("rejects a whole batch when one spec is invalid, naming its index", async () => {
      const h = await harness(factory);
      try {
        await assert.rejects(
          h.s.submitMany([{ type: "ok" }, { type: "ok", maxRetries: -1 }]),
          (e: unknown) => e instanceof ValidationError && e.issues[0].path === "[1].maxRetries",
        );
        assert.equal((await h.s.list({})).items.length, 0);
        // One batch is one store call: its size is bounded.
        const tooMany = Array.from({ length: 10_001 }, () => ({ type: "ok" }));
        await assert.rejects(h.s.submitMany(tooMany), /at most 10000 specs, got 10001/);
        assert.equal((await h.s.list({})).items.length, 0);
      } finally {
        await h.close();
      }
    });

    it("rejects a custom id already in use and a key held by an unfinished task", async () => {
      const h = await harness(factory, { start: false });
      try {
        await h.s.submit({ type: "t", id: "order-1" });
        await assert.rejects(h.s.submit({ type: "t", id: "order-1", priority: 1 }), ConflictError);
        const first = await h.s.submit({ type: "t", key: "user:7" });
        await assert.rejects(h.s.submit({ type: "t", key: "user:7" }), (e: unknown) => {
          assert.ok(e instanceof ConflictError);
          assert.equal(e.activeId, first);
          assert.match(e.message, new RegExp(first));
          return true;
        });
        await h.s.cancel(first);
        const again = await h.s.submit({ type: "t", key: "user:7" });
        assert.notEqual(again, first, "a finished task frees its key");
      } finally {
        await h.close();
      }
    });

    it("answers a retried submit (same custom id, same spec) with the stored task", async () => {
      const h = await harness(factory, { start: false });
      try {
        const spec = {
          type: "t",
          id: "order-2",
          payload: { to: "a@b.c", items: [1, 2] },
          runAt: T0 + 60_000,
          key: "order:2",
          maxRetries: 2,
          backoff: { type: "fixed" as const, delay: "1s" },
        };
        const [first] = await h.s.submitMany([spec]);
        assert.equal(first.existing, undefined);
        await h.clock.advance(5_000); // the retry comes later: createdAt differs, runAt does not
        const [again] = await h.s.submitMany([{
          ...spec,
          payload: { items: [1, 2], to: "a@b.c" },
        }]);
        // No worker runs here, so `warnings` says so; the rest is the stored task.
        const { warnings: _, ...answer } = again;
        assert.deepEqual(answer, {
          id: "order-2",
          kind: "task",
          status: "scheduled",
          existing: true,
        });
        for (const change of [{ payload: { to: "x" } }, { runAt: T0 + 1 }, { maxRetries: 0 }]) {
          await assert.rejects(h.s.submitMany([{ ...spec, ...change }]), ConflictError);
        }
        await assert.rejects(h.s.submitMany([spec, { type: "t", id: "order-3" }]), ConflictError);
        assert.equal(await h.s.get("order-3"), null, "all or none: nothing new was stored");
      } finally {
        await h.close();
      }
    });

    it("rejects submits beyond the capacity bound with a clear error", async () => {
      const h = await harness(factory, { start: false, storageOptions: { maxUnfinished: 2 } });
      try {
        // The bound is each partition's (what one store holds): the three share one.
        await h.s.submit({ type: "t", ...TOGETHER });
        await h.s.submit({ type: "t", ...TOGETHER });
        await assert.rejects(h.s.submit({ type: "t", ...TOGETHER }), /limit of 2 unfinished tasks/);
        assert.equal((await h.s.list({})).items.length, 2);
      } finally {
        await h.close();
      }
    });
  });
}
