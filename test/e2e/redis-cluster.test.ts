/**
 * @module redis-cluster.test — several real `scripts/entry/worker.ts` processes (bun subprocesses)
 * on one throwaway redis-server: exactly-once runs, `kill -9` recovery, delayed promotion,
 * cross-process cancel, a 1-second cron that survives a killed process, and a worker that
 * starts after an API-only node delayed the work. One server for the file; each test has
 * its own key prefix. Executions are counted by the handlers of fixtures/cluster-jobs.ts.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RedisServerHandle, startRedisServer } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { countCommandsUntil } from "../helpers/cluster-monitor.ts";
import {
  api,
  type Cluster,
  kill9,
  startCluster,
  submitOverHttp,
  succeeded,
} from "../helpers/cluster-workers.ts";

let server: RedisServerHandle;

/** Runs `test` with a fresh cluster under its own prefix, and stops its processes after. */
async function withCluster(name: string, test: (c: Cluster) => Promise<void>): Promise<void> {
  const c = await startCluster(server.url, name);
  try {
    await test(c);
  } finally {
    await c.close();
  }
}

/** How many tasks are in `status` now, read straight from the cluster's `counts` hash. */
async function count(c: Cluster, status: string): Promise<number> {
  return Number(await c.redis.send(["HGET", `${c.prefix}:{default}:counts`, status]) ?? 0);
}

function untilSucceeded(c: Cluster, n: number, timeoutMs: number): Promise<true> {
  return eventually(async () => (await succeeded(c)) >= n || null, `${n} succeeded`, timeoutMs);
}

/**
 * `[runAt, handler start, attempt]` of each task. The handler start comes from the fixture:
 * a task's own `startedAt` is the claimer's clock when it sent the claim, which may precede
 * the promotion by another process that made the task claimable.
 */
async function timings(c: Cluster, ids: string[]): Promise<[number, number, number][]> {
  const replies = await c.redis.pipeline(
    ids.map((id) => ["HMGET", `${c.prefix}:{default}:task:${id}`, "runAt", "attempt"]),
  );
  const starts = await c.redis.pipeline(ids.map((id) => ["HGET", `${c.key}:start-at`, id]));
  return replies.map((r, i) => {
    const [runAt, attempt] = (r as string[]).map(Number);
    return [runAt, Number(starts[i]), attempt];
  });
}

function assertEachRanOnce(runs: Map<string, number>, ids: string[]): void {
  assert.equal(runs.size, ids.length, "every task ran");
  const twice = [...runs].filter(([, n]) => n !== 1);
  assert.deepEqual(twice, [], "no task ran more than once");
  for (const id of ids) assert.equal(runs.get(id), 1, `task ${id} ran once`);
}

describe("many worker processes on one Redis", () => {
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    await server.stop();
  });

  it(
    "runs 10k tasks across 3 processes, each exactly once",
    { timeout: 60_000 },
    () =>
      withCluster("once", async (c) => {
        const ws = await c.spawn(3, { SKEDULR_POOLS: "default=20" });
        const ids = await submitOverHttp(
          ws,
          Array.from({ length: 10_000 }, () => ({ type: "count" })),
        );
        await untilSucceeded(c, ids.length, 30_000);
        assertEachRanOnce(await c.runs(), ids);
        const byPid = await c.runsByPid();
        assert.deepEqual([...byPid.keys()].sort(), ws.map((w) => String(w.child.pid)).sort());
        console.log(`  10k tasks: executions per process ${[...byPid.values()].join(" / ")}`);
      }),
  );

  it(
    "loses nothing when one process is killed with SIGKILL mid-run",
    { timeout: 60_000 },
    () =>
      withCluster("kill", async (c) => {
        const ws = await c.spawn(3, { SKEDULR_POOLS: "default=10", SKEDULR_LEASE_MS: "1000" });
        const n = 3_000;
        const ids = await submitOverHttp(
          ws,
          // Default settings: no retries. A lost worker is not a failure, so none is needed.
          Array.from({ length: n }, () => ({ type: "count", payload: { ms: 30 } })),
        );
        const victim = ws[0];
        const { body } = await api(ws[1], "/workers");
        const victimId = body.workers.find((w: { pid: number }) => w.pid === victim.child.pid).id;
        // Kill once a quarter is done and the victim is busy (its pool stays full while work is queued).
        await eventually(
          async () => {
            const byPid = await c.runsByPid();
            return (await succeeded(c)) >= n / 4 && (byPid.get(String(victim.child.pid)) ?? 0) > 0;
          },
          "a quarter done",
          30_000,
        );
        await kill9(victim);
        const orphans = (await c.client.list({ status: "running", limit: 1000 })).items
          .filter((t) => t.workerId === victimId);
        assert.ok(orphans.length > 0, "the killed process held running tasks");
        await untilSucceeded(c, n, 30_000);
        assert.equal(await count(c, "dead"), 0);
        const runs = await c.runs();
        assert.equal(runs.size, n, "every task ran");
        for (const id of ids) assert.ok(runs.get(id)! >= 1);
        for (const id of orphans.map((o) => o.id)) {
          const t = (await c.client.get(id))!;
          assert.equal(t.status, "succeeded");
          assert.equal(t.attempt, 1, "the lost attempt spent no retry");
          assert.equal(t.stalls, 1, "it is counted as a stall");
        }
        const twice = [...runs.values()].filter((x) => x > 1).length;
        console.log(
          `  kill -9: ${orphans.length} tasks orphaned, all ${n} succeeded, ${twice} ran twice (at-least-once)`,
        );
      }),
  );

  it(
    "promotes 5k delayed tasks across 3 processes, each exactly once",
    { timeout: 60_000 },
    () =>
      withCluster("delayed", async (c) => {
        const ws = await c.spawn(3, { SKEDULR_POOLS: "default=20" });
        const t0 = Date.now();
        const specs = Array.from({ length: 5_000 }, (_, i) => ({
          type: "count",
          runAt: t0 + 1_500 + (i % 1_500),
        }));
        const ids = await submitOverHttp(ws, specs);
        await untilSucceeded(c, ids.length, 30_000);
        assertEachRanOnce(await c.runs(), ids);
        const late = (await timings(c, ids)).map(([runAt, started, attempt]) => {
          assert.equal(attempt, 1);
          assert.ok(started >= runAt, `started ${runAt - started} ms before it was due`);
          return started - runAt;
        }).sort((a, b) => a - b);
        console.log(
          `  5k delayed: lateness p50 ${late[late.length >> 1]} ms, max ${
            late[late.length - 1]
          } ms`,
        );
      }),
  );

  it(
    "cancel through process A aborts the task running on process B",
    { timeout: 30_000 },
    () =>
      withCluster("cancel", async (c) => {
        const ws = await c.spawn(3);
        const { body } = await api(ws[0], "/tasks", { type: "forever", maxRetries: 3 });
        const pid = await eventually(
          () => c.redis.send(["HGET", `${c.key}:started`, body.id]),
          "the task to start",
          10_000,
        );
        const b = ws.find((w) => String(w.child.pid) === String(pid))!;
        const a = ws.find((w) => w !== b)!;
        const r = await api(a, `/tasks/${body.id}/cancel`, {});
        assert.deepEqual(r, { status: 200, body: { id: body.id, status: "cancelled" } });
        const aborted = await eventually(
          () => c.redis.send(["HGET", `${c.key}:aborted`, body.id]),
          "the handler on B to see the abort",
          5_000,
        );
        assert.equal(aborted, `${b.child.pid} cancelled`);
        const t = await eventually(async () => {
          const got = await api(a, `/tasks/${body.id}`);
          return got.body.status === "cancelled" ? got.body : null;
        }, "cancelled");
        assert.equal(t.attempt, 1, "no retry after cancel");
      }),
  );

  it("fires a 1-second cron once per occurrence across 3 processes, also after a kill", {
    timeout: 60_000,
  }, () =>
    withCluster("cron", async (c) => {
      const ws = await c.spawn(3);
      const { body } = await api(ws[0], "/tasks", { type: "count", cron: "* * * * * *" });
      assert.equal(body.status, "active");
      await untilSucceeded(c, 3, 10_000);
      // Kill the creator just after an occurrence finished, far from the next one.
      const base = await succeeded(c);
      await untilSucceeded(c, base + 1, 5_000);
      await kill9(ws[0]);
      const killedAt = Date.now();
      await untilSucceeded(c, base + 5, 15_000);
      const removed = await fetch(`${ws[1].url}/api/schedules/${body.id}`, { method: "DELETE" });
      assert.equal(removed.status, 200);
      await eventually(
        async () => (await count(c, "queued")) + (await count(c, "running")) === 0,
        "quiet",
      );
      const runs = await c.runs();
      const tasks = (await c.client.list({ type: "count", limit: 1000 })).items;
      assertEachRanOnce(runs, tasks.map((t) => t.id));
      const at = tasks.map((t) => t.runAt!).sort((x, y) => x - y);
      assert.equal(new Set(at).size, at.length, "one run per occurrence");
      for (const x of at) assert.equal(x % 1000, 0, "occurrences are whole seconds");
      for (let i = 1; i < at.length; i++) {
        assert.equal(at[i] - at[i - 1], 1000, "no gap, no double");
      }
      assert.ok(at[at.length - 1] > killedAt + 3000, "kept firing after the kill");
      console.log(
        `  cron: ${at.length} consecutive seconds, ${
          tasks.filter((t) => t.runAt! > killedAt).length
        } after the kill`,
      );
    }));

  it("two processes replacing one schedule while it fires: each slot runs once, none lost", {
    timeout: 60_000,
  }, () =>
    withCluster("upsert", async (c) => {
      const ws = await c.spawn(2);
      const spec = { type: "count", every: "1s", runAt: Math.ceil(Date.now() / 1000) * 1000 };
      const put = (w: (typeof ws)[number]) =>
        fetch(`${w.url}/api/schedules/race`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(spec),
        }).then(async (r) => {
          assert.ok(r.status === 200 || r.status === 201, `PUT answered ${r.status}`);
        });
      await put(ws[0]);
      // Both nodes keep replacing it, around every occurrence, for 4 s.
      const until = Date.now() + 4_000;
      while (Date.now() < until) await Promise.all([put(ws[0]), put(ws[1])]);
      const removed = await fetch(`${ws[1].url}/api/schedules/race`, { method: "DELETE" });
      assert.equal(removed.status, 200);
      await eventually(
        async () => (await count(c, "queued")) + (await count(c, "running")) === 0,
        "quiet",
      );
      const tasks = (await c.client.list({ type: "count", limit: 1000 })).items;
      const at = tasks.map((t) => t.runAt!).sort((x, y) => x - y);
      assert.ok(at.length >= 3, `${at.length} runs in 4 s`);
      assert.equal(new Set(at).size, at.length, "one run per occurrence");
      for (let i = 1; i < at.length; i++) assert.equal(at[i] - at[i - 1], 1000, "no gap");
      console.log(`  upsert race: ${at.length} consecutive slots, each once`);
    }));

  it(
    "a worker started after an API-only node delayed tasks picks them up",
    { timeout: 60_000 },
    () =>
      withCluster("late", async (c) => {
        const [apiNode] = await c.spawn(1, {}, "scripts/entry/serve.ts");
        const t0 = Date.now();
        const early = Array.from({ length: 100 }, () => ({ type: "count", runAt: t0 + 300 }));
        const later = Array.from({ length: 100 }, () => ({ type: "count", runAt: t0 + 4_000 }));
        const ids = await submitOverHttp([apiNode], [...early, ...later]);
        // Watch every command Redis gets until the early tasks have been due for half a
        // second (ten wheel ticks): the API-only node must send no promotion at all.
        const seen = await countCommandsUntil(server.port, () => Date.now() > t0 + 800, 5_000);
        assert.deepEqual(
          seen.byCommand.filter(([name]) => name === "script:promoteDue"),
          [],
          "an API-only node promotes nothing",
        );
        assert.equal(await count(c, "scheduled"), 200, "nothing promotes them without a worker");
        await c.spawn(1);
        await untilSucceeded(c, 200, 20_000);
        assertEachRanOnce(await c.runs(), ids);
        for (const [runAt, started] of await timings(c, ids)) assert.ok(started >= runAt);
      }),
  );
});
