/**
 * @module e2e-systems — Skedulr and BullMQ behind one small interface for scripts/bench/e2e.ts:
 * start N real worker processes, pause and resume cluster-wide, submit in bulk or one by
 * one, and count completions — each system through its own public API and default
 * settings, on the same Redis.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import process from "node:process";
import { Queue } from "bullmq";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { ready, startWorker, type WorkerProcess } from "../tools/worker-process.ts";

/** One task of a benchmark: a handler name, its payload and, for delayed work, its due time. */
export interface BenchJob {
  name: "noop" | "latency" | "lateness";
  data: Record<string, number>;
  runAt?: number;
}

export interface BenchSystem {
  /**
   * `base`: Skedulr's worker from another checkout (an A/B run, `--base <dir>`); `quiet`:
   * this one with task events off (`--events-ab`).
   */
  readonly name: "skedulr" | "bullmq" | "base" | "quiet";
  /** Starts `n` worker processes of `concurrency` each on a fresh namespace; resolves when ready. */
  start(n: number, concurrency: number): Promise<void>;
  /** Kills the worker processes and closes the driver's connections. */
  stop(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Submits in bulk, `chunk` jobs per call (Skedulr `submitMany`, BullMQ `addBulk`). */
  submitBulk(jobs: BenchJob[], chunk: number): Promise<void>;
  /** Submits one job (Skedulr `submit`, BullMQ `add`). */
  submitOne(job: BenchJob): Promise<void>;
  /** How many jobs completed so far, read from the system's own bookkeeping. */
  completed(): Promise<number>;
  /** The worker processes' pids (to tell their CPU time from other processes'). */
  pids(): number[];
}

let runs = 0;

/**
 * Skedulr: real `scripts/entry/worker.ts` processes running scripts/bench/e2e-jobs.ts; with
 * `root`, the worker of that checkout (the client side stays this one's); `taskEvents`
 * false: the deployment's task events off.
 */
export function skedulr(
  url: string,
  samples: string,
  root?: string,
  taskEvents = true,
): BenchSystem {
  const prefix = `bench${++runs}`;
  const admin: RedisTransport = connectRedisTcp(url);
  let storage: RedisStorage | null = null;
  let client: Scheduler | null = null;
  let workers: WorkerProcess[] = [];
  return {
    name: root ? "base" : taskEvents ? "skedulr" : "quiet",
    async start(n, concurrency) {
      storage = new RedisStorage({ transport: connectRedisTcp(url), prefix, taskEvents });
      await storage.init();
      client = new Scheduler({ storage, pools: {}, logger: silentLogger });
      workers = await Promise.all(Array.from({ length: n }, () =>
        startWorker({
          REDIS_URL: url,
          SKEDULR_PREFIX: prefix,
          SKEDULR_POOLS: `default=${concurrency}`,
          SKEDULR_JOBS: "scripts/bench/e2e-jobs.ts",
          BENCH_SAMPLES: samples,
          SKEDULR_TASK_EVENTS: taskEvents ? "on" : "off",
        }, root ? baseWorker(root) : undefined)));
      await Promise.all(workers.map((w) => ready(w, 30_000)));
    },
    async stop() {
      await Promise.all(workers.map((w) => w.stop("SIGKILL")));
      await storage?.close();
      await admin.close();
    },
    pause: () => client!.pause(),
    resume: () => client!.resume(),
    async submitBulk(jobs, chunk) {
      for (let i = 0; i < jobs.length; i += chunk) {
        await client!.submitMany(jobs.slice(i, i + chunk).map(spec));
      }
    },
    async submitOne(job) {
      await client!.submit(spec(job));
    },
    async completed() {
      // `totals`, not `counts`: counts cover retained rows only (10k finished by default).
      return Number(await admin.send(["HGET", `${prefix}:{default}:totals`, "succeeded"]) ?? 0);
    },
    pids: () => workers.map((w) => w.child.pid!),
  };
}

/** The worker entry of another checkout (older ones kept it at scripts/worker.ts). */
function baseWorker(root: string): string {
  const entry = `${root}/scripts/entry/worker.ts`;
  return existsSync(entry) ? entry : `${root}/scripts/worker.ts`;
}

function spec(job: BenchJob) {
  return { type: job.name, payload: job.data, ...(job.runAt ? { runAt: job.runAt } : {}) };
}

/** BullMQ: e2e-bullmq-worker.ts processes, default options, ioredis connections. */
export function bullmq(url: string, samples: string): BenchSystem {
  const name = `bench${++runs}`;
  const u = new URL(url);
  const connection = { host: u.hostname, port: Number(u.port), maxRetriesPerRequest: null };
  const admin: RedisTransport = connectRedisTcp(url);
  let queue: Queue | null = null;
  let children: ChildProcess[] = [];
  return {
    name: "bullmq",
    async start(n, concurrency) {
      queue = new Queue(name, { connection });
      await queue.waitUntilReady();
      children = Array.from(
        { length: n },
        () =>
          spawn("bun", ["scripts/bench/e2e-bullmq-worker.ts"], {
            env: {
              ...process.env,
              REDIS_URL: url,
              BENCH_QUEUE: name,
              BENCH_CONCURRENCY: String(concurrency),
              BENCH_SAMPLES: samples,
            },
            stdio: ["ignore", "pipe", "inherit"],
          }),
      );
      await Promise.all(children.map(readyLine));
    },
    async stop() {
      await Promise.all(children.map((c) => {
        if (c.exitCode !== null) return;
        const exited = new Promise((r) => c.once("exit", r));
        c.kill("SIGKILL");
        return exited;
      }));
      await queue?.close();
      await admin.close();
    },
    pause: () => queue!.pause(),
    resume: () => queue!.resume(),
    async submitBulk(jobs, chunk) {
      const base = Date.now();
      for (let i = 0; i < jobs.length; i += chunk) {
        await queue!.addBulk(
          jobs.slice(i, i + chunk).map((j) => ({
            name: j.name,
            data: j.data,
            // BullMQ's due time is timestamp + delay: pin both so it equals j.runAt exactly.
            ...(j.runAt ? { opts: { timestamp: base, delay: Math.max(0, j.runAt - base) } } : {}),
          })),
        );
      }
    },
    async submitOne(job) {
      await queue!.add(job.name, job.data);
    },
    async completed() {
      return Number(await admin.send(["ZCARD", `bull:${name}:completed`]));
    },
    pids: () => children.map((c) => c.pid!),
  };
}

function readyLine(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`bullmq worker not ready: ${out}`)), 30_000);
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`bullmq worker exited ${code}: ${out}`)));
  });
}
