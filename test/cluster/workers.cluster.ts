/**
 * @module workers.cluster — real `scripts/entry/worker.ts` processes on a real Redis Cluster
 * (3 masters, the deployment in 3 partitions, one per master): exactly-once runs, delayed
 * promotion, a cron across processes and a kill, cancel across nodes, `kill -9` recovery, and
 * what an idle worker costs. One cluster for the file, a key prefix per test. Executions are
 * counted by the handlers of test/e2e/fixtures/cluster-jobs.ts. Run by `npm run test:cluster`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RedisClusterHandle, startRedisCluster } from "../../scripts/tools/redis-cluster.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { type CommandCount, countCommandsUntil } from "../helpers/cluster-monitor.ts";
import {
  api,
  assertEachRanOnce,
  type Cluster,
  kill9,
  startCluster,
  submitOverHttp,
  succeeded,
} from "../helpers/cluster-workers.ts";

const PARTITIONS = 3;
let redis: RedisClusterHandle;

async function withWorkers(name: string, test: (c: Cluster) => Promise<void>): Promise<void> {
  const c = await startCluster({ clusterNodes: redis.seeds, partitions: PARTITIONS }, name);
  try {
    await test(c);
  } finally {
    await c.close();
  }
}

function untilSucceeded(c: Cluster, n: number, timeoutMs: number): Promise<true> {
  return eventually(async () => (await succeeded(c)) >= n || null, `${n} succeeded`, timeoutMs);
}

/** Tasks that succeeded in each partition (its `totals`): how the work split. */
async function perPartition(c: Cluster): Promise<number[]> {
  return await Promise.all(
    c.tags.map(async (tag) =>
      Number(await c.redis.send(["HGET", `${c.prefix}:{${tag}}:totals`, "succeeded"]) ?? 0)
    ),
  );
}

describe("worker processes on a Redis Cluster, 3 partitions", () => {
  before(async () => {
    redis = await startRedisCluster({ masters: 3 });
  });
  after(async () => {
    await redis?.stop();
  });

  it("runs 5k tasks across 3 processes, each exactly once, every partition a share", {
    timeout: 90_000,
  }, () =>
    withWorkers("once", async (c) => {
      const ws = await c.spawn(3, { SKEDULR_POOLS: "default=20" });
      const specs = Array.from({ length: 5_000 }, () => ({ type: "count" }));
      // Batches of 1000 each go to one partition (all or none), in turn.
      const ids = await submitOverHttp(ws, specs);
      for (const id of ids) assert.match(id, /~[0-2]$/, "an id carries its partition");
      await untilSucceeded(c, ids.length, 60_000);
      assertEachRanOnce(await c.runs(), ids);
      const split = await perPartition(c);
      assert.ok(split.every((n) => n > 0), `every partition ran some: ${split}`);
      const byPid = await c.runsByPid();
      assert.equal(byPid.size, 3, "every process ran some");
      console.log(
        `  5k tasks: per partition ${split.join(" / ")}, per process ${
          [...byPid.values()].join(" / ")
        }`,
      );
    }));

  it("promotes 3k delayed tasks across 3 processes, each exactly once, never early", {
    timeout: 90_000,
  }, () =>
    withWorkers("delayed", async (c) => {
      const ws = await c.spawn(3, { SKEDULR_POOLS: "default=20" });
      const t0 = Date.now();
      const specs = Array.from({ length: 3_000 }, (_, i) => ({
        type: "count",
        runAt: t0 + 2_000 + (i % 1_500),
      }));
      const ids = await submitOverHttp(ws, specs);
      await untilSucceeded(c, ids.length, 60_000);
      assertEachRanOnce(await c.runs(), ids);
      const tasks = await Promise.all(ids.map((id) => c.client.get(id)));
      const starts = await c.redis.pipeline(ids.map((id) => ["HGET", `${c.key}:start-at`, id]));
      const late = tasks.map((t, i) => {
        assert.equal(t!.attempt, 1);
        const lateness = Number(starts[i]) - t!.runAt!;
        assert.ok(lateness >= 0, `${t!.id} started ${-lateness} ms early`);
        return lateness;
      }).sort((a, b) => a - b);
      console.log(
        `  3k delayed: lateness p50 ${late[late.length >> 1]} ms, max ${late[late.length - 1]} ms`,
      );
    }));

  it(
    "cancel through process A aborts the task running on process B",
    { timeout: 60_000 },
    () =>
      withWorkers("cancel", async (c) => {
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
        const t = await c.client.get(body.id);
        assert.equal(t?.status, "cancelled");
        assert.equal(t?.attempt, 1, "no retry after cancel");
      }),
  );

  it("fires a 1-second cron once per occurrence across 3 processes, also after a kill", {
    timeout: 60_000,
  }, () =>
    withWorkers("cron", async (c) => {
      const ws = await c.spawn(3);
      const { body } = await api(ws[0], "/tasks", { type: "count", cron: "* * * * * *" });
      assert.equal(body.status, "active");
      await untilSucceeded(c, 3, 10_000);
      await kill9(ws[0]);
      const killedAt = Date.now();
      const base = await succeeded(c);
      await untilSucceeded(c, base + 4, 15_000);
      const removed = await fetch(`${ws[1].url}/api/schedules/${body.id}`, { method: "DELETE" });
      assert.equal(removed.status, 200);
      await eventually(async () => {
        const s = await c.client.stats();
        return s.byStatus.queued + s.byStatus.running === 0;
      }, "quiet");
      const tasks = (await c.client.list({ type: "count", limit: 1000 })).items;
      assertEachRanOnce(await c.runs(), tasks.map((t) => t.id));
      const at = tasks.map((t) => t.runAt!).sort((x, y) => x - y);
      assert.equal(new Set(at).size, at.length, "one run per occurrence");
      for (let i = 1; i < at.length; i++) assert.equal(at[i] - at[i - 1], 1000, "no gap");
      assert.ok(at[at.length - 1] > killedAt + 2000, "kept firing after the kill");
      console.log(`  cron: ${at.length} consecutive seconds, one process killed`);
    }));

  it(
    "loses nothing when one process is killed with SIGKILL mid-run",
    { timeout: 90_000 },
    () =>
      withWorkers("kill", async (c) => {
        const ws = await c.spawn(3, { SKEDULR_POOLS: "default=10", SKEDULR_LEASE_MS: "1000" });
        const n = 2_000;
        const ids = await submitOverHttp(
          ws,
          Array.from({ length: n }, () => ({ type: "count", payload: { ms: 30 } })),
        );
        const victim = ws[0];
        await eventually(
          async () => {
            const byPid = await c.runsByPid();
            return (await succeeded(c)) >= n / 4 && (byPid.get(String(victim.child.pid)) ?? 0) > 0;
          },
          "a quarter done",
          30_000,
        );
        await kill9(victim);
        await untilSucceeded(c, n, 60_000);
        const stats = await c.client.stats();
        assert.equal(stats.byStatus.dead, 0);
        const runs = await c.runs();
        assert.equal(runs.size, n, "every task ran");
        for (const id of ids) assert.ok(runs.get(id)! >= 1);
        console.log(
          `  kill -9: all ${n} succeeded, ${stats.totals.stalled} stalled (recovered), ${
            [...runs.values()].filter((x) => x > 1).length
          } ran twice (at-least-once)`,
        );
      }),
  );

  it(`an idle worker sends at most 0.5 + 0.1 × ${PARTITIONS} commands/s to the cluster`, {
    timeout: 90_000,
  }, () =>
    withWorkers("idle", async (c) => {
      await c.spawn(1, { SKEDULR_POOLS: "default=10,critical=4,bulk=32" });
      const recoveries = (s: CommandCount) =>
        s.byCommand.find(([name]) => name === "evalsha:recoverExpired")?.[1] ?? 0;
      // Past start-up (scripts loaded, every partition claimed once), then three rounds of
      // the slowest duty (recovery, every 10 s per partition): a window of whole periods.
      await countCommandsUntil(redis.masters(), (s) => recoveries(s) >= PARTITIONS, 30_000);
      const seen = await countCommandsUntil(
        redis.masters(),
        (s) => recoveries(s) >= 3 * PARTITIONS,
        45_000,
      );
      const rate = seen.total / seen.seconds;
      console.log(
        `  idle worker, ${PARTITIONS} partitions: ${seen.total} commands in ${
          seen.seconds.toFixed(1)
        } s = ${rate.toFixed(2)}/s (${
          seen.byCommand.map(([name, n]) => `${name} ${n}`).join(", ")
        })`,
      );
      assert.ok(rate <= 0.5 + 0.1 * PARTITIONS, `idle rate ${rate.toFixed(2)}/s`);
    }));
});
