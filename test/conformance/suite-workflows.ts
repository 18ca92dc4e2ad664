/**
 * @module suite-workflows — dependsOn DAGs, onSuccessOf / onFailureOf, cascading cancels.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, harness, type StorageFactory } from "./harness.ts";
import { ValidationError } from "../../src/core/errors.ts";
import type { TaskStatus } from "../../src/core/task.ts";
import { leaseOf, newTask } from "../../scripts/tools/new-task.ts";

export function workflowsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: workflows`, () => {
    it("runs a diamond DAG in dependency order, the join once after both branches", async () => {
      const h = await harness(factory);
      try {
        const order: string[] = [];
        h.s.register("step", (p: { name: string }) => {
          order.push(p.name);
        });
        const [a, b, c, d] = await h.s.submitMany([
          { type: "step", id: "wf-a", payload: { name: "a" } },
          { type: "step", id: "wf-b", payload: { name: "b" }, dependsOn: ["wf-a"] },
          { type: "step", id: "wf-c", payload: { name: "c" }, dependsOn: ["wf-a"] },
          { type: "step", id: "wf-d", payload: { name: "d" }, dependsOn: ["wf-b", "wf-c"] },
        ]);
        assert.deepEqual([a.status, b.status, d.status], ["queued", "waiting", "waiting"]);
        await h.until(d.id, "succeeded");
        assert.equal(order.length, 4);
        assert.equal(order[0], "a");
        assert.equal(order[3], "d");
        assert.deepEqual(order.slice(1, 3).sort(), ["b", "c"]);
        assert.deepEqual((await h.s.get(c.id))?.dependsOn, ["wf-a"]);
      } finally {
        await h.close();
      }
    });

    it("a child reads its parents' statuses and results through ctx.parents", async () => {
      const h = await harness(factory);
      try {
        const seen = new Map<string, unknown>();
        h.s.register("make", (p: { n: number }) => ({ made: p.n }));
        h.s.register("boom", () => {
          throw new Error("no luck");
        });
        h.s.register("join", async (_p, ctx) => {
          seen.set(ctx.id, await ctx.parents);
          // Read once: a second read is the same answer, not another round of reads.
          assert.equal(await ctx.parents, seen.get(ctx.id));
        });
        const [a, b] = await h.s.submitMany([
          { type: "make", payload: { n: 1 } },
          { type: "make", payload: { n: 2 } },
        ]);
        const bad = await h.s.submit({ type: "boom" });
        const [join, rescue, alone] = (await h.s.submitMany([
          { type: "join", dependsOn: [a.id, b.id] },
          { type: "join", onFailureOf: bad },
          { type: "join" },
        ])).map((t) => t.id);
        for (const id of [join, rescue, alone]) await h.until(id, "succeeded");
        assert.deepEqual(seen.get(join), {
          [a.id]: { status: "succeeded", result: { made: 1 } },
          [b.id]: { status: "succeeded", result: { made: 2 } },
        });
        assert.deepEqual(seen.get(rescue), { [bad]: { status: "dead", result: null } });
        assert.deepEqual(seen.get(alone), {});
      } finally {
        await h.close();
      }
    });

    it("cancels, with a reason, the children of a parent that dies; never leaves them waiting", async () => {
      const h = await harness(factory);
      try {
        let ran = 0;
        h.s.register("fail", () => {
          throw new Error("parent broke");
        });
        h.s.register("child", () => {
          ran++;
        });
        const parent = await h.s.submit({ type: "fail", maxRetries: 1 });
        const child = await h.s.submit({ type: "child", dependsOn: [parent] });
        const grandchild = await h.s.submit({ type: "child", dependsOn: [child] });
        await h.until(parent, "dead");
        const c = await h.until(child, "cancelled");
        assert.equal(c.cancelReason, `parent ${parent} ended dead`);
        const g = await h.until(grandchild, "cancelled");
        assert.equal(g.cancelReason, `parent ${child} ended cancelled`);
        const late = await h.s.submit({ type: "child", dependsOn: [parent] });
        assert.equal(
          (await h.s.get(late))?.status,
          "cancelled",
          "a child of a dead parent never waits",
        );
        assert.equal(ran, 0);
      } finally {
        await h.close();
      }
    });

    it("cancelling a parent cancels its waiting children", async () => {
      const h = await harness(factory, { start: false });
      try {
        const parent = await h.s.submit({ type: "x", delay: "1h" });
        const child = await h.s.submit({ type: "x", dependsOn: [parent] });
        await h.s.cancel(parent);
        const c = await h.s.get(child);
        assert.equal(c?.status, "cancelled");
        assert.equal(c?.cancelReason, `parent ${parent} ended cancelled`);
      } finally {
        await h.close();
      }
    });

    it("fires onSuccessOf and onFailureOf exactly once, on the final outcome after retries", async () => {
      const h = await harness(factory);
      try {
        const fired: string[] = [];
        let attempts = 0;
        h.s.register("flaky", () => {
          if (++attempts < 3) throw new Error(`try ${attempts}`);
        });
        h.s.register("always_fails", () => {
          throw new Error("no");
        });
        h.s.register("hook", (p: { name: string }) => {
          fired.push(p.name);
        });
        const ok = await h.s.submit({ type: "flaky", maxRetries: 2 });
        const onOk = await h.s.submit({
          type: "hook",
          onSuccessOf: ok,
          payload: { name: "ok:success" },
        });
        const onOkFail = await h.s.submit({
          type: "hook",
          onFailureOf: ok,
          payload: { name: "ok:failure" },
        });
        const bad = await h.s.submit({ type: "always_fails", maxRetries: 2 });
        const onBad = await h.s.submit({
          type: "hook",
          onFailureOf: bad,
          payload: { name: "bad:failure" },
        });
        const onBadOk = await h.s.submit({
          type: "hook",
          onSuccessOf: bad,
          payload: { name: "bad:success" },
        });
        await h.until(onOk, "succeeded");
        await h.until(onBad, "succeeded");
        await h.until(onOkFail, "cancelled");
        await h.until(onBadOk, "cancelled");
        await h.clock.advance(5_000);
        assert.deepEqual(fired.sort(), ["bad:failure", "ok:success"]);
        assert.equal(attempts, 3, "the hook waited for the retries");
      } finally {
        await h.close();
      }
    });

    it("rejects unknown parents and cycles at submit, storing nothing", async () => {
      const h = await harness(factory, { start: false });
      try {
        await assert.rejects(h.s.submit({ type: "x", dependsOn: ["ghost"] }), (e: unknown) => {
          assert.ok(e instanceof ValidationError);
          assert.deepEqual(e.issues, [{
            path: "dependsOn[0]",
            message: 'unknown task id "ghost"',
          }]);
          return true;
        });
        await assert.rejects(
          h.s.submit({ type: "x", onFailureOf: "ghost" }),
          /onFailureOf: unknown task id/,
        );
        await assert.rejects(
          h.s.submitMany([
            { type: "x", id: "c1", dependsOn: ["c2"] },
            { type: "x", id: "c2", dependsOn: ["c1"] },
          ]),
          /workflow cycle/,
        );
        await assert.rejects(h.s.submit({ type: "x", id: "self", dependsOn: ["self"] }), /cycle/);
        assert.equal((await h.s.list({})).items.length, 0);
      } finally {
        await h.close();
      }
    });

    it("names the caller's index in batch errors, whatever order the store sees", async () => {
      const h = await harness(factory, { start: false });
      const issuesOf = async (specs: unknown[]) => {
        const e = await h.s.submitMany(specs, { batch: true }).catch((e: unknown) => e);
        assert.ok(e instanceof ValidationError, String(e));
        return e.issues.map((i) => i.path);
      };
      try {
        // The child comes first here; the store sees its parent first.
        assert.deepEqual(
          await issuesOf([{ type: "x", id: "c", dependsOn: ["p", "ghost"] }, {
            type: "x",
            id: "p",
          }]),
          ["[0].dependsOn[1]"],
        );
        // A schedule is not a task: it does not shift the tasks' indices.
        assert.deepEqual(
          await issuesOf([{ type: "x", every: "1m" }, { type: "x", dependsOn: ["ghost"] }]),
          ["[1].dependsOn[0]"],
        );
        // A batch of one keeps its index.
        assert.deepEqual(await issuesOf([{ type: "x", onFailureOf: "ghost" }]), [
          "[0].onFailureOf",
        ]);
        assert.equal((await h.s.list({})).items.length, 0);
      } finally {
        await h.close();
      }
    });

    it("accepts a batch whose children come before their parents", async () => {
      const h = await harness(factory);
      try {
        h.s.register("x", () => "ok");
        const [child, parent] = await h.s.submitMany([
          { type: "x", id: "late-child", dependsOn: ["early-parent"] },
          { type: "x", id: "early-parent" },
        ]);
        assert.equal(child.status, "waiting");
        assert.equal(parent.status, "queued");
        await h.until("late-child", "succeeded");
        await h.eventually(async () => (await h.s.get("early-parent"))?.status === "succeeded");
      } finally {
        await h.close();
      }
    });

    it("cancelling the root of a 2,500-deep chain settles it in bounded steps, counters matching rows", async () => {
      const h = await harness(factory, { start: false });
      try {
        const now = h.clock.now();
        const ids = Array.from({ length: 2_500 }, (_, i) => `chain-${i}`);
        for (let i = 0; i < ids.length; i += 1_000) {
          const batch = ids.slice(i, i + 1_000).map((id, j) =>
            newTask(id, now, { dependsOn: i + j === 0 ? [] : [ids[i + j - 1]] })
          );
          await h.storage.enqueue({ tasks: batch, now });
        }
        await h.s.cancel(ids[0]);
        const step = async () => {
          const stats = await h.s.stats();
          // Rows per status, counted one by one, equal the counters after every step.
          for (const status of ["cancelled", "waiting"] as const) {
            assert.equal(stats.byStatus[status], await countRows(h, status), status);
          }
          return stats.byStatus;
        };
        assert.deepEqual(
          [(await step()).cancelled, (await step()).waiting],
          [1_001, 1_499],
          "one call settles at most 1,000 children",
        );
        const r1 = await h.storage.recoverExpired({ now, limit: 10 });
        assert.deepEqual(r1, { recovered: 0, cascadesPending: true });
        assert.equal((await step()).cancelled, 2_001);
        const r2 = await h.storage.recoverExpired({ now, limit: 10 });
        assert.deepEqual(r2, { recovered: 0, cascadesPending: false });
        assert.deepEqual([(await step()).cancelled, (await step()).waiting], [2_500, 0]);
        const last = (await h.s.get(ids[2_499]))!;
        assert.equal(last.cancelReason, `parent ${ids[2_498]} ended cancelled`);
      } finally {
        await h.close();
      }
    });

    it("a parent with 1,500 children releases every one, though retention prunes rows meanwhile", async () => {
      const h = await harness(factory, {
        start: false,
        storageOptions: { history: { maxCount: 3 } },
      });
      try {
        const now = h.clock.now();
        const owner = { workerId: "w", leaseMs: 60_000 };
        const kids = Array.from({ length: 1_500 }, (_, i) => `kid-${i}`);
        const kid = (id: string) => newTask(id, now, { pool: "kids", dependsOn: ["mother"] });
        await h.storage.enqueue({
          tasks: [newTask("mother", now), ...kids.slice(0, 999).map(kid)],
          now,
        });
        await h.storage.enqueue({ tasks: kids.slice(999).map(kid), now });
        const [mother] = await h.storage.claim({ pool: "default", max: 1, owner, now });
        assert.equal(
          await h.storage.complete({ lease: leaseOf(mother, "w"), result: null, now: now + 1 }),
          true,
        );
        assert.equal((await h.s.stats()).byStatus.queued, 1_000);
        // Ten more tasks finish: with a retention of 3 rows, older finished rows go (in the
        // partition of the id "mother", on a partitioned store: retention is per partition).
        const others = Array.from(
          { length: 10 },
          (_, i) => newTask(`other-${i}`, now, { partitionKey: "mother" }),
        );
        await h.storage.enqueue({ tasks: others, now });
        for (const t of await h.storage.claim({ pool: "default", max: 10, owner, now: now + 2 })) {
          await h.storage.complete({ lease: leaseOf(t, "w"), result: null, now: now + 3 });
        }
        assert.equal(await h.s.get("other-0"), null, "retention pruned older finished rows");
        assert.deepEqual(await h.storage.recoverExpired({ now: now + 4, limit: 10 }), {
          recovered: 0,
          cascadesPending: false,
        });
        const stats = await h.s.stats();
        assert.equal(stats.byStatus.queued, 1_500, "every child released");
        assert.equal(stats.byStatus.waiting, 0);
      } finally {
        await h.close();
      }
    });

    it("a running worker finishes an unfinished cascade without being asked", async () => {
      const h = await harness(factory, { recoverMs: 3_600_000 });
      try {
        const now = h.clock.now();
        const ids = Array.from({ length: 1_500 }, (_, i) => `tail-${i}`);
        await h.storage.enqueue({
          tasks: ids.map((id, i) =>
            newTask(id, now, {
              runAt: i === 0 ? now + 60_000 : null,
              dependsOn: i ? [ids[i - 1]] : [],
            })
          ),
          now,
        });
        await h.s.cancel(ids[0]);
        await h.eventually(
          async () => (await h.s.stats()).byStatus.cancelled === 1_500,
          "all cancelled",
        );
        assert.equal((await h.s.stats()).byStatus.waiting, 0);
      } finally {
        await h.close();
      }
    });
  });
}

/** Tasks in `status`, counted row by row through the listing. */
async function countRows(h: Harness, status: TaskStatus): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await h.s.list({ status, limit: 1_000, cursor });
    n += page.items.length;
    cursor = page.next ?? undefined;
  } while (cursor);
  return n;
}
