/**
 * @module failover.cluster — a Redis Cluster losing a master while worker processes run: a
 * manual failover (`CLUSTER FAILOVER` on a replica) loses no task, and a master killed with
 * SIGKILL loses at most what asynchronous replication had not copied yet, which this test
 * measures and prints (docs/PARTITIONS.md quotes it). 3 masters with a replica each, the
 * deployment in 3 partitions. Run by `npm run test:cluster`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RedisClusterHandle, startRedisCluster } from "../../scripts/tools/redis-cluster.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { type Cluster, startCluster, submitOverHttp } from "../helpers/cluster-workers.ts";
import { hashSlot } from "../../src/storage/redis/keys.ts";

let redis: RedisClusterHandle;

async function withWorkers(name: string, test: (c: Cluster) => Promise<void>): Promise<void> {
  const c = await startCluster({ clusterNodes: redis.seeds, partitions: 3 }, name);
  try {
    await test(c);
  } finally {
    await c.close();
  }
}

/** The master serving partition `k`'s hash tag now. */
function masterOf(c: Cluster, k: number): number {
  const slot = hashSlot(`{${c.tags[k]}}`);
  const line = redis.cli(redis.masters()[0], "CLUSTER", "NODES").split("\n").find((l) => {
    const f = l.split(" ");
    return f[2]?.includes("master") && !f[2].includes("fail") && f.slice(8).some((r) => {
      const [lo, hi] = r.split("-").map(Number);
      return slot >= lo && slot <= (hi ?? lo);
    });
  })!;
  return Number(/:(\d+)@/.exec(line)![1]);
}

/** Every unfinished task has run to success or death: the deployment is quiet. */
async function quiet(c: Cluster, timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      const s = (await c.client.stats()).byStatus;
      return s.queued + s.running + s.scheduled + s.retrying === 0;
    },
    "every task finished",
    timeoutMs,
  );
}

describe("a Redis Cluster losing a master under load, 3 partitions", () => {
  before(async () => {
    redis = await startRedisCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 2_000 });
  });
  after(async () => {
    await redis?.stop();
  });

  it("a manual failover (CLUSTER FAILOVER on a replica) mid-run loses no task", {
    timeout: 90_000,
  }, () =>
    withWorkers("failover", async (c) => {
      const ws = await c.spawn(2, { SKEDULR_POOLS: "default=10" });
      const n = 2_000;
      // The handlers write their evidence to the same cluster: a write in flight when the
      // old master hands over may fail (never resent), so they get retries, as any handler
      // whose own store blips should. Skedulr's own calls retry what is safe to.
      const spec = {
        type: "count",
        payload: { ms: 5 },
        maxRetries: 3,
        backoff: { type: "fixed", delay: "200ms" },
      };
      const ids = await submitOverHttp(ws, Array.from({ length: n }, () => spec));
      const master = masterOf(c, 0);
      const [replica] = redis.replicasOf(master);
      await eventually(async () => (await c.runs()).size >= n / 4, "a quarter ran", 30_000);
      await redis.failover(replica);
      assert.equal(masterOf(c, 0), replica, "partition 0 is served by the promoted replica");
      await quiet(c, 60_000);
      const stats = await c.client.stats();
      const dead = (await c.client.list({ status: "dead", limit: 3 })).items;
      assert.deepEqual(dead.map((t) => t.error?.message), [], "no task died");
      assert.equal(stats.byStatus.succeeded, n, "every task succeeded");
      assert.equal(stats.byStatus.dead, 0);
      const runs = await c.runs();
      for (const id of ids) assert.ok((runs.get(id) ?? 0) >= 1, `${id} ran`);
      const twice = [...runs.values()].filter((x) => x > 1).length;
      console.log(
        `  manual failover of partition 0's master: ${n}/${n} succeeded, none dead; ` +
          `${stats.totals.failedAttempts} handler attempts failed on their own evidence ` +
          `writes (retried); ${twice} ran more than once`,
      );
    }));

  it("a killed master: what asynchronous replication loses, and the rest runs", {
    timeout: 120_000,
  }, () =>
    withWorkers("killed", async (c) => {
      const ws = await c.spawn(2, { SKEDULR_POOLS: "default=10", SKEDULR_LEASE_MS: "2000" });
      const victim = masterOf(c, 1);
      const acked: string[] = [];
      let refused = 0;
      let stop = false;
      // Submits keep coming, 50 at a time, until the replica took over.
      const load = (async () => {
        while (!stop) {
          // No evidence written: the handler must not depend on the master being killed.
          const batch = Array.from({ length: 50 }, () => ({ type: "noop" }));
          const answers = await Promise.all(batch.map(async (spec) => {
            try {
              const r = await fetch(`${ws[acked.length % 2].url}/api/tasks`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify(spec),
              });
              return r.status === 201 ? ((await r.json()) as { id: string }).id : null;
            } catch {
              return null;
            }
          }));
          for (const id of answers) id === null ? refused++ : acked.push(id);
        }
      })();
      await eventually(() => acked.length >= 1_000, "1000 acknowledged", 30_000);
      const killedAt = Date.now();
      await redis.kill(victim);
      await eventually(() => masterOf(c, 1) !== victim, "a replica to take over", 30_000);
      await redis.ready(30_000);
      const promotedIn = Date.now() - killedAt;
      await eventually(() => acked.length >= 2_000, "submits going on", 30_000);
      stop = true;
      await load;
      await quiet(c, 60_000);
      const found = await Promise.all(acked.map((id) => c.client.get(id)));
      const lost = acked.filter((_, i) => found[i] === null);
      const notSucceeded = found.filter((t) => t && t.status !== "succeeded");
      assert.deepEqual(notSucceeded.map((t) => t!.status), [], "every kept task succeeded");
      const lostIn1 = lost.filter((id) => id.endsWith("~1")).length;
      assert.equal(lostIn1, lost.length, "only the killed master's partition can lose");
      console.log(
        `  killed master (partition 1): replica promoted in ${promotedIn} ms; ` +
          `${acked.length} submits acknowledged, ${lost.length} of them lost (not yet ` +
          `replicated), ${refused} refused while it was down; every kept task succeeded`,
      );
    }));
});
