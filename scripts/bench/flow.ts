/**
 * @module flow bench — flow control keys (a spec's `flowControl`) on a throwaway
 * redis-server, one real worker process (`scripts/entry/worker.ts`, concurrency 50):
 *
 *   bun scripts/bench/flow.ts [--quick] [--reps 3] [--tasks 60000] [--only fairness,overhead,rate]
 *
 * - fairness: one tenant's 20,000 tasks queued before 50 tenants' 20 each, every tenant
 *   `parallelism: 2`, no-op handlers; the small tenants' wait (the queue resumed → their
 *   handler started), next to the same run without keys (plain FIFO);
 * - overhead: drain throughput of 60,000 no-op tasks (--tasks), each with a flow key (1,000
 *   distinct keys, limits far above use) against none, and Redis's time in scripts per task
 *   (`INFO commandstats`: steadier than throughput on a shared 2-core machine);
 * - rate: a key with `rate: 100, period: "1s"` over 30 s (10 s with --quick): starts per
 *   second, the most starts in any 1 s window, and how late each start came after its token
 *   freed (its start − the start 100 before it − 1 s, on the store's clock).
 */
import { loadavg } from "node:os";
import process from "node:process";
import { startRedisServer } from "../tools/redis-server.ts";
import { ready, startWorker, type WorkerProcess } from "../tools/worker-process.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { preciseNow } from "./e2e-recorder.ts";
import { arg, argv, median } from "./bench-args.ts";

const QUICK = argv.includes("--quick");
const REPS = Number(arg("reps", "3"));
/** Tasks per drain of the overhead part: a drain under a second is mostly noise here. */
const DRAIN_TASKS = Number(arg("tasks", "60000"));
const ONLY = new Set(arg("only", "fairness,overhead,rate").split(","));
const RATE_SECONDS = QUICK ? 10 : 30;
const SAMPLES = "bench:samples";

const server = await startRedisServer();
process.once("exit", () => {
  try {
    process.kill(server.pid, "SIGKILL");
  } catch { /* already gone */ }
});
const admin = connectRedisTcp(server.url);
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
console.log(`flow bench: redis ${server.url}, bun ${process.versions.bun}, load ${load()}`);

let runs = 0;
interface System {
  prefix: string;
  client: Scheduler;
  worker: WorkerProcess;
  stop(): Promise<void>;
}

/** A fresh namespace of a flushed server and one worker process of concurrency 50. */
async function system(): Promise<System> {
  await admin.send(["FLUSHALL"]);
  const prefix = `flow${++runs}`;
  const storage = new RedisStorage({ transport: connectRedisTcp(server.url), prefix });
  await storage.init();
  const client = new Scheduler({ storage, pools: {}, logger: silentLogger });
  const worker = await ready(
    await startWorker({
      REDIS_URL: server.url,
      SKEDULR_PREFIX: prefix,
      SKEDULR_POOLS: "default=50",
      SKEDULR_JOBS: "scripts/bench/flow-jobs.ts",
      BENCH_SAMPLES: SAMPLES,
    }),
    30_000,
  );
  return {
    prefix,
    client,
    worker,
    async stop() {
      await worker.stop("SIGKILL");
      await storage.close();
    },
  };
}

/** Redis's time in scripts since the last CONFIG RESETSTAT (µs): steadier than throughput. */
async function scriptUs(): Promise<number> {
  const info = String(await admin.send(["INFO", "commandstats"]));
  return [...info.matchAll(/cmdstat_eval(?:sha)?:calls=\d+,usec=(\d+)/g)]
    .reduce((sum, m) => sum + Number(m[1]), 0);
}

const succeeded = async (s: System) =>
  Number(await admin.send(["HGET", `${s.prefix}:{default}:totals`, "succeeded"]) ?? 0);

/** Polls every 10 ms (a tighter poll slows the system under test on 2 cores). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function submitAll(s: System, specs: unknown[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < specs.length; i += 1000) {
    ids.push(...(await s.client.submitMany(specs.slice(i, i + 1000))).map((t) => t.id));
  }
  return ids;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const f1 = (x: number) => x.toFixed(1);

/** The small tenants' waits (ms) from the resume to their handlers' starts. */
async function fairness(keyed: boolean): Promise<number[]> {
  const s = await system();
  try {
    await s.client.pause();
    const fc = (tenant: string) => (keyed ? { flowControl: { key: tenant, parallelism: 2 } } : {});
    const big = Array.from({ length: 20_000 }, () => ({ type: "noop", ...fc("big") }));
    const small = Array.from({ length: 1_000 }, (_, i) => ({ type: "small", ...fc(`t${i % 50}`) }));
    await submitAll(s, [...big, ...small]);
    const resumedAt = preciseNow();
    await s.client.resume();
    await until(
      async () => Number(await admin.send(["LLEN", SAMPLES])) >= small.length,
      "the small tenants' tasks to start",
      120_000,
    );
    const starts = (await admin.send(["LRANGE", SAMPLES, "0", "-1"]) as string[]).map(Number);
    return starts.map((t) => t - resumedAt).sort((a, b) => a - b);
  } finally {
    await s.stop();
  }
}

/** Tasks per second drained by the worker, all queued first. */
/** One drain: tasks per second, and Redis's script time per task (µs). */
async function drain(keyed: boolean): Promise<{ perSecond: number; scriptUs: number }> {
  const s = await system();
  try {
    await s.client.pause();
    const n = DRAIN_TASKS;
    const specs = Array.from({ length: n }, (_, i) => ({
      type: "noop",
      ...(keyed ? { flowControl: { key: `k${i % 1000}`, parallelism: 1000 } } : {}),
    }));
    await submitAll(s, specs);
    await admin.send(["CONFIG", "RESETSTAT"]);
    const t = performance.now();
    await s.client.resume();
    await until(async () => (await succeeded(s)) >= n, "the drain", 120_000);
    return { perSecond: n / ((performance.now() - t) / 1000), scriptUs: (await scriptUs()) / n };
  } finally {
    await s.stop();
  }
}

/** A rate-limited key over RATE_SECONDS: the tasks' start times on the store's clock. */
async function rate(): Promise<
  { perSecond: number; maxInWindow: number; late: number[]; first: number[] }
> {
  const s = await system();
  try {
    const n = 100 * RATE_SECONDS + 300;
    const flowControl = { key: "api", rate: 100, period: "1s" };
    const ids = await submitAll(
      s,
      Array.from({ length: n }, () => ({ type: "noop", flowControl })),
    );
    await until(
      async () => (await succeeded(s)) >= 100 * RATE_SECONDS + 100,
      "the rate run",
      (RATE_SECONDS + 30) * 1000,
    );
    const rows = await admin.pipeline(
      ids.map((id) => ["HGET", `${s.prefix}:{default}:task:${id}`, "startedAt"]),
    );
    const starts = rows.filter((r) => r !== null).map(Number).sort((a, b) => a - b);
    const t0 = starts[0];
    const inRun = starts.filter((t) => t < t0 + RATE_SECONDS * 1000).length;
    let maxInWindow = 0;
    for (let i = 0, j = 0; i < starts.length; i++) {
      while (starts[j] <= starts[i] - 1000) j++;
      maxInWindow = Math.max(maxInWindow, i - j + 1);
    }
    // Each start after the first 100 waits for a token: the start 100 before it + 1 s. Tokens
    // freed at the same time go to one claim: its first start measures the wake-up, the
    // rest also wait for the pool's 50 slots.
    const late = starts.slice(100).map((t, i) => t - (starts[i] + 1000)).sort((a, b) => a - b);
    const firstAfter = new Map<number, number>();
    starts.slice(100).forEach((t, i) => {
      const freed = starts[i] + 1000;
      firstAfter.set(freed, Math.min(firstAfter.get(freed) ?? Infinity, t - freed));
    });
    const first = [...firstAfter.values()].sort((a, b) => a - b);
    return { perSecond: inRun / RATE_SECONDS, maxInWindow, late, first };
  } finally {
    await s.stop();
  }
}

if (ONLY.has("fairness")) {
  const keyed = await fairness(true);
  const fifo = await fairness(false);
  const row = (name: string, w: number[]) =>
    `  ${name.padEnd(22)} p50 ${f1(pct(w, 0.5))} ms, p99 ${f1(pct(w, 0.99))} ms, max ${
      f1(w[w.length - 1])
    } ms`;
  console.log("fairness: 50 small tenants' waits behind one tenant's 20,000 tasks");
  console.log(row("flowControl (par 2)", keyed));
  console.log(row("no keys (FIFO)", fifo));
}
if (ONLY.has("overhead")) {
  const keyed: { perSecond: number; scriptUs: number }[] = [];
  const plain: typeof keyed = [];
  for (let rep = 0; rep < REPS; rep++) {
    // Alternating which goes first.
    if (rep % 2 === 0) {
      plain.push(await drain(false));
      keyed.push(await drain(true));
    } else {
      keyed.push(await drain(true));
      plain.push(await drain(false));
    }
    const [pr, kr] = [plain[rep], keyed[rep]];
    console.log(
      `  rep ${rep + 1}: no keys ${pr.perSecond.toFixed(0)}/s (${f1(pr.scriptUs)} µs of Redis ` +
        `scripts per task), keys ${kr.perSecond.toFixed(0)}/s (${f1(kr.scriptUs)} µs)`,
    );
  }
  const [k, p] = [median(keyed.map((r) => r.perSecond)), median(plain.map((r) => r.perSecond))];
  const [ku, pu] = [median(keyed.map((r) => r.scriptUs)), median(plain.map((r) => r.scriptUs))];
  console.log(
    `overhead: drain ${p.toFixed(0)}/s without keys, ${k.toFixed(0)}/s with a key per task ` +
      `(median of ${REPS}): ${(100 * (1 - k / p)).toFixed(1)}% slower; Redis script time per ` +
      `task ${f1(pu)} vs ${f1(ku)} µs (+${(100 * (ku / pu - 1)).toFixed(1)}%)`,
  );
}
if (ONLY.has("rate")) {
  const r = await rate();
  console.log(
    `rate: 100/s key over ${RATE_SECONDS} s: ${r.perSecond.toFixed(2)} starts/s ` +
      `(${(100 * (r.perSecond / 100 - 1)).toFixed(2)}%), at most ${r.maxInWindow} in any 1 s; ` +
      `the first start after a token frees: p50 ${f1(pct(r.first, 0.5))} ms, p99 ${
        f1(pct(r.first, 0.99))
      } ms, max ${f1(r.first[r.first.length - 1])} ms (${r.first.length} wake-ups); every start ` +
      `after its token: p50 ${f1(pct(r.late, 0.5))} ms, p99 ${f1(pct(r.late, 0.99))} ms`,
  );
}
console.log(`load ${load()}`);
await admin.close();
process.exit(0);
