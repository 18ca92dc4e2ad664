/**
 * @module redis-pool-limits.test — cluster-wide pool limits across three real worker
 * processes (scripts/entry/worker.ts) on one throwaway redis-server, set through
 * SKEDULR_POOLS: the global concurrency is never exceeded (sampled from the store while they
 * work), starts never exceed the rate over any window, and every task runs once.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RedisServerHandle, startRedisServer } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import {
  assertEachRanOnce,
  submitOverHttp,
  succeeded,
  withThreeWorkers,
} from "../helpers/cluster-workers.ts";

let server: RedisServerHandle;

describe("cluster-wide pool limits over three worker processes", () => {
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    await server.stop();
  });

  it("global=4 over three processes of size 10: never more than 4 running, each task once", async () => {
    await withThreeWorkers(
      server.url,
      "global",
      { SKEDULR_POOLS: "default=10:global=4" },
      async (c) => {
        const specs = Array.from({ length: 40 }, () => ({ type: "count", payload: { ms: 60 } }));
        const ids = await submitOverHttp(c.workers, specs);
        const p = `${c.prefix}:{default}:`;
        let peakRunning = 0;
        let peakLeases = 0;
        let samples = 0;
        // Sampled straight from the store (every claim and settle is atomic there) until done.
        const deadline = Date.now() + 20_000;
        while ((await succeeded(c)) < ids.length && Date.now() < deadline) {
          const [running, leases] = await c.redis.pipeline([
            ["HGET", `${p}running`, "default"],
            ["ZCARD", `${p}leases`],
          ]);
          peakRunning = Math.max(peakRunning, Number(running ?? 0));
          peakLeases = Math.max(peakLeases, Number(leases));
          samples++;
        }
        assert.equal(await succeeded(c), ids.length, "all succeeded in time");
        assert.ok(samples > 20, `${samples} samples`);
        assert.ok(peakRunning <= 4, `running peaked at ${peakRunning}`);
        assert.ok(peakLeases <= 4, `leases peaked at ${peakLeases}`);
        assert.equal(peakRunning, 4, "the limit is used, not just respected");
        assertEachRanOnce(await c.runs(), ids);
        const byPid = await c.runsByPid();
        assert.ok(byPid.size >= 2, `work spread over processes: ${JSON.stringify([...byPid])}`);
      },
    );
  });

  it("rate=10/500ms over three processes: never more than 10 starts in any 500 ms, each task once", async () => {
    await withThreeWorkers(
      server.url,
      "rate",
      { SKEDULR_POOLS: "default=10:rate=10/500ms" },
      async (c) => {
        const specs = Array.from({ length: 45 }, () => ({ type: "count" }));
        const t0 = Date.now();
        const ids = await submitOverHttp(c.workers, specs);
        await eventually(
          async () => (await succeeded(c)) >= ids.length || null,
          "all succeeded",
          15_000,
        );
        const elapsed = Date.now() - t0;
        const rows = await c.redis.pipeline(
          ids.map((id) => ["HGET", `${c.prefix}:{default}:task:${id}`, "startedAt"]),
        );
        // startedAt is the claim's `now`: the time the store's window counted.
        const starts = rows.map(Number).sort((a, b) => a - b);
        for (const s of starts) {
          const inWindow = starts.filter((t) => t >= s && t < s + 500).length;
          assert.ok(inWindow <= 10, `${inWindow} starts in the 500 ms from ${s - starts[0]} ms`);
        }
        // 45 starts at 10 per 500 ms need 2 s; the wake-ups keep it near that, far from the
        // 5 s backstop poll per held window.
        assert.ok(starts[44] - starts[0] >= 2_000, `spread ${starts[44] - starts[0]} ms`);
        assert.ok(starts[44] - starts[0] < 3_500, `spread ${starts[44] - starts[0]} ms`);
        assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
        assertEachRanOnce(await c.runs(), ids);
      },
    );
  });
});
