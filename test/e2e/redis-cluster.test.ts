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
import { type Cluster, startCluster, submitOverHttp } from "../helpers/cluster-workers.ts";
import {
  cancelAcrossProcesses,
  cronAcrossKill,
  delayedRunOnce,
  eachRunsOnce,
  killNineLosesNothing,
  untilSucceeded,
} from "../helpers/worker-scenarios.ts";

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
    () => withCluster("once", (c) => eachRunsOnce(c, 10_000).then(() => {})),
  );

  it(
    "loses nothing when one process is killed with SIGKILL mid-run",
    { timeout: 60_000 },
    () => withCluster("kill", (c) => killNineLosesNothing(c, 3_000)),
  );

  it(
    "promotes 5k delayed tasks across 3 processes, each exactly once",
    { timeout: 60_000 },
    () => withCluster("delayed", (c) => delayedRunOnce(c, 5_000, 1_500)),
  );

  it(
    "cancel through process A aborts the task running on process B",
    { timeout: 30_000 },
    () => withCluster("cancel", cancelAcrossProcesses),
  );

  it("fires a 1-second cron once per occurrence across 3 processes, also after a kill", {
    timeout: 60_000,
  }, () => withCluster("cron", cronAcrossKill));

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
