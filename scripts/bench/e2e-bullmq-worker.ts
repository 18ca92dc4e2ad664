/**
 * @module e2e-bullmq-worker — one BullMQ worker process for scripts/bench/e2e.ts: the same
 * three handlers as e2e-jobs.ts, BullMQ's default connection (ioredis) and options, with the
 * concurrency the driver asks for. Prints `ready` once connected; exits on SIGTERM.
 *
 *   REDIS_URL=redis://127.0.0.1:6380 BENCH_QUEUE=q BENCH_CONCURRENCY=50 bun scripts/bench/e2e-bullmq-worker.ts
 */
import process from "node:process";
import { Worker } from "bullmq";
import { preciseNow, recorder } from "./e2e-recorder.ts";

const url = new URL(process.env.REDIS_URL!);
const record = recorder(process.env.REDIS_URL!, process.env.BENCH_SAMPLES ?? "bench:samples");

const worker = new Worker(
  process.env.BENCH_QUEUE ?? "bench",
  async (job) => {
    if (job.name === "latency") record(preciseNow() - job.data.t);
    else if (job.name === "lateness") record(preciseNow() - job.data.due);
    return null;
  },
  {
    connection: { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null },
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? 50),
  },
);
worker.on("error", (error) => console.error(`bullmq worker: ${error.message}`));
await worker.waitUntilReady();
console.log("ready");
process.on("SIGTERM", async () => {
  await worker.close();
  process.exit(0);
});
