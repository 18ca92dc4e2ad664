/**
 * @module redis-flow-keys.test — flow control keys across three real worker processes
 * (scripts/entry/worker.ts) on one throwaway redis-server: a key's parallelism is never
 * exceeded (sampled from the store while they work) while other keys keep running, a key's
 * starts never exceed its rate over any window, and every task runs once.
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

/** Counts the task rows (ARGV: their keys) whose status is running, in one atomic read. */
const COUNT_RUNNING = `local n = 0
for _, k in ipairs(ARGV) do
  if redis.call('HGET', k, 'status') == 'running' then n = n + 1 end
end
return n`;

describe("flow control keys over three worker processes", () => {
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    await server.stop();
  });

  it("parallelism 3 for key A among other keys: A never runs more than 3, each task once", async () => {
    await withThreeWorkers(server.url, "flowpar", { SKEDULR_POOLS: "default=10" }, async (c) => {
      const specs = Array.from({ length: 60 }, (_, i) => ({
        type: "count",
        payload: { ms: 40 },
        flowControl: { key: i % 2 === 0 ? "A" : `other-${i % 6}`, parallelism: 3 },
      }));
      const ids = await submitOverHttp(c.workers, specs);
      const p = `${c.prefix}:{default}:`;
      const keysOfA = ids.filter((_, i) => i % 2 === 0).map((id) => `${p}task:${id}`);
      let peak = 0;
      let peakCounter = 0;
      let samples = 0;
      const deadline = Date.now() + 20_000;
      while ((await succeeded(c)) < ids.length && Date.now() < deadline) {
        // A's running tasks, counted atomically from their rows, and the key's own counter.
        const running = await c.redis.send(["EVAL", COUNT_RUNNING, "0", ...keysOfA]);
        // The key's packed state: running + 1e7 * parallelism + flags (lua/includes/flow-state.lua).
        const state = await c.redis.send(["GET", `${p}flow:A`]);
        const counter = Number(state ?? 0) % 1e7;
        peak = Math.max(peak, Number(running));
        peakCounter = Math.max(peakCounter, counter);
        samples++;
      }
      assert.equal(await succeeded(c), ids.length, "all succeeded in time");
      assert.ok(samples > 20, `${samples} samples`);
      assert.ok(peak <= 3, `key A's running tasks peaked at ${peak}`);
      assert.ok(peakCounter <= 3, `key A's running count peaked at ${peakCounter}`);
      assert.ok(peakCounter > 0, "the key's running count was read (a wrong key name reads 0)");
      assert.equal(peak, 3, "the limit is used, not just respected");
      assertEachRanOnce(await c.runs(), ids);
    });
  });

  it("rate 10/500ms for one key over three processes: never more than 10 starts in any 500 ms", async () => {
    await withThreeWorkers(server.url, "flowrate", { SKEDULR_POOLS: "default=10" }, async (c) => {
      const flowControl = { key: "R", rate: 10, period: "500ms" };
      const specs = Array.from({ length: 45 }, () => ({ type: "count", flowControl }));
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
      const starts = rows.map(Number).sort((a, b) => a - b);
      for (const s of starts) {
        const inWindow = starts.filter((t) => t >= s && t < s + 500).length;
        assert.ok(
          inWindow <= 10,
          `${inWindow} starts in the 500 ms from ${s - starts[0]} ms: ${
            starts.map((t) => t - starts[0]).join(",")
          }`,
        );
      }
      // 45 starts at 10 per 500 ms need 2 s; the key's wake-ups keep it near that.
      assert.ok(starts[44] - starts[0] >= 2_000, `spread ${starts[44] - starts[0]} ms`);
      assert.ok(starts[44] - starts[0] < 3_500, `spread ${starts[44] - starts[0]} ms`);
      assert.ok(elapsed < 10_000, `took ${elapsed} ms`);
      assertEachRanOnce(await c.runs(), ids);
    });
  });
});
