/**
 * The dashboard's own endpoints read the store's indexes: a task's children through
 * `children(id)` and its attempts through `history({ taskId })`, with no scan of the task
 * listing or of all of history.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { dashboard } from "../../routes/dashboard.ts";
import { apiFixture } from "../helpers/api-app.ts";

describe("dashboard API: a task's children and attempts", () => {
  it("lists the children that wait on a task, with how they wait, without listing tasks", async () => {
    const f = await apiFixture({ dashboard });
    let listings = 0;
    const list = f.storage.list.bind(f.storage);
    f.storage.list = (filter) => (listings++, list(filter));
    try {
      const batch = await f.call("POST", "/skedulr/api/tasks/batch", [
        { id: "p", type: "x" },
        { id: "c1", type: "x", dependsOn: ["p"] },
        { id: "other", type: "x" },
        { id: "c2", type: "y", onFailureOf: "p" },
      ]);
      assert.equal(batch.status, 201, batch.text);
      const res = await f.call("GET", "/skedulr/api/dashboard/tasks/p/children");
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        children: [
          { id: "c1", type: "x", status: "waiting", via: "dependsOn" },
          { id: "c2", type: "y", status: "waiting", via: "onFailureOf" },
        ],
        complete: true,
      });
      assert.deepEqual(
        (await f.call("GET", "/skedulr/api/dashboard/tasks/other/children")).body,
        { children: [], complete: true },
      );
      assert.equal((await f.call("GET", "/skedulr/api/dashboard/tasks/nope/children")).status, 404);
      assert.equal(listings, 0, "no scan of the task listing");
    } finally {
      await f.close();
    }
  });

  it("answers one task's attempts, newest first, from history back to its creation", async () => {
    const f = await apiFixture({
      dashboard,
      handlers: {
        ok: () => "done",
        bad: () => {
          throw new Error("always");
        },
      },
    });
    try {
      await f.call("POST", "/skedulr/api/tasks", { id: "job-1", type: "bad", maxRetries: 1 });
      await f.until("job-1", "dead");
      await f.call("POST", "/skedulr/api/tasks", { id: "job-10", type: "ok" });
      await f.until("job-10", "succeeded");
      const res = await f.call("GET", "/skedulr/api/dashboard/tasks/job-1/attempts");
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.complete, true);
      assert.deepEqual(
        res.body.attempts.map((a: { taskId: string; attempt: number; status: string }) =>
          `${a.taskId}#${a.attempt}:${a.status}`
        ),
        ["job-1#2:dead", "job-1#1:retrying"],
      );
      assert.equal(res.body.attempts[0].error.message, "always");
      assert.equal((await f.call("GET", "/skedulr/api/dashboard/tasks/nope/attempts")).status, 404);
    } finally {
      await f.close();
    }
  });
});
