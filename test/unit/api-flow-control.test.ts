/**
 * HTTP API, flow control keys (`flowControl`): bad fields are 400 naming the field and store
 * nothing; GET /tasks/:id shows the task's `flowControl` and, while it is parked behind its
 * key's limit, `waitingFor`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture, storedCount } from "../helpers/api-app.ts";
import { gate } from "../../scripts/tools/wait.ts";

const T = "/skedulr/api/tasks";

describe("api: flowControl", () => {
  it("refuses bad flowControl fields with 400 naming the field", async () => {
    const f = await apiFixture({ start: false });
    try {
      const cases: [unknown, string][] = [
        [{ key: "k", parallelism: 0 }, "flowControl.parallelism"],
        [{ key: "k", parallelism: -1 }, "flowControl.parallelism"],
        [{ key: "k", parallelism: 2.5 }, "flowControl.parallelism"],
        [{ key: "k", parallelism: "2" }, "flowControl.parallelism"],
        [{ key: "k", parallelism: 1_000_001 }, "flowControl.parallelism"],
        [{ key: "k", rate: 10 }, "flowControl.period"],
        [{ key: "k", period: "1s" }, "flowControl.rate"],
        [{ key: "k", rate: 0, period: "1s" }, "flowControl.rate"],
        [{ key: "k", rate: 10, period: "0ms" }, "flowControl.period"],
        [{ key: "k", rate: 10, period: 0.5 }, "flowControl.period"],
        [{ key: "k", rate: 10, period: "soon" }, "flowControl.period"],
        [{ key: "", parallelism: 1 }, "flowControl.key"],
        [{ key: "é".repeat(129), parallelism: 1 }, "flowControl.key"],
        [{ key: "k" }, "flowControl"],
        [{ key: "k", parallelism: 1, burst: 3 }, "flowControl.burst"],
      ];
      for (const [flowControl, path] of cases) {
        const res = await f.call("POST", T, { type: "a", flowControl });
        assert.equal(res.status, 400, JSON.stringify(flowControl));
        assert.deepEqual(
          res.body.error.issues.map((i: { path: string }) => i.path),
          [path],
          JSON.stringify(flowControl),
        );
      }
      const debounced = await f.call("POST", T, {
        type: "a",
        flowControl: { key: "k", parallelism: 1 },
        debounce: { key: "d", delay: "1s" },
      });
      assert.equal(debounced.status, 400);
      assert.equal(debounced.body.error.issues[0].path, "debounce");
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });

  it("GET /tasks/:id shows waitingFor while a task is parked, and null once it runs", async () => {
    const hold = gate();
    const f = await apiFixture({ handlers: { slow: () => hold.promise } });
    try {
      const flowControl = { key: "tenant-42", parallelism: 1, rate: 10, period: "1s" };
      const first = await f.call("POST", T, { type: "slow", flowControl });
      const second = await f.call("POST", T, { type: "slow", flowControl });
      assert.equal(first.status, 201);
      await f.until(first.body.id, "running");
      const parked = await f.call("GET", `${T}/${second.body.id}`);
      assert.equal(parked.status, 200);
      assert.equal(parked.body.status, "queued");
      assert.equal(parked.body.waitingFor, "parallelism");
      assert.deepEqual(parked.body.flowControl, {
        key: "tenant-42",
        parallelism: 1,
        rate: 10,
        periodMs: 1000,
      });
      hold.open();
      await f.until(second.body.id, "succeeded");
      assert.equal((await f.call("GET", `${T}/${second.body.id}`)).body.waitingFor, null);
    } finally {
      await f.close();
    }
  });
});
