/**
 * @module memory bench — Redis memory per task, Skedulr next to BullMQ on one throwaway
 * redis-server in one run:
 *
 *   bun scripts/bench/memory.ts [--queued 100000] [--finished 20000]
 *
 * - queued: `--queued` no-op tasks submitted in batches of 1,000 (Skedulr `submitMany`,
 *   BullMQ `addBulk`), `used_memory` growth ÷ tasks;
 * - finished: `--finished` no-op tasks submitted, then claimed and completed in the store
 *   (Skedulr: claim 50 + complete, history kept; BullMQ: a worker with its defaults, which
 *   keep every completed job), growth ÷ tasks.
 * Skedulr is measured with task events on (the default: their buffer is a bounded cost, at
 * most TASK_EVENT_BUFFER batches) and off. Each measurement on a flushed server; prints the
 * encoding and size of one task's hash too.
 */
import process from "node:process";
import { Queue, Worker } from "bullmq";
import { startRedisServer } from "../tools/redis-server.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { arg } from "./bench-args.ts";

const QUEUED = Number(arg("queued", "100000"));
const FINISHED = Number(arg("finished", "20000"));

const server = await startRedisServer();
const admin = connectRedisTcp(server.url);
const used = async () =>
  Number(String(await admin.send(["INFO", "memory"])).match(/used_memory:(\d+)/)![1]);
const perTask = (bytes: number, n: number) => Math.round(bytes / n);

async function skedulr(n: number, finish: boolean, taskEvents: boolean) {
  await admin.send(["FLUSHALL"]);
  const storage = new RedisStorage({
    transport: connectRedisTcp(server.url),
    prefix: "mem",
    taskEvents,
    history: { maxCount: 10 * n },
  });
  await storage.init();
  const client = new Scheduler({ storage, pools: {}, logger: silentLogger });
  await client.submit({ type: "warm" });
  const before = await used();
  for (let i = 0; i < n; i += 1000) {
    await client.submitMany(
      Array.from({ length: Math.min(1000, n - i) }, () => ({ type: "noop" })),
    );
  }
  if (finish) {
    const owner = { workerId: "w", leaseMs: 600_000 };
    for (;;) {
      const claimed = await storage.claim({ pool: "default", max: 50, owner, now: Date.now() });
      if (claimed.length === 0) break;
      await Promise.all(claimed.map((t) =>
        storage.complete({
          lease: { id: t.id, workerId: "w", token: t.token },
          result: null,
          now: Date.now(),
        })
      ));
    }
  }
  const bytes = (await used()) - before;
  const [key] = await admin.send(["SCAN", "0", "MATCH", "mem:*:task:*", "COUNT", "1000"])
    .then((r) => (r as [string, string[]])[1]);
  const shape = key
    ? `${await admin.send(["OBJECT", "ENCODING", key])}, ${await admin.send([
      "MEMORY",
      "USAGE",
      key,
    ])} B`
    : "";
  await storage.close();
  return { perTask: perTask(bytes, n), shape };
}

async function bullmq(n: number, finish: boolean) {
  await admin.send(["FLUSHALL"]);
  const u = new URL(server.url);
  const connection = { host: u.hostname, port: Number(u.port), maxRetriesPerRequest: null };
  const queue = new Queue("mem", { connection });
  await queue.waitUntilReady();
  await queue.add("warm", {});
  const before = await used();
  if (finish) await queue.pause();
  for (let i = 0; i < n; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, n - i) }, () => ({ name: "noop", data: {} })),
    );
  }
  if (finish) {
    const worker = new Worker("mem", async () => null, { connection, concurrency: 50 });
    await queue.resume();
    for (;;) {
      const done = Number(await admin.send(["ZCARD", "bull:mem:completed"]));
      if (done >= n + 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await worker.close();
  }
  const bytes = (await used()) - before;
  await queue.close();
  return { perTask: perTask(bytes, n), shape: "" };
}

console.log(`memory bench: redis ${server.url}, ${QUEUED} queued, ${FINISHED} finished`);
const rows: [string, { perTask: number; shape: string }, { perTask: number; shape: string }][] = [
  [
    "Skedulr, task events on",
    await skedulr(QUEUED, false, true),
    await skedulr(FINISHED, true, true),
  ],
  [
    "Skedulr, task events off",
    await skedulr(QUEUED, false, false),
    await skedulr(FINISHED, true, false),
  ],
  ["BullMQ (defaults)", await bullmq(QUEUED, false), await bullmq(FINISHED, true)],
];
console.log(
  "| system | per queued no-op task | per finished task (history kept) | a queued task's hash |",
);
console.log("|---|---:|---:|---|");
for (const [name, q, f] of rows) {
  console.log(`| ${name} | ${q.perTask} B | ${f.perTask} B | ${q.shape} |`);
}
await admin.close();
await server.stop();
process.exit(0);
