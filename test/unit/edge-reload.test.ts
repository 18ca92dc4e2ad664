/**
 * The edge run after Redis lost its scripts (a restart, a failover, SCRIPT and FUNCTION
 * FLUSH): every script call is sent again after the calls issued behind it, so a claim can
 * run before the settle that released work for it. The run sees the reloads and claims once
 * more: a workflow child its parent's settle released is still delivered in the same run.
 * Its own redis-server, since a flush would disturb other tests.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startRedisServer } from "../../scripts/tools/redis-server.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { Scheduler } from "../../src/scheduler.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { edgeRun } from "../../src/worker/edge-run.ts";
import { type HttpFetcher, httpTaskHandler } from "../../src/worker/http-task.ts";
import { silentLogger } from "../../src/worker/middleware.ts";

describe("the edge run after Redis lost its scripts", () => {
  let server: Awaited<ReturnType<typeof startRedisServer>>;
  before(async () => {
    server = await startRedisServer();
  });
  after(() => server?.stop());

  it("claims once more, and delivers the child its parent's settle released", async () => {
    const transport = connectRedisTcp(server.url);
    const storage = new RedisStorage({ transport, prefix: "edge-reload" });
    await storage.init();
    await storage.prepare();
    const clock = new ManualClock(Date.UTC(2026, 0, 5));
    const s = new Scheduler({ storage, clock, pools: {}, logger: silentLogger });
    try {
      const http = (path: string) => ({
        type: "http",
        pool: "edge",
        payload: { url: `https://hooks.example.com/${path}` },
      });
      const parent = await s.submit({ ...http("parent"), id: "parent" });
      const child = await s.submit({ ...http("child"), dependsOn: [parent] });
      await transport.send(["SCRIPT", "FLUSH"]);
      await transport.send(["FUNCTION", "FLUSH"]);
      const got: string[] = [];
      const fetcher: HttpFetcher = (r) => {
        got.push(r.url.pathname);
        return Promise.resolve({ status: 200, body: null });
      };
      const reloadsBefore = storage.scriptReloads();
      await edgeRun({
        storage,
        clock,
        logger: silentLogger,
        workerId: "edge-test",
        host: "test",
        config: {
          pools: new Map([["edge", 4]]),
          leaseMs: 3_000,
          timeoutMs: 2_000,
          subrequests: 1_000,
          runMs: 20_000,
        },
        handlers: new Map([["http", { handler: httpTaskHandler({ fetcher }) }]]),
        spent: () => 0,
        reloads: () => storage.scriptReloads(),
        heartbeatTtlMs: null,
        startedAt: clock.now(),
      });
      assert.ok(storage.scriptReloads() > reloadsBefore, "the scripts were sent again in full");
      assert.deepEqual(got, ["/parent", "/child"]);
      assert.equal((await s.get(child))?.status, "succeeded");
    } finally {
      await storage.close();
    }
  });
});
