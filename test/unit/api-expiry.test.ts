/**
 * HTTP API, expiry (`expiresIn`, `expiresAt`): bad values are 400 naming the field and store
 * nothing; expired tasks are listed by `GET /tasks?status=expired`, counted in /stats and
 * /metrics, and resubmitted one by one or in bulk.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";

describe("api: expiry", () => {
  it("refuses bad expiry fields with 400 naming the field", async () => {
    const f = await apiFixture({ start: false });
    try {
      const past = new Date(Date.now() - 60_000).toISOString();
      const cases: [unknown, string][] = [
        [{ type: "a", expiresIn: "soon" }, "expiresIn"],
        [{ type: "a", expiresIn: 0 }, "expiresIn"],
        [{ type: "a", expiresIn: -1 }, "expiresIn"],
        [{ type: "a", expiresIn: "31d" }, "expiresIn"],
        [{ type: "a", expiresAt: past }, "expiresAt"],
        [{ type: "a", expiresAt: Date.now() - 1 }, "expiresAt"],
        [{ type: "a", expiresAt: "tomorrow" }, "expiresAt"],
        [{ type: "a", expiresAt: Date.now() + 40 * 86_400_000 }, "expiresAt"],
        [{ type: "a", expiresIn: "1m", expiresAt: Date.now() + 60_000 }, "expiresAt"],
        [{ type: "a", expiresIn: "1m", debounce: { key: "k", delay: "1s" } }, "debounce"],
        [{ type: "a", every: "1h", expiresAt: Date.now() + 60_000 }, "expiresAt"],
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
      const batch = await f.call("POST", `${T}/batch`, [{ type: "a" }, {
        type: "a",
        expiresIn: -5,
      }]);
      assert.equal(batch.status, 400);
      assert.deepEqual(batch.body.error.issues.map((i: { path: string }) => i.path), [
        "[1].expiresIn",
      ]);
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });

  it("stores expiresAt from expiresIn or expiresAt, and a schedule's expiresIn", async () => {
    const f = await apiFixture({ start: false });
    try {
      const before = Date.now();
      const a = await f.call("POST", T, { type: "a", expiresIn: "10m" });
      assert.equal(a.status, 201);
      const got = await f.call("GET", `${T}/${a.body.id}`);
      assert.ok(
        got.body.expiresAt >= before + 600_000 && got.body.expiresAt <= Date.now() + 600_000,
      );
      const at = Date.now() + 120_000;
      const b = await f.call("POST", T, { type: "a", expiresAt: new Date(at).toISOString() });
      assert.equal((await f.call("GET", `${T}/${b.body.id}`)).body.expiresAt, at);
      const c = await f.call("POST", T, { type: "a", expiresAt: at });
      assert.equal((await f.call("GET", `${T}/${c.body.id}`)).body.expiresAt, at);
      const s = await f.call("POST", T, { type: "a", every: "1h", expiresIn: "5m" });
      assert.equal(s.status, 201);
      const schedule = await f.s.getSchedule(s.body.id);
      assert.equal(schedule?.template.expiresInMs, 300_000);
    } finally {
      await f.close();
    }
  });

  it("lists, counts and resubmits expired tasks", async () => {
    const f = await apiFixture({ start: false });
    try {
      const ids: string[] = [];
      for (const n of [1, 2, 3]) {
        ids.push((await f.call("POST", T, { type: "a", payload: n, expiresIn: "1s" })).body.id);
      }
      const kept = (await f.call("POST", T, { type: "a" })).body.id;
      // The duty, as a worker runs it once the expiry passed.
      const done = await f.storage.expireDue({ now: Date.now() + 2_000, limit: 10 });
      assert.deepEqual(done, { expired: 3, more: false });
      const listed = await f.call("GET", `${T}?status=expired`);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.tasks.map((t: { id: string }) => t.id).sort(), [...ids].sort());
      assert.ok(!listed.body.tasks.some((t: { id: string }) => t.id === kept));
      const stats = await f.call("GET", "/skedulr/api/stats");
      assert.equal(stats.body.byStatus.expired, 3);
      assert.equal(stats.body.totals.expired, 3);
      const metrics = await f.raw("/skedulr/metrics");
      assert.match(String(metrics.body), /skedulr_tasks_expired_total 3/);
      assert.match(String(metrics.body), /status="expired"/);

      const one = await f.call("POST", `${T}/${ids[0]}/resubmit`);
      assert.deepEqual([one.status, one.body.status], [200, "queued"]);
      assert.equal((await f.s.get(ids[0]))?.expiresAt, null, "resubmitted without an expiry");
      const again = await f.call("POST", `${T}/${ids[0]}/resubmit`);
      assert.equal(again.status, 409);
      const bulk = await f.call("POST", `${T}/resubmit`, { status: "expired" });
      assert.deepEqual([bulk.status, bulk.body], [200, { resubmitted: 2 }]);
      const none = await f.call("GET", `${T}?status=expired`);
      assert.deepEqual(none.body.tasks, []);
      const bad = await f.call("POST", `${T}/resubmit`, { status: "queued" });
      assert.equal(bad.status, 400);
    } finally {
      await f.close();
    }
  });
});
