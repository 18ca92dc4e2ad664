/**
 * @module rest bench — Skedulr end to end over Redis REST (the project's gateway, the same
 * protocol as Upstash) next to Redis TCP, in one run, on one throwaway redis-server.
 *
 *   bun scripts/bench/rest.ts [--reps 3] [--tasks 10000] [--singles 300] [--idle 30]
 *                             [--only throughput,latency,idle,modes]
 *
 * - throughput: `tasks` no-op tasks submitted in bulk (1000 per submitMany) while paused,
 *   then resumed and drained by 1 worker process of concurrency 50; also the CPU per task
 *   of the worker, the gateway and redis-server during the drain (from /proc), and for REST
 *   the HTTP requests per task the gateway served;
 * - latency: `singles` sequential single submits to 1 idle worker process; the handler
 *   takes start − submit on the host's shared clock (after 20 warm-up tasks);
 * - idle: 1 worker process (pools default=10,critical=4) with nothing to do, settled for
 *   5 s, then `idle` seconds counted at the servers: commands Redis received from clients
 *   (MONITOR; the calls inside scripts left out), and HTTP requests at the gateway for REST;
 * - modes: the REST transport's batchings, `ordered` (default: claims in a lane of their
 *   own), `one-lane` (ordered, every command in one lane: `claimLane: false`) and the
 *   client's own auto-pipelining (`client`), in one in-process Scheduler (pool 50) draining
 *   `tasks` no-op tasks: tasks/s and HTTP requests at the gateway.
 * Over REST the driver submits over REST too and the gateway is its own process (as a
 * remote endpoint would be); samples travel over TCP for both. Medians over `reps`. Prints
 * the load average before and after.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";
import process from "node:process";
import { freePort, startRedisServer } from "../tools/redis-server.ts";
import { ready, startWorker, type WorkerProcess } from "../tools/worker-process.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import type { PipelineMode } from "../../src/storage/redis/rest-pipeline.ts";
import { processCpuMicros } from "./e2e-cpu.ts";
import { arg, median } from "./bench-args.ts";

const REPS = Number(arg("reps", "3"));
const TASKS = Number(arg("tasks", "10000"));
const SINGLES = Number(arg("singles", "300"));
const IDLE_S = Number(arg("idle", "30"));
const ONLY = new Set(arg("only", "throughput,latency,idle,modes").split(","));
const SAMPLES = "bench:samples";
const TOKEN = "bench-rest-gateway-token";
type Kind = "tcp" | "rest";

const server = await startRedisServer();
const admin = connectRedisTcp(server.url);
const waiter = connectRedisTcp(server.url); // BLPOP blocks its connection
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
const gatewayPort = await freePort();
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const gateway: ChildProcess = spawn("bun", ["scripts/rest-gateway/main.ts"], {
  env: { ...process.env, REDIS_URL: server.url, GATEWAY_TOKEN: TOKEN, PORT: String(gatewayPort) },
  stdio: ["ignore", "ignore", "inherit"],
});
// A run that fails (a drain that times out) leaves neither server behind.
process.once("exit", () => {
  gateway.kill("SIGKILL");
  try {
    process.kill(server.pid, "SIGKILL");
  } catch { /* already gone */ }
});
const gatewayStats = async () =>
  (await (await fetch(`${gatewayUrl}/_gateway/stats`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })).json()) as { requests: number; commands: number };
for (let i = 0; !(await gatewayStats().catch(() => null)); i++) {
  if (i > 500) throw new Error("the gateway did not start");
  await new Promise((r) => setTimeout(r, 20));
}
console.log(`rest bench: redis ${server.url}, gateway ${gatewayUrl}, load ${load()}`);

let runs = 0;
/** A fresh namespace with a driver (same transport as the workers) and `n` worker processes. */
async function system(kind: Kind, n: number, pools: string) {
  const prefix = `bench${++runs}`;
  const storage = kind === "tcp"
    ? new RedisStorage({ transport: connectRedisTcp(server.url), prefix })
    : new RestRedisStorage({
      transport: new RestTransport({ url: gatewayUrl, token: TOKEN }),
      prefix,
    });
  await storage.init();
  const client = new Scheduler({ storage, pools: {}, logger: silentLogger });
  const env: Record<string, string> = kind === "tcp"
    ? { REDIS_URL: server.url }
    : { REDIS_URL: "", UPSTASH_REDIS_REST_URL: gatewayUrl, UPSTASH_REDIS_REST_TOKEN: TOKEN };
  const workers: WorkerProcess[] = await Promise.all(Array.from({ length: n }, () =>
    startWorker({
      ...env,
      SKEDULR_PREFIX: prefix,
      SKEDULR_POOLS: pools,
      SKEDULR_JOBS: "scripts/bench/rest-jobs.ts",
      BENCH_REDIS_URL: server.url,
      BENCH_SAMPLES: SAMPLES,
      SKEDULR_STATUS_MS: "3600000",
    })));
  await Promise.all(workers.map((w) => ready(w, 30_000)));
  return {
    client,
    workerPid: workers[0].child.pid!,
    completed: async () =>
      Number(await admin.send(["HGET", `${prefix}:{default}:totals`, "succeeded"]) ?? 0),
    stop: async () => {
      await Promise.all(workers.map((w) => w.stop("SIGKILL")));
      await storage.close();
    },
  };
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function throughput(kind: Kind) {
  await admin.send(["FLUSHALL"]);
  const s = await system(kind, 1, "default=50");
  try {
    await s.client.pause();
    const specs = Array.from({ length: TASKS }, (_, i) => ({ type: "noop", payload: { i } }));
    let t = performance.now();
    for (let i = 0; i < TASKS; i += 1000) await s.client.submitMany(specs.slice(i, i + 1000));
    const enqueue = TASKS / ((performance.now() - t) / 1000);
    // CPU per task of the worker, the gateway (REST only) and Redis, and gateway requests.
    const cpu = () => [s.workerPid, gateway.pid!, server.pid].map(processCpuMicros);
    const c0 = cpu();
    const g0 = kind === "rest" ? (await gatewayStats()).requests : 0;
    t = performance.now();
    await s.client.resume();
    await until(async () => (await s.completed()) >= TASKS, `${kind} drain`, 300_000);
    const drain = TASKS / ((performance.now() - t) / 1000);
    const [worker, gw, redis] = cpu().map((v, i) => (v - c0[i]) / TASKS);
    const requests = kind === "rest" ? ((await gatewayStats()).requests - g0) / TASKS : 0;
    return { drain, enqueue, worker, gateway: kind === "rest" ? gw : 0, redis, requests };
  } finally {
    await s.stop();
  }
}

async function latency(kind: Kind): Promise<number[]> {
  await admin.send(["FLUSHALL"]);
  const s = await system(kind, 1, "default=50");
  try {
    const got: number[] = [];
    for (let i = 0; i < SINGLES + 20; i++) {
      await s.client.submit({
        type: "latency",
        payload: { t: performance.timeOrigin + performance.now() },
      });
      const reply = await waiter.send(["BLPOP", SAMPLES, "10"]) as [string, string] | null;
      if (!reply) throw new Error(`${kind}: task ${i} did not start within 10 s`);
      if (i >= 20) got.push(Number(reply[1]));
    }
    return got.sort((a, b) => a - b);
  } finally {
    await s.stop();
  }
}

/**
 * What one idle worker costs, per second, counted at the servers: commands the Redis server
 * received from clients (MONITOR, leaving out the commands scripts run inside), and for REST
 * the HTTP requests at the gateway.
 */
async function idle(kind: Kind): Promise<{ requests: number; commands: number }> {
  await admin.send(["FLUSHALL"]);
  const s = await system(kind, 1, "default=10,critical=4");
  try {
    await new Promise((r) => setTimeout(r, 5_000)); // start-up scans and first heartbeat
    const monitor = spawn("redis-cli", ["-p", String(server.port), "monitor"]);
    let log = "";
    monitor.stdout!.on("data", (d) => (log += d));
    const g0 = await gatewayStats();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const g1 = await gatewayStats();
    const secs = (performance.now() - t0) / 1000;
    monitor.kill();
    const commands = log.split("\n").filter((l) => /^\d+\.\d+ \[\d+ [\d.:]+\] "/.test(l)).length;
    return {
      requests: kind === "rest" ? (g1.requests - g0.requests) / secs : commands / secs,
      commands: commands / secs,
    };
  } finally {
    await s.stop();
  }
}

/**
 * One in-process Scheduler (pool of 50, no-op handler) over REST with one of the transport's
 * batchings: `tasks` submitted paused, then drained. Returns tasks/s and gateway requests.
 */
type Mode = PipelineMode | "one-lane";
const MODES: Mode[] = ["ordered", "one-lane", "client"];

async function mode(m: Mode): Promise<{ rate: number; requests: number }> {
  const pipelineMode = m === "one-lane" ? "ordered" : m;
  const prefix = `bench${++runs}`;
  const storage = new RestRedisStorage({
    transport: new RestTransport({ url: gatewayUrl, token: TOKEN, pipelineMode }),
    prefix,
    claimLane: m !== "one-lane",
  });
  const s = new Scheduler({ storage, pools: { default: 50 }, logger: silentLogger });
  s.register("noop", () => null);
  await s.start();
  try {
    await s.pause();
    for (let i = 0; i < TASKS; i += 1000) {
      await s.submitMany(
        Array.from({ length: Math.min(1000, TASKS - i) }, () => ({ type: "noop" })),
      );
    }
    const g0 = await gatewayStats();
    const t = performance.now();
    await s.resume();
    // Watched over TCP, as in `throughput`: polls over REST would share the drain's pipeline
    // and count as its requests.
    const succeeded = async () =>
      Number(await admin.send(["HGET", `${prefix}:{default}:totals`, "succeeded"]) ?? 0);
    await until(async () => (await succeeded()) >= TASKS, "drain", 300_000);
    const rate = TASKS / ((performance.now() - t) / 1000);
    return { rate, requests: (await gatewayStats()).requests - g0.requests };
  } finally {
    await s.shutdown({ timeoutMs: 0 });
    await storage.close();
  }
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const rows: string[][] = [];
function row(metric: string, tcp: number[], rest: number[], digits: number) {
  const f = (x: number) => x.toFixed(digits);
  rows.push([metric, f(median(tcp)), f(median(rest))]);
  console.log(`  ${metric}: tcp ${tcp.map(f).join(" / ")}; rest ${rest.map(f).join(" / ")}`);
}
const kinds: Kind[] = ["tcp", "rest"];
const both = async <T>(measure: (k: Kind) => Promise<T>, rep: number) => {
  const out = {} as Record<Kind, T>;
  for (const k of rep % 2 === 0 ? kinds : [...kinds].reverse()) out[k] = await measure(k);
  return out;
};

if (ONLY.has("throughput")) {
  const r: Record<Kind, Awaited<ReturnType<typeof throughput>>>[] = [];
  for (let rep = 0; rep < REPS; rep++) r.push(await both(throughput, rep));
  row("drain, 1 process × 50, tasks/s", r.map((x) => x.tcp.drain), r.map((x) => x.rest.drain), 0);
  // Per repetition, since the TCP drain itself moves from run to run on a shared VM.
  const shares = r.map((x) => 100 * x.rest.drain / x.tcp.drain);
  rows.push(["drain over REST, % of TCP's in the same repetition", "", median(shares).toFixed(1)]);
  console.log(`  drain over REST, % of TCP's: ${shares.map((x) => x.toFixed(1)).join(" / ")}`);
  for (const part of ["worker", "gateway", "redis"] as const) {
    row(
      `drain: ${part} CPU per task, µs`,
      r.map((x) => x.tcp[part]),
      r.map((x) => x.rest[part]),
      1,
    );
  }
  row(
    "drain: HTTP requests per task at the gateway",
    r.map((x) => x.tcp.requests),
    r.map((x) => x.rest.requests),
    3,
  );
  row(
    "bulk submit (1000 per call), tasks/s",
    r.map((x) => x.tcp.enqueue),
    r.map((x) => x.rest.enqueue),
    0,
  );
}
if (ONLY.has("latency")) {
  const r: Record<Kind, number[]>[] = [];
  for (let rep = 0; rep < REPS; rep++) r.push(await both(latency, rep));
  for (const [p, name] of [[0.5, "p50"], [0.99, "p99"]] as const) {
    row(`enqueue→start ${name}, ms`, r.map((x) => pct(x.tcp, p)), r.map((x) => pct(x.rest, p)), 2);
  }
}
if (ONLY.has("idle")) {
  const r = await both(idle, 0);
  rows.push([
    "idle worker: requests/s (REST: HTTP requests at the gateway)",
    r.tcp.requests.toFixed(2),
    r.rest.requests.toFixed(2),
  ]);
  rows.push([
    "idle worker: commands/s received by Redis",
    r.tcp.commands.toFixed(2),
    r.rest.commands.toFixed(2),
  ]);
  console.log(`  idle: ${JSON.stringify(r)}`);
}

if (ONLY.has("modes")) {
  await admin.send(["FLUSHALL"]);
  await mode("ordered"); // warm-up: JIT and the script cache
  const r: Record<Mode, { rate: number; requests: number }>[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const out = {} as Record<Mode, { rate: number; requests: number }>;
    for (const m of rep % 2 === 0 ? MODES : [...MODES].reverse()) out[m] = await mode(m);
    r.push(out);
  }
  const f = (xs: number[]) => Math.round(median(xs));
  for (const m of MODES) {
    rows.push([
      `REST in-process drain (pool 50), \`${m}\` batching, tasks/s (gateway requests)`,
      "",
      `${f(r.map((x) => x[m].rate))} (${f(r.map((x) => x[m].requests))})`,
    ]);
  }
  console.log(`  modes: ${JSON.stringify(r)}`);
}

console.log(`\nload average after: ${load()}\n`);
console.log("| metric | Redis TCP | Redis REST (gateway) |");
console.log("|---|---:|---:|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
gateway.kill("SIGTERM");
await admin.close();
await waiter.close();
await server.stop();
process.exit(0);
