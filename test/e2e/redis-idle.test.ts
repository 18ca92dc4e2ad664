/**
 * @module redis-idle.test — an idle worker process costs at most about one Redis command
 * per second, and still wakes at once for new work.
 *
 * Pub/sub wakes pools when work arrives, so an idle worker only runs its background duties:
 * the backstop claim poll, lease recovery, the instance heartbeat, the look-ahead scans and
 * the status line of `bun run worker`. This is a functional bound (a cost users pay per
 * idle instance, e.g. on metered Redis), measured with MONITOR on a private server.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RedisServerHandle, startRedisServer } from "../../scripts/tools/redis-server.ts";
import { type CommandCount, countCommandsUntil } from "../helpers/cluster-monitor.ts";
import { type Cluster, startCluster } from "../helpers/cluster-workers.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { readSse } from "../helpers/sse.ts";

const POLLS = 3;
const MAX_PER_SECOND = 1;

let server: RedisServerHandle;
let c: Cluster;

describe("an idle worker process on Redis", () => {
  before(async () => {
    server = await startRedisServer();
    c = await startCluster(server.url, "idle");
  });
  after(async () => {
    await c.close();
    await server.stop();
  });

  it(`sends at most ${MAX_PER_SECOND} command/s with 3 pools`, { timeout: 40_000 }, async () => {
    // The defaults of `bun run worker` (two pools, 30 s lease, the status line on) and a
    // pool large enough to claim through two lanes.
    await c.spawn(1, { SKEDULR_POOLS: "default=10,critical=4,bulk=32" });
    // Watch until the backstop poll has claimed POLLS times (one every 5 s): a window set by
    // what the worker does, not a fixed sleep.
    const polls = (seen: CommandCount) =>
      seen.byCommand.find(([name]) => name === "script:claim")?.[1] ?? 0;
    const seen = await countCommandsUntil(server.port, (s) => polls(s) >= POLLS, 30_000);
    // One claim call per backstop poll (5 s) for every pool and lane together, +1 at start.
    const claims = seen.byCommand.find(([name]) => name === "script:claim")?.[1] ?? 0;
    assert.ok(claims <= Math.ceil(seen.seconds / 5) + 1, `${claims} claim calls`);
    const rate = seen.total / seen.seconds;
    console.log(
      `  idle worker: ${seen.total} commands in ${seen.seconds.toFixed(1)} s = ${
        rate.toFixed(2)
      }/s (${seen.byCommand.map(([name, n]) => `${name} ${n}`).join(", ")})`,
    );
    assert.ok(rate <= MAX_PER_SECOND, `idle rate ${rate.toFixed(2)}/s`);
  });

  it("an open event stream (GET /events) adds no command while nothing happens", {
    timeout: 40_000,
  }, async () => {
    const stream = readSse(await fetch(`${c.workers[0].url}/api/events`));
    try {
      await eventually(() => stream.frames.some((f) => f.event === "open"), "the stream opens");
      const polls = (seen: CommandCount) =>
        seen.byCommand.find(([name]) => name === "script:claim")?.[1] ?? 0;
      const seen = await countCommandsUntil(server.port, (s) => polls(s) >= 2, 30_000);
      const names = seen.byCommand.map(([name]) => name);
      console.log(`  idle with a stream open: ${names.join(", ")} in ${seen.seconds.toFixed(1)} s`);
      // The idle duties of the test above, and nothing the stream would read with.
      assert.ok(!names.some((n) => n === "xrange" || n === "get"), `the stream read: ${names}`);
      assert.ok(seen.total / seen.seconds <= MAX_PER_SECOND, `${seen.total} commands`);
      assert.equal(stream.ended(), false);
    } finally {
      await stream.close();
    }
  });

  it("still starts new work within milliseconds after idling", { timeout: 20_000 }, async () => {
    const id = await c.client.submit({ type: "count" });
    const task = await eventually(
      async () => {
        const t = await c.client.get(id);
        return t?.status === "succeeded" ? t : null;
      },
      "the task to run",
      5_000,
    );
    const wait = task.startedAt! - task.createdAt;
    console.log(`  after idling: enqueue→start ${wait} ms`);
    assert.ok(wait < 500, `woken by pub/sub, not by the backstop poll (${wait} ms)`);
  });
});
