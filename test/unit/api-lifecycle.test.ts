/**
 * HTTP API, task lifecycle: cancel (queued, scheduled, running, schedule; 404; 409),
 * resubmit (dead → queued → succeeded; 404; 409) and bulk resubmit.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { TaskContext } from "../../src/mod.ts";
import { apiFixture } from "../helpers/api-app.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const T = "/skedulr/api/tasks";

/** A handler that runs until its signal aborts. */
const untilAborted = (_p: unknown, ctx: TaskContext) =>
  new Promise((_resolve, reject) => {
    ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
  });

describe("api: cancel", () => {
  it("cancels a queued or scheduled task: 200 { id, status: cancelled }", async () => {
    const f = await apiFixture({ start: false });
    try {
      const a = await f.call("POST", T, { type: "x" });
      const b = await f.call("POST", T, { type: "x", delay: "1h" });
      for (const id of [a.body.id, b.body.id]) {
        const res = await f.call("POST", `${T}/${id}/cancel`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { id, status: "cancelled" });
        assert.equal((await f.s.get(id))?.status, "cancelled");
      }
    } finally {
      await f.close();
    }
  });

  it("cancels a running task (its signal aborts) and keeps the reason given", async () => {
    const f = await apiFixture({ handlers: { block: untilAborted } });
    try {
      const { body } = await f.call("POST", T, { type: "block" });
      await f.until(body.id, "running");
      const res = await f.call("POST", `${T}/${body.id}/cancel`, { reason: "operator said so" });
      assert.equal(res.status, 200);
      const done = await f.until(body.id, "cancelled");
      assert.equal(done.cancelReason, "operator said so");
    } finally {
      await f.close();
    }
  });

  it("cancel of a schedule id stops the schedule", async () => {
    const f = await apiFixture({ start: false });
    try {
      const { body } = await f.call("POST", T, { type: "tick", every: "1h" });
      const res = await f.call("POST", `${T}/${body.id}/cancel`);
      assert.equal(res.status, 200);
      assert.equal(await f.s.getSchedule(body.id), null);
    } finally {
      await f.close();
    }
  });

  it("404 for an unknown id, 409 for a finished task, 400 for a bad body", async () => {
    const f = await apiFixture({ handlers: { ok: () => "done" } });
    try {
      const missing = await f.call("POST", `${T}/nope/cancel`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, "not_found");
      const { body } = await f.call("POST", T, { type: "ok" });
      await f.until(body.id, "succeeded");
      const finished = await f.call("POST", `${T}/${body.id}/cancel`);
      assert.equal(finished.status, 409);
      assert.equal(finished.body.error.code, "conflict");
      const bad = await f.call("POST", `${T}/${body.id}/cancel`, { reason: 5 });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.issues[0].path, "reason");
    } finally {
      await f.close();
    }
  });
});

describe("api: resubmit", () => {
  it("dead → resubmit → queued → succeeded, same id, attempts reset", async () => {
    let failing = true;
    const f = await apiFixture({
      handlers: {
        flaky: () => {
          if (failing) throw new Error("downstream is down");
          return "ok";
        },
      },
    });
    try {
      const { body } = await f.call("POST", T, { type: "flaky" });
      const dead = await f.until(body.id, "dead");
      assert.equal(dead.error?.message, "downstream is down");
      failing = false;
      const res = await f.call("POST", `${T}/${body.id}/resubmit`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { id: body.id, status: "queued" });
      const done = await f.until(body.id, "succeeded");
      assert.equal(done.result, "ok");
      assert.equal(done.attempt, 1);
    } finally {
      await f.close();
    }
  });

  it("404 unknown; 409 when the task is not dead or cancelled", async () => {
    const f = await apiFixture({ start: false });
    try {
      const missing = await f.call("POST", `${T}/nope/resubmit`);
      assert.equal(missing.status, 404);
      const { body } = await f.call("POST", T, { type: "x" });
      const queued = await f.call("POST", `${T}/${body.id}/resubmit`);
      assert.equal(queued.status, 409);
      assert.equal(queued.body.error.code, "conflict");
      await f.call("POST", `${T}/${body.id}/cancel`);
      const again = await f.call("POST", `${T}/${body.id}/resubmit`, {});
      assert.equal(again.status, 200);
      assert.equal(again.body.status, "queued");
    } finally {
      await f.close();
    }
  });

  it("bulk resubmit: { resubmitted: n } of what matches status, type and pool", async () => {
    let failing = true;
    const fail = () => {
      if (failing) throw new Error("no");
      return "yes";
    };
    const f = await apiFixture({
      handlers: { a: fail, b: fail },
      pools: { default: 4, other: 2 },
    });
    try {
      const ids: string[] = [];
      for (
        const spec of [{ type: "a" }, { type: "a" }, { type: "b" }, { type: "a", pool: "other" }]
      ) {
        ids.push((await f.call("POST", T, spec)).body.id);
      }
      for (const id of ids) await f.until(id, "dead");
      failing = false;
      const none = await f.call("POST", `${T}/resubmit`, { status: "cancelled" });
      assert.deepEqual(none.body, { resubmitted: 0 });
      const some = await f.call("POST", `${T}/resubmit`, {
        status: "dead",
        type: "a",
        pool: "default",
      });
      assert.equal(some.status, 200);
      assert.deepEqual(some.body, { resubmitted: 2 });
      await f.until(ids[0], "succeeded");
      await f.until(ids[1], "succeeded");
      assert.equal((await f.s.get(ids[2]))?.status, "dead");
      const rest = await f.call("POST", `${T}/resubmit`, { status: "dead" });
      assert.deepEqual(rest.body, { resubmitted: 2 });
      await eventually(async () => (await f.s.list({ status: "succeeded" })).items.length === 4);
    } finally {
      await f.close();
    }
  });

  it("bulk resubmit validates its body", async () => {
    const f = await apiFixture({ start: false });
    try {
      const cases: [unknown, string][] = [
        [{ status: "queued" }, "status"],
        [{}, "status"],
        [{ status: "dead", type: "no spaces" }, "type"],
        [{ status: "dead", extra: 1 }, "extra"],
      ];
      for (const [body, path] of cases) {
        const res = await f.call("POST", `${T}/resubmit`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.issues[0].path, path);
      }
      const empty = await f.call("POST", `${T}/resubmit`);
      assert.equal(empty.status, 400);
      assert.equal(empty.body.error.code, "invalid_request");
    } finally {
      await f.close();
    }
  });
});
