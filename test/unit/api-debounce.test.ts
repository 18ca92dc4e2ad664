/**
 * HTTP API, debounced submit (`debounce`): 201 for the submit that stores the task, 200 with
 * `debounced: true` and the new `runAt` for later ones of the burst; bad `debounce` fields and
 * fields it cannot be combined with are 400 naming the field and store nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";
/** A submit's answer minus `warnings`: with no worker running, every submit carries one. */
const answer = ({ warnings: _, ...rest }: Record<string, unknown>) => rest;

describe("api: debounce", () => {
  it("answers 201 for the burst's first submit and 200 debounced for the next", async () => {
    const f = await apiFixture({ start: false });
    try {
      const spec = (payload: number) => ({
        type: "reindex",
        payload,
        debounce: { key: "reindex-7", delay: "5s", maxWait: "1m" },
      });
      const first = await f.call("POST", T, spec(1));
      assert.equal(first.status, 201);
      assert.deepEqual(answer(first.body), { id: first.body.id, status: "scheduled" });
      const again = await f.call("POST", T, spec(2));
      assert.equal(again.status, 200);
      const runAt = again.body.runAt;
      assert.deepEqual(answer(again.body), {
        id: first.body.id,
        status: "scheduled",
        debounced: true,
        runAt,
      });
      const task = await f.s.get(first.body.id);
      assert.deepEqual([task?.payload, task?.runAt], [2, runAt]);
      assert.equal(await storedCount(f.s), 1);
      const batch = await f.call("POST", `${T}/batch`, [spec(3), { type: "other" }]);
      assert.equal(batch.status, 201);
      assert.equal(batch.body.tasks[0].id, first.body.id);
      assert.equal(batch.body.tasks[0].debounced, true);
      assert.equal(await storedCount(f.s), 2);
    } finally {
      await f.close();
    }
  });

  it("refuses bad debounce fields and fields it excludes with 400 naming the field", async () => {
    const f = await apiFixture({ start: false });
    try {
      const d = { key: "k", delay: "1s" };
      const cases: [unknown, string][] = [
        [{ type: "a", debounce: { key: "", delay: "1s" } }, "debounce.key"],
        [{ type: "a", debounce: { key: "é".repeat(129), delay: "1s" } }, "debounce.key"],
        [{ type: "a", debounce: { key: "k" } }, "debounce.delay"],
        [{ type: "a", debounce: { key: "k", delay: 0 } }, "debounce.delay"],
        [{ type: "a", debounce: { key: "k", delay: "31d" } }, "debounce.delay"],
        [{ type: "a", debounce: { ...d, maxWait: "500ms" } }, "debounce.maxWait"],
        [{ type: "a", debounce: { ...d, maxWait: "soon" } }, "debounce.maxWait"],
        [{ type: "a", key: "k", debounce: d }, "debounce"],
        [{ type: "a", dedupe: { key: "k", ttl: "1h" }, debounce: d }, "debounce"],
        [{ type: "a", delay: "1s", debounce: d }, "debounce"],
        [{ type: "a", runAt: Date.now() + 1000, debounce: d }, "debounce"],
        [{ type: "a", dependsOn: ["x"], debounce: d }, "debounce"],
        [{ type: "a", id: "mine", debounce: d }, "debounce"],
        [{ type: "a", every: "1h", debounce: d }, "debounce"],
      ];
      for (const [spec, path] of cases) {
        const res = await f.call("POST", T, spec);
        assert.equal(res.status, 400, JSON.stringify(spec));
        assert.deepEqual(
          res.body.error.issues.map((i: { path: string }) => i.path),
          [path],
          JSON.stringify(spec),
        );
      }
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });
});
