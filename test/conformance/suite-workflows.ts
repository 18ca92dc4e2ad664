/**
 * @module suite-workflows — dependsOn DAGs, onSuccessOf / onFailureOf, cascading cancels.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory } from "./harness.ts";
import { ValidationError } from "../../src/core/errors.ts";

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
  });
}
