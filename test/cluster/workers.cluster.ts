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
import { type CommandCount, countCommandsUntil } from "../helpers/cluster-monitor.ts";
import { type Cluster, startCluster } from "../helpers/cluster-workers.ts";
import {
  cancelAcrossProcesses,
  cronAcrossKill,
  delayedRunOnce,
  eachRunsOnce,
  killNineLosesNothing,
} from "../helpers/worker-scenarios.ts";

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
      // Batches of 1000 each go to one partition (all or none), the next one each time on a
      // node: submitted through one node, five batches cover the three partitions.
      const ids = await eachRunsOnce(c, 5_000, true);
      for (const id of ids) assert.match(id, /~[0-2]$/, "an id carries its partition");
      const split = await perPartition(c);
      assert.ok(split.every((n) => n > 0), `every partition ran some: ${split}`);
      console.log(`  per partition ${split.join(" / ")}`);
    }));

  it("promotes 3k delayed tasks across 3 processes, each exactly once, never early", {
    timeout: 90_000,
  }, () => withWorkers("delayed", (c) => delayedRunOnce(c, 3_000, 2_000)));

  it(
    "cancel through process A aborts the task running on process B",
    { timeout: 60_000 },
    () => withWorkers("cancel", cancelAcrossProcesses),
  );

  it("fires a 1-second cron once per occurrence across 3 processes, also after a kill", {
    timeout: 60_000,
  }, () => withWorkers("cron", cronAcrossKill));

  it(
    "loses nothing when one process is killed with SIGKILL mid-run",
    { timeout: 90_000 },
    () => withWorkers("kill", (c) => killNineLosesNothing(c, 2_000)),
  );

  it(`an idle worker sends at most 0.5 + 0.1 × ${PARTITIONS} commands/s to the cluster`, {
    timeout: 90_000,
  }, () =>
    withWorkers("idle", async (c) => {
      await c.spawn(1, { SKEDULR_POOLS: "default=10,critical=4,bulk=32" });
      const recoveries = (s: CommandCount) =>
        s.byCommand.find(([name]) => name === "script:recoverExpired")?.[1] ?? 0;
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
