/**
 * HTTP API, operations: schedules, workers, stats, pause/resume, pool sizes, history.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture } from "../helpers/api-app.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const A = "/skedulr/api";

describe("api: schedules", () => {
  it("lists every and cron schedules and deletes one (200, then 404)", async () => {
    const f = await apiFixture({ start: false });
    try {
      const every = (await f.call("POST", `${A}/tasks`, { type: "tick", every: "30s" })).body;
      const cron = (await f.call("POST", `${A}/tasks`, { type: "daily", cron: "0 9 * * 1-5" }))
        .body;
      const list = await f.call("GET", `${A}/schedules`);
      assert.equal(list.status, 200);
      const byId = new Map(list.body.schedules.map((s: { id: string }) => [s.id, s]));
      assert.equal((byId.get(every.id) as { kind: string }).kind, "every");
      assert.equal((byId.get(cron.id) as { cron: string }).cron, "0 9 * * 1-5");
      const del = await f.call("DELETE", `${A}/schedules/${every.id}`);
      assert.equal(del.status, 200);
      assert.deepEqual(del.body, { id: every.id, status: "deleted" });
      assert.equal((await f.call("GET", `${A}/schedules`)).body.schedules.length, 1);
      const again = await f.call("DELETE", `${A}/schedules/${every.id}`);
      assert.equal(again.status, 404);
      assert.equal(again.body.error.code, "not_found");
    } finally {
      await f.close();
    }
  });

  it("DELETE /schedules/:id never touches a task with that id", async () => {
    const f = await apiFixture({ start: false });
    try {
      await f.call("POST", `${A}/tasks`, { type: "x", id: "t1" });
      assert.equal((await f.call("DELETE", `${A}/schedules/t1`)).status, 404);
      assert.equal((await f.s.get("t1"))?.status, "queued");
    } finally {
      await f.close();
    }
  });
});

describe("api: named schedules", () => {
  it("PUT creates (201, Location) then replaces (200); GET adds the next 5 run times", async () => {
    const f = await apiFixture({ start: false });
    try {
      const spec = { type: "report", cron: "0 9 * * *", timezone: "Europe/Berlin" };
      const created = await f.call("PUT", `${A}/schedules/daily-report`, spec);
      assert.equal(created.status, 201);
      assert.equal(created.headers.get("location"), `${A}/schedules/daily-report`);
      assert.equal(created.body.id, "daily-report");
      assert.equal(created.body.catchUp, "last");
      assert.equal(created.body.nextRuns.length, 5);
      const replaced = await f.call("PUT", `${A}/schedules/daily-report`, {
        ...spec,
        cron: "0 10 * * *",
        catchUp: "none",
      });
      assert.equal(replaced.status, 200);
      assert.equal(replaced.body.cron, "0 10 * * *");
      assert.equal(replaced.body.createdAt, created.body.createdAt);
      const read = (await f.call("GET", `${A}/schedules/daily-report`)).body;
      assert.deepEqual(read.nextRuns, replaced.body.nextRuns);
      // Each next run is 10:00 in Berlin, a day apart.
      for (const at of read.nextRuns) {
        const hour = new Intl.DateTimeFormat("en", {
          hour: "numeric",
          hourCycle: "h23",
          timeZone: "Europe/Berlin",
        }).format(at);
        assert.equal(hour, "10");
      }
      assert.equal((await f.call("GET", `${A}/schedules`)).body.schedules.length, 1);
      assert.equal((await f.call("GET", `${A}/schedules/nope`)).status, 404);
    } finally {
      await f.close();
    }
  });

  it("pause, resume and trigger answer the schedule (404 when unknown)", async () => {
    const f = await apiFixture({ start: false });
    try {
      await f.call("PUT", `${A}/schedules/tick`, { type: "tick", every: "1m" });
      const paused = await f.call("POST", `${A}/schedules/tick/pause`);
      assert.equal(paused.status, 200);
      assert.equal(paused.body.paused, true);
      assert.deepEqual(paused.body.nextRuns, []);
      const resumed = await f.call("POST", `${A}/schedules/tick/resume`);
      assert.equal(resumed.body.paused, false);
      const run = await f.call("POST", `${A}/schedules/tick/trigger`);
      assert.equal(run.status, 201);
      assert.equal(run.body.status, "queued");
      assert.equal((await f.s.get(run.body.id))?.scheduleId, "tick");
      for (const action of ["pause", "resume", "trigger"]) {
        const missing = await f.call("POST", `${A}/schedules/nope/${action}`);
        assert.equal(missing.status, 404, action);
        assert.equal(missing.body.error.code, "not_found");
      }
    } finally {
      await f.close();
    }
  });

  it("refuses bad schedule specs with a 400 naming the field, storing nothing", async () => {
    const f = await apiFixture({ start: false });
    try {
      const bad: [string, unknown, string][] = [
        ["tick", { type: "t", every: "1m", id: "other" }, "id"],
        ["tick", { type: "t" }, "every"],
        ["tick", { type: "t", every: "1m", catchUp: "some" }, "catchUp"],
        ["tick", { type: "t", every: "1m", skipIfRunning: "yes" }, "skipIfRunning"],
        ["tick", { type: "t", cron: "nonsense" }, "cron"],
        ["bad id!", { type: "t", every: "1m" }, "id"],
      ];
      for (const [id, body, field] of bad) {
        const r = await f.call("PUT", `${A}/schedules/${encodeURIComponent(id)}`, body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.ok(
          r.body.error.issues.some((i: { path: string }) => i.path === field),
          `${JSON.stringify(r.body.error.issues)} names ${field}`,
        );
      }
      const task = await f.call("POST", `${A}/tasks`, { type: "t", catchUp: "all" });
      assert.equal(task.status, 400);
      assert.equal(task.body.error.issues[0].path, "catchUp");
      assert.equal((await f.call("GET", `${A}/schedules`)).body.schedules.length, 0);
      await f.call("POST", `${A}/tasks`, { type: "t", id: "job-1" });
      const clash = await f.call("PUT", `${A}/schedules/job-1`, { type: "t", every: "1m" });
      assert.equal(clash.status, 409);
    } finally {
      await f.close();
    }
  });
});

describe("api: workers and stats", () => {
  it("workers lists the live instance with its pools", async () => {
    const f = await apiFixture({ handlers: { x: () => 1 }, pools: { default: 3, critical: 1 } });
    try {
      const worker = await eventually(async () => {
        const res = await f.call("GET", `${A}/workers`);
        assert.equal(res.status, 200);
        return res.body.workers.find((w: { id: string }) => w.id === f.s.workerId);
      }, "the worker to heartbeat");
      assert.deepEqual(worker.pools, { default: 3, critical: 1 });
      for (const field of ["host", "running", "lastSeen", "startedAt"]) assert.ok(field in worker);
    } finally {
      await f.close();
    }
  });

  it("stats counts by status, per pool, totals and durations", async () => {
    const f = await apiFixture({
      handlers: {
        ok: () => "fine",
        bad: () => {
          throw new Error("x");
        },
      },
    });
    try {
      const ok = (await f.call("POST", `${A}/tasks`, { type: "ok" })).body.id;
      const bad = (await f.call("POST", `${A}/tasks`, { type: "bad" })).body.id;
      await f.call("POST", `${A}/tasks`, { type: "later", delay: "1h", pool: "critical" });
      await f.until(ok, "succeeded");
      await f.until(bad, "dead");
      const res = await f.call("GET", `${A}/stats`);
      assert.equal(res.status, 200);
      assert.equal(res.body.byStatus.succeeded, 1);
      assert.equal(res.body.byStatus.dead, 1);
      assert.equal(res.body.byStatus.scheduled, 1);
      assert.deepEqual(res.body.totals, {
        succeeded: 1,
        failedAttempts: 1,
        dead: 1,
        stalled: 0,
        expired: 0,
      });
      assert.equal(res.body.pools.default.size, 4);
      assert.equal(res.body.pools.default.paused, false);
      assert.equal(res.body.durations.ok.count, 1);
    } finally {
      await f.close();
    }
  });
});

describe("api: pause, resume, pools", () => {
  it("pause all holds new work queued; resume runs it", async () => {
    const f = await apiFixture({ handlers: { x: () => "ran" } });
    try {
      const paused = await f.call("POST", `${A}/pause`);
      assert.equal(paused.status, 200);
      assert.deepEqual(paused.body, { pool: null, paused: true });
      const { body } = await f.call("POST", `${A}/tasks`, { type: "x" });
      const stats = await f.call("GET", `${A}/stats`);
      assert.equal(stats.body.pools.default.paused, true);
      assert.equal((await f.s.get(body.id))?.status, "queued");
      const resumed = await f.call("POST", `${A}/resume`, {});
      assert.deepEqual(resumed.body, { pool: null, paused: false });
      await f.until(body.id, "succeeded");
    } finally {
      await f.close();
    }
  });

  it("pause and resume one pool", async () => {
    const f = await apiFixture({ handlers: { x: () => 1 }, pools: { default: 2, critical: 2 } });
    try {
      const res = await f.call("POST", `${A}/pause`, { pool: "critical" });
      assert.deepEqual(res.body, { pool: "critical", paused: true });
      const held = (await f.call("POST", `${A}/tasks`, { type: "x", pool: "critical" })).body.id;
      const runs = (await f.call("POST", `${A}/tasks`, { type: "x" })).body.id;
      await f.until(runs, "succeeded");
      const pools = (await f.call("GET", `${A}/stats`)).body.pools;
      assert.equal(pools.critical.paused, true);
      assert.equal(pools.default.paused, false);
      assert.equal((await f.s.get(held))?.status, "queued");
      await f.call("POST", `${A}/resume`, { pool: "critical" });
      await f.until(held, "succeeded");
      const bad = await f.call("POST", `${A}/pause`, { pool: "a b" });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.issues[0].path, "pool");
    } finally {
      await f.close();
    }
  });

  it("POST /pools/:name sets the concurrency; bad input is 400", async () => {
    const f = await apiFixture({ handlers: { x: () => 1 } });
    try {
      const res = await f.call("POST", `${A}/pools/default`, { concurrency: 7 });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { pool: "default", concurrency: 7 });
      await eventually(async () => (await f.s.stats()).pools.default.size === 7);
      const cases: unknown[] = [
        { concurrency: -1 },
        { concurrency: 1.5 },
        { concurrency: "3" },
        {
          concurrency: 10_001,
        },
        {},
        { concurrency: 1, more: 1 },
      ];
      for (const body of cases) {
        const bad = await f.call("POST", `${A}/pools/default`, body);
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, "invalid_request");
      }
      assert.equal((await f.call("POST", `${A}/pools/default`)).status, 400);
      assert.equal((await f.call("POST", `${A}/pools/bad%20name`, { concurrency: 1 })).status, 400);
      assert.equal((await f.s.stats()).pools.default.size, 7);
    } finally {
      await f.close();
    }
  });

  it("POST /pools/:name sets and removes cluster-wide limits, each field alone; /stats shows them", async () => {
    const f = await apiFixture({ handlers: { x: () => 1 } });
    try {
      const post = (body: unknown) => f.call("POST", `${A}/pools/default`, body);
      const size = (await f.s.stats()).pools.default.size;
      const global = await post({ globalConcurrency: 3 });
      assert.equal(global.status, 200);
      assert.deepEqual(global.body, { pool: "default", globalConcurrency: 3 });
      const rate = await post({ rateLimit: { max: 5, per: "1s" } });
      assert.deepEqual(rate.body, { pool: "default", rateLimit: { max: 5, per: "1s" } });
      let pool = (await f.call("GET", `${A}/stats`)).body.pools.default;
      assert.equal(pool.globalConcurrency, 3);
      assert.deepEqual(pool.rateLimit, { max: 5, perMs: 1000 });
      assert.equal(pool.startsInWindow, 0);
      assert.equal(pool.size, size, "the per-instance size is unchanged");
      assert.equal((await post({ globalConcurrency: null })).status, 200);
      pool = (await f.call("GET", `${A}/stats`)).body.pools.default;
      assert.equal(pool.globalConcurrency, null);
      assert.deepEqual(pool.rateLimit, { max: 5, perMs: 1000 }, "a field left out is unchanged");
      assert.equal((await post({ rateLimit: null })).status, 200);
      assert.equal((await f.s.stats()).pools.default.rateLimit, null);
      const metrics = await f.call("GET", "/skedulr/metrics");
      assert.match(String(metrics.body ?? metrics.text), /skedulr_pool_global_concurrency/);
    } finally {
      await f.close();
    }
  });

  it("POST /pools/:name answers 400 naming the bad limit field, and stores nothing", async () => {
    const f = await apiFixture({ handlers: { x: () => 1 } });
    try {
      const size = (await f.s.stats()).pools.default.size;
      const cases: [unknown, string][] = [
        [{ globalConcurrency: 0 }, "globalConcurrency"],
        [{ globalConcurrency: 2.5 }, "globalConcurrency"],
        [{ globalConcurrency: "3" }, "globalConcurrency"],
        [{ globalConcurrency: 1_000_001 }, "globalConcurrency"],
        [{ rateLimit: { max: 0, per: "1s" } }, "rateLimit.max"],
        [{ rateLimit: { max: 10_001, per: "1s" } }, "rateLimit.max"],
        [{ rateLimit: { max: 5, per: "0ms" } }, "rateLimit.per"],
        [{ rateLimit: { max: 5, per: "2d" } }, "rateLimit.per"],
        [{ rateLimit: { max: 5, per: "soon" } }, "rateLimit.per"],
        [{ rateLimit: { max: 5 } }, "rateLimit.per"],
        [{ rateLimit: { max: 5, per: "1s", burst: 2 } }, "rateLimit.burst"],
        [{ rateLimit: 5 }, "rateLimit"],
        [{ globalConcurrency: 2, limit: 3 }, "limit"],
        [{ concurrency: 2, globalConcurrency: -1 }, "globalConcurrency"],
      ];
      for (const [body, path] of cases) {
        const bad = await f.call("POST", `${A}/pools/default`, body);
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(bad.body.error.code, "invalid_request");
        const paths = (bad.body.error.issues ?? []).map((i: { path: string }) => i.path);
        assert.ok(paths.includes(path), `${JSON.stringify(body)}: issues ${JSON.stringify(paths)}`);
      }
      const pool = (await f.s.stats()).pools.default;
      assert.equal(pool.globalConcurrency, null);
      assert.equal(pool.size, size, "a bad limit beside a good concurrency stores neither");
      const unknown = await f.call("POST", `${A}/pools/nope`, { globalConcurrency: 2 });
      assert.equal(unknown.status, 404);
    } finally {
      await f.close();
    }
  });
});

describe("api: history", () => {
  it("returns { attempts, next } newest first, filtered and paged", async () => {
    let calls = 0;
    const f = await apiFixture({
      handlers: {
        ok: () => "fine",
        flaky: () => {
          if (++calls < 3) throw new Error(`attempt ${calls} failed`);
          return "finally";
        },
      },
    });
    try {
      const flaky = (await f.call("POST", `${A}/tasks`, {
        type: "flaky",
        maxRetries: 5,
        backoff: { type: "fixed", delay: 0 },
      })).body.id;
      const ok = (await f.call("POST", `${A}/tasks`, { type: "ok" })).body.id;
      await f.until(flaky, "succeeded");
      await f.until(ok, "succeeded");
      const all = await f.call("GET", `${A}/history`);
      assert.equal(all.status, 200);
      assert.deepEqual(Object.keys(all.body).sort(), ["attempts", "next"]);
      assert.equal(all.body.attempts.length, 4);
      const retries = await f.call("GET", `${A}/history?status=retrying&type=flaky`);
      assert.equal(retries.body.attempts.length, 2);
      assert.equal(retries.body.attempts[0].error.message, "attempt 2 failed");
      const q = await f.call("GET", `${A}/history?q=attempt%201`);
      assert.equal(q.body.attempts.length, 1);
      const page1 = await f.call("GET", `${A}/history?limit=3`);
      assert.equal(page1.body.attempts.length, 3);
      assert.ok(page1.body.next);
      const page2 = await f.call("GET", `${A}/history?limit=3&cursor=${page1.body.next}`);
      assert.equal(page2.body.attempts.length, 1);
      assert.equal(page2.body.next, null);
      const bad = await f.call("GET", `${A}/history?status=queued`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.issues[0].path, "status");
    } finally {
      await f.close();
    }
  });
});
