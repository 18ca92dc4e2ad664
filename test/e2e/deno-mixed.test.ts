/**
 * Mixed runtimes on one Redis: a Bun worker (`bun scripts/entry/worker.ts`, TCP) and a Deno worker
 * (`deno run -A scripts/entry/worker.ts`, over TCP, then over REST through the gateway) share the
 * work of one batch, and every task runs exactly once. The handler counts its own runs in
 * Redis (HINCRBY per task id), independently of the scheduler's bookkeeping.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { pairsToObject, type RedisTransport } from "../../src/storage/redis/transport.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const DENO = resolve("node_modules/.bin/deno");
const TOKEN = "mixed-gateway-token-0123";
const TASKS = 120;
const SLOW = { timeout: 60_000 };

/** A jobs module that counts each run of each task in Redis, by task id and by runtime. */
function writeJobs(dir: string): string {
  const transport = pathToFileURL(resolve("src/adapters/redis-tcp.ts")).href;
  const file = join(dir, "count-jobs.ts");
  writeFileSync(
    file,
    `import process from "node:process";
import { connectRedisTcp } from ${JSON.stringify(transport)};
const redis = connectRedisTcp(process.env.COUNT_REDIS_URL!);
const key = process.env.COUNT_KEY!;
const runtime = "Bun" in globalThis ? "bun" : "deno";
export default {
  count: async (payload: { ms: number }, ctx: { id: string }) => {
    await redis.send(["HINCRBY", key + ":runs", ctx.id, "1"]);
    await redis.send(["HINCRBY", key + ":by", runtime, "1"]);
    await new Promise((r) => setTimeout(r, payload.ms));
    return runtime;
  },
};
`,
  );
  return file;
}

describe("a Bun worker and a Deno worker on one Redis", () => {
  let redisUrl: string;
  let redis: RedisTransport;
  let dir: string;
  let jobs: string;
  let gateway: RunningGateway;
  before(async () => {
    redisUrl = await testRedisUrl();
    redis = connectRedisTcp(redisUrl);
    dir = mkdtempSync(join(tmpdir(), "skedulr-mixed-"));
    jobs = writeJobs(dir);
    gateway = await startGateway({ redisUrl, token: TOKEN });
  });
  after(async () => {
    await redis.close();
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts both workers, submits a batch to the Bun one, checks the outcome. */
  async function shareWork(denoStorage: Record<string, string>): Promise<void> {
    const prefix = uniquePrefix("mixed");
    const countKey = `${prefix}:count`;
    const common = {
      SKEDULR_PREFIX: prefix,
      SKEDULR_JOBS: jobs,
      SKEDULR_POOLS: "default=4",
      COUNT_REDIS_URL: redisUrl,
      COUNT_KEY: countKey,
    };
    const workers: WorkerProcess[] = [];
    try {
      workers.push(await startWorker({ ...common, REDIS_URL: redisUrl }));
      workers.push(
        await startWorker({ ...common, ...denoStorage }, "scripts/entry/worker.ts", [
          DENO,
          "run",
          "-A",
        ]),
      );
      const [bun, deno] = await Promise.all(workers.map((w) => ready(w, 30_000)));
      const over = denoStorage.UPSTASH_REDIS_REST_URL
        ? /storage: +redis over REST/
        : /storage: +redis redis:/;
      assert.match(deno.output(), over, "the Deno worker uses the storage it was given");
      const listed = await (await fetch(`${deno.url}/api/workers`)).json();
      assert.equal(listed.workers.length, 2, "both workers see each other in Redis");

      const specs = Array.from({ length: TASKS }, () => ({ type: "count", payload: { ms: 15 } }));
      const r = await fetch(`${bun.url}/api/tasks/batch`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(specs),
      });
      assert.equal(r.status, 201, await r.clone().text());
      const ids = ((await r.json()).tasks as { id: string }[]).map((t) => t.id);

      await eventually(
        async () => {
          const stats = await (await fetch(`${bun.url}/api/stats`)).json();
          return stats.totals.succeeded === TASKS;
        },
        `${TASKS} tasks succeeded`,
        30_000,
      );
      const runs = pairsToObject(await redis.send(["HGETALL", `${countKey}:runs`]));
      assert.deepEqual(Object.keys(runs).sort(), [...ids].sort(), "every task ran");
      const twice = Object.entries(runs).filter(([, n]) => n !== "1");
      assert.deepEqual(twice, [], "no task ran more than once");
      const by = pairsToObject(await redis.send(["HGETALL", `${countKey}:by`]));
      assert.ok(
        Number(by.bun) > 0 && Number(by.deno) > 0,
        `both shared the work: ${JSON.stringify(by)}`,
      );
      assert.equal(Number(by.bun) + Number(by.deno), TASKS);
    } finally {
      for (const w of workers) await w.stop();
    }
  }

  it("Deno over TCP", SLOW, async () => {
    await shareWork({ REDIS_URL: redisUrl });
  });

  it("Deno over REST through the gateway", SLOW, async () => {
    await shareWork({
      REDIS_URL: "", // the test run exports one; a REST worker must not see it
      UPSTASH_REDIS_REST_URL: gateway.url,
      UPSTASH_REDIS_REST_TOKEN: TOKEN,
    });
  });
});
