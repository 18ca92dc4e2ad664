/**
 * SIGTERM drains: a `bun scripts/entry/worker.ts` process (as `npm run worker` starts it) lets its
 * running handler finish and stores the result before it exits 0; a handler that outlives
 * SKEDULR_SHUTDOWN_TIMEOUT is stopped and its task handed back, not lost. On a throwaway
 * Redis, so the records can be read after the process is gone.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import {
  type RedisServerHandle,
  startRedisServer,
  uniquePrefix,
} from "../../scripts/tools/redis-server.ts";
import { ready, startWorker } from "../../scripts/tools/worker-process.ts";
import { eventually } from "../../scripts/tools/wait.ts";

let server: RedisServerHandle;

async function withWorker(
  env: Record<string, string>,
  test: (client: Scheduler, stop: () => Promise<number | null>) => Promise<void>,
) {
  const prefix = uniquePrefix("drain");
  const storage = new RedisStorage({ transport: connectRedisTcp(server.url), prefix });
  await storage.init();
  const client = new Scheduler({ storage, pools: {}, logger: silentLogger });
  const w = await ready(
    await startWorker({
      REDIS_URL: server.url,
      SKEDULR_PREFIX: prefix,
      SKEDULR_JOBS: "test/e2e/fixtures/jobs.ts",
      ...env,
    }),
  );
  try {
    await test(client, () => w.stop("SIGTERM"));
  } finally {
    await w.stop("SIGKILL");
    await storage.close();
  }
}

const running = (client: Scheduler, id: string) =>
  eventually(async () => (await client.get(id))?.status === "running", "the task to run", 10_000);

describe("SIGTERM drain", () => {
  before(async () => {
    server = await startRedisServer();
  });
  after(() => server.stop());

  it("the running handler finishes and its result is stored before the process exits 0", async () => {
    await withWorker({}, async (client, stop) => {
      const id = await client.submit({ type: "sleep", payload: { ms: 800 } });
      await running(client, id);
      assert.equal(await stop(), 0);
      const t = await client.get(id);
      assert.equal(t?.status, "succeeded", "finished during the drain, not aborted");
      assert.equal(t?.result, "slept");
      assert.equal(t?.attempt, 1);
    });
  });

  it("a handler that outlives the shutdown timeout is stopped and its task handed back", async () => {
    await withWorker({ SKEDULR_SHUTDOWN_TIMEOUT: "300ms" }, async (client, stop) => {
      const id = await client.submit({ type: "forever" });
      await running(client, id);
      assert.equal(await stop(), 0);
      const t = await client.get(id);
      assert.equal(t?.status, "queued", "back in its queue for another worker");
      assert.equal(t?.attempt, 0, "the interrupted attempt is not counted");
    });
  });
});
