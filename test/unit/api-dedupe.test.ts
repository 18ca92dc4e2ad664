/**
 * HTTP API, idempotent submit (`dedupe`): 201 for the first task, 200 with
 * `deduplicated: true` for a repeat; in a batch the repeats are flagged and the answer stays
 * 201; bad `dedupe` fields are 400 naming the field and store nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";
/** A submit's answer minus `warnings`: with no worker running, every submit carries one. */
const answer = ({ warnings: _, ...rest }: Record<string, unknown>) => rest;

describe("api: dedupe", () => {
  it("answers 201 for the first submit and 200 deduplicated for a repeat", async () => {
    const f = await apiFixture({ start: false });
    try {
      const spec = (payload: number) => ({
        type: "order",
        payload,
        dedupe: { key: "order-42", ttl: "1h" },
      });
      const first = await f.call("POST", T, spec(1));
      assert.equal(first.status, 201);
      assert.deepEqual(answer(first.body), { id: first.body.id, status: "queued" });
      const again = await f.call("POST", T, spec(2));
      assert.equal(again.status, 200);
      assert.deepEqual(answer(again.body), {
        id: first.body.id,
        status: "queued",
        deduplicated: true,
      });
      assert.equal(await storedCount(f.s), 1);
      assert.equal((await f.s.get(first.body.id))?.payload, 1);
    } finally {
      await f.close();
    }
  });

  it("flags the deduplicated items of a batch; the answer stays 201", async () => {
    const f = await apiFixture({ start: false });
    try {
      const first = await f.call("POST", T, { type: "a", dedupe: { key: "x", ttl: "1h" } });
      const res = await f.call("POST", `${T}/batch`, [
        { type: "a", dedupe: { key: "x", ttl: "1h" } },
        { type: "a", dedupe: { key: "y", ttl: "1h" } },
        { type: "a", dedupe: { key: "y", ttl: "1h" } },
      ]);
      assert.equal(res.status, 201);
      const [x, y, y2] = res.body.tasks;
      assert.deepEqual(x, { id: first.body.id, status: "queued", deduplicated: true });
      assert.deepEqual(y, { id: y.id, status: "queued" });
      assert.deepEqual(y2, { id: y.id, status: "queued", deduplicated: true });
      assert.equal(await storedCount(f.s), 2);
      const all = await f.call("POST", `${T}/batch`, [{
        type: "a",
        dedupe: { key: "x", ttl: "1h" },
      }]);
      assert.equal(all.status, 201, "deduplicated items are not identical retries");
      assert.equal(all.body.tasks[0].deduplicated, true);
    } finally {
      await f.close();
    }
  });

  it("refuses bad dedupe fields with 400 naming the field; nothing stored", async () => {
    const f = await apiFixture({ start: false });
    try {
      const cases: [unknown, string][] = [
        [{ type: "a", key: "k", dedupe: { key: "k", ttl: "1h" } }, "dedupe"],
        [{ type: "a", dedupe: { key: "", ttl: "1h" } }, "dedupe.key"],
        [{ type: "a", dedupe: { key: "é".repeat(129), ttl: "1h" } }, "dedupe.key"],
        [{ type: "a", dedupe: { key: "k", ttl: "soon" } }, "dedupe.ttl"],
        [{ type: "a", dedupe: { key: "k", ttl: 0 } }, "dedupe.ttl"],
        [{ type: "a", dedupe: { key: "k", ttl: "31d" } }, "dedupe.ttl"],
        [{ type: "a", dedupe: { key: "k" } }, "dedupe.ttl"],
        [{ type: "a", dedupe: { key: "k", ttl: "1h", extra: 1 } }, "dedupe.extra"],
        [{ type: "a", every: "1h", dedupe: { key: "k", ttl: "1h" } }, "dedupe"],
      ];
      for (const [spec, path] of cases) {
        const res = await f.call("POST", T, spec);
        assert.equal(res.status, 400, JSON.stringify(spec));
        assert.deepEqual(res.body.error.issues.map((i: { path: string }) => i.path), [path]);
      }
      const batch = await f.call("POST", `${T}/batch`, [
        { type: "a", dedupe: { key: "ok", ttl: "1h" } },
        { type: "a", dedupe: { key: "k", ttl: "0ms" } },
      ]);
      assert.equal(batch.status, 400);
      assert.deepEqual(batch.body.error.issues.map((i: { path: string }) => i.path), [
        "[1].dedupe.ttl",
      ]);
      // 256 bytes is the bound, not over it.
      const edge = await f.call("POST", T, { type: "a", dedupe: { key: "é".repeat(128), ttl: 1 } });
      assert.equal(edge.status, 201);
      assert.equal(await storedCount(f.s), 1);
    } finally {
      await f.close();
    }
  });
});
