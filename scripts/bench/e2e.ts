/**
 * @module e2e bench — Skedulr against BullMQ end to end, real worker processes on one
 * throwaway redis-server, in one run, with the Redis ceiling measured by redis-benchmark
 * on the same server for context.
 *
 *   bun scripts/bench/e2e.ts [--reps 3] [--tasks 20000] [--singles 500] [--delayed 20000]
 *                            [--only ceiling,throughput,latency,lateness] [--base <dir>]
 *                            [--events-ab]
 *
 * `--base <dir>` runs an A/B instead: this checkout's worker against the worker of the
 * checkout in <dir> (e.g. `git worktree add /tmp/base <commit>` with node_modules linked),
 * interleaved the same way, in place of BullMQ. `--events-ab` runs this checkout with task
 * events on (the default) against the same with them off (SKEDULR_TASK_EVENTS=off).
 *
 * - throughput: submit `tasks` no-op tasks in bulk (Skedulr `submitMany` / BullMQ `addBulk`,
 *   1000 per call) while the queue is paused, then resume and time the drain by 1 and by 2
 *   worker processes of concurrency 50 each, until the system's own completion count is full;
 * - latency: `singles` sequential single submits to 2 idle worker processes; the handler
 *   takes start − submit time on a clock shared by all processes (after 20 warm-up tasks);
 * - lateness: `delayed` tasks due evenly within 10 s (from 2 s on, so submitting never
 *   overlaps the first due time), 2 worker processes; handler start − due time.
 * Each measurement runs on a fresh namespace of a flushed server, systems alternating first;
 * the table shows medians over `reps` and the ratio Skedulr : BullMQ. Prints the load
 * average before and after (figures taken at a load above 1.5 are flagged).
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import process from "node:process";
import { startRedisServer } from "../tools/redis-server.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { type BenchJob, type BenchSystem, bullmq, skedulr } from "./e2e-systems.ts";
import { processCpuMicros, watchForeignCpu } from "./e2e-cpu.ts";
import { arg, argv, median } from "./bench-args.ts";

const REPS = Number(arg("reps", "3"));
const TASKS = Number(arg("tasks", "20000"));
const SINGLES = Number(arg("singles", "500"));
const DELAYED = Number(arg("delayed", "20000"));
const ONLY = new Set(arg("only", "ceiling,throughput,latency,lateness").split(","));
const CONCURRENCY = 50;
const SAMPLES = "bench:samples";
/** Other processes may take this many cores during a measurement before it is repeated. */
const MAX_FOREIGN = Number(arg("max-foreign", "0.2"));
const TRIES = 4;

const server = await startRedisServer();
// A failed run must not leave the server behind (worker processes are stopped per measurement).
process.once("exit", () => {
  try {
    process.kill(server.pid, "SIGKILL");
  } catch { /* already gone */ }
});
const admin = connectRedisTcp(server.url);
const waiter = connectRedisTcp(server.url); // BLPOP blocks its connection
const BASE = arg("base", "");
const EVENTS_AB = argv.includes("--events-ab");
const other = EVENTS_AB
  ? (url: string, samples: string) => skedulr(url, samples, undefined, false)
  : BASE
  ? (url: string, samples: string) => skedulr(url, samples, BASE)
  : bullmq;
const OTHER = EVENTS_AB ? "quiet" : BASE ? "base" : "bullmq";
const makers = [skedulr, other];
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
console.log(`e2e bench: redis ${server.url}, bun ${process.versions.bun}, load ${load()}`);

/** A measurement and the CPU other processes took meanwhile (cores; null without /proc). */
interface Measured<T> {
  value: T;
  foreign: number | null;
}

/**
 * Runs `measure` on a fresh system with `workers` processes; systems alternate first per rep.
 * The machine is shared: a measurement during which other processes took more than
 * MAX_FOREIGN cores is taken again (up to TRIES times; the cleanest is kept).
 */
async function each<T>(
  rep: number,
  workers: number,
  what: string,
  measure: (s: BenchSystem) => Promise<T>,
): Promise<Record<string, Measured<T>>> {
  const out: Record<string, Measured<T>> = {};
  const order = rep % 2 === 0 ? makers : [...makers].reverse();
  for (const make of order) {
    let best: Measured<T> | null = null;
    let name = "";
    for (let attempt = 1; attempt <= TRIES; attempt++) {
      await admin.send(["FLUSHALL"]);
      const system = make(server.url, SAMPLES);
      name = system.name;
      let got: Measured<T>;
      try {
        await system.start(workers, CONCURRENCY);
        const watch = watchForeignCpu(() => [process.pid, server.pid, ...system.pids()]);
        const value = await measure(system);
        got = { value, foreign: watch.stop() };
      } finally {
        await system.stop();
      }
      const clean = got.foreign === null || got.foreign <= MAX_FOREIGN;
      if (!best || (got.foreign ?? 0) < (best.foreign ?? 0)) best = got;
      console.log(
        `  ${what}, rep ${rep + 1}, ${system.name}: ${show(got.value)} (other processes ${
          got.foreign?.toFixed(2) ?? "?"
        } cores${clean ? "" : attempt < TRIES ? ", measuring again" : ", kept the cleanest"})`,
      );
      if (clean) break;
    }
    out[name] = best!;
  }
  return out;
}

function show(value: unknown): string {
  if (typeof value === "number") return value.toFixed(0);
  if (Array.isArray(value)) {
    const s = [...value].sort((a, b) => a - b);
    return `p50 ${pct(s, 0.5).toFixed(2)} ms, p99 ${pct(s, 0.99).toFixed(2)} ms, max ${
      s[s.length - 1].toFixed(2)
    } ms`;
  }
  return Object.entries(value as Record<string, number>).map(([k, v]) =>
    k.endsWith("Us") ? `${k} ${v.toFixed(1)} µs/task` : `${k} ${v.toFixed(0)}/s`
  ).join(", ");
}

/**
 * Polls every 10 ms: on 2 cores a tighter poll measurably slows the system under test, and
 * 10 ms is under 1% of a drain.
 */
async function until(check: () => Promise<boolean>, what: string, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Drain {
  drain: number;
  enqueue: number;
  /** CPU per task during the drain, µs: redis-server's, and the worker processes' together. */
  redisUs: number;
  workerUs: number;
}

/** CPU used by `pids` together, µs (10 ms resolution: fine over a drain of seconds). */
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + processCpuMicros(pid), 0);

async function throughput(s: BenchSystem): Promise<Drain> {
  await s.pause();
  const jobs: BenchJob[] = Array.from({ length: TASKS }, (_, i) => ({ name: "noop", data: { i } }));
  let t = performance.now();
  await s.submitBulk(jobs, 1000);
  const enqueue = TASKS / ((performance.now() - t) / 1000);
  t = performance.now();
  const redis0 = cpuOf([server.pid]), workers0 = cpuOf(s.pids());
  await s.resume();
  await until(async () => (await s.completed()) >= TASKS, `${s.name} drain`, 120_000);
  return {
    drain: TASKS / ((performance.now() - t) / 1000),
    enqueue,
    redisUs: (cpuOf([server.pid]) - redis0) / TASKS,
    workerUs: (cpuOf(s.pids()) - workers0) / TASKS,
  };
}

async function latency(s: BenchSystem): Promise<number[]> {
  const got: number[] = [];
  for (let i = 0; i < SINGLES + 20; i++) {
    await s.submitOne({ name: "latency", data: { t: performance.timeOrigin + performance.now() } });
    const reply = await waiter.send(["BLPOP", SAMPLES, "10"]) as [string, string] | null;
    if (!reply) throw new Error(`${s.name}: task ${i} did not start within 10 s`);
    if (i >= 20) got.push(Number(reply[1]));
  }
  return got;
}

/** Per system, redis-server's CPU per delayed task over each lateness run (submit included), µs. */
const latenessRedisUs: Record<string, number[]> = {};

async function lateness(s: BenchSystem): Promise<number[]> {
  const redis0 = cpuOf([server.pid]);
  const base = Date.now() + 2_000;
  // Due evenly over [2 s, 10 s), submitted in a scrambled order (a stride coprime with N).
  const jobs: BenchJob[] = Array.from({ length: DELAYED }, (_, i) => {
    const k = (i * 7919) % DELAYED;
    const due = base + Math.floor((k * 8_000) / DELAYED);
    return { name: "lateness", data: { due }, runAt: due };
  });
  await s.submitBulk(jobs, 1000);
  if (Date.now() > base) console.log(`  ! ${s.name}: submitting overran the first due time`);
  await until(
    async () => Number(await admin.send(["LLEN", SAMPLES])) >= DELAYED,
    `${s.name} delayed`,
    60_000,
  );
  (latenessRedisUs[s.name] ??= []).push((cpuOf([server.pid]) - redis0) / DELAYED);
  return (await admin.send(["LRANGE", SAMPLES, "0", "-1"]) as string[]).map(Number);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const fmt = (x: number, digits = 1) => x.toFixed(digits);

const rows: string[][] = [];
function row(metric: string, better: "higher" | "lower", sk: number[], bq: number[], d = 1) {
  const a = median(sk), b = median(bq);
  const ratio = better === "higher"
    ? `${fmt(a / b, 2)}×`
    : b >= a
    ? `${fmt(b / a, 2)}× lower`
    : `${fmt(a / b, 2)}× higher`;
  rows.push([metric, fmt(a, d), fmt(b, d), ratio]);
  console.log(
    `  ${metric}: skedulr ${sk.map((x) => fmt(x, d)).join(" / ")}; ${OTHER} ${
      bq.map((x) => fmt(x, d)).join(" / ")
    }`,
  );
}

if (ONLY.has("ceiling")) {
  const sha = String(await admin.send(["SCRIPT", "LOAD", "return 1"]));
  const bench = (extra: string[]) =>
    spawnSync("redis-benchmark", [
      "-p",
      String(server.port),
      "-n",
      "200000",
      "-P",
      "100",
      "-q",
      ...extra,
    ], {
      encoding: "utf8",
    }).stdout.split(/\r|\n/).map((l) => l.trim()).filter((l) => /requests per second/.test(l));
  for (const line of [...bench(["-t", "set,get"]), ...bench(["evalsha", sha, "0"])]) {
    console.log(`  redis-benchmark -P 100: ${line}`);
    const m = /^(.+?): ([\d.]+) requests per second/.exec(line);
    const what = m?.[1].startsWith("evalsha") ? "EVALSHA of `return 1`" : m?.[1];
    if (m) rows.push([`redis-benchmark ${what} (-P 100), ops/s`, fmt(Number(m[2]), 0), "", ""]);
  }
}

if (ONLY.has("throughput")) {
  for (const workers of [1, 2]) {
    const runs: Record<string, Measured<Drain>>[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      runs.push(await each(rep, workers, `throughput ×${workers}`, throughput));
    }
    const pick = (name: string, k: keyof Drain) => runs.map((r) => r[name].value[k]);
    row(
      `drain, ${workers} process${workers > 1 ? "es" : ""} × 50, tasks/s`,
      "higher",
      pick("skedulr", "drain"),
      pick(OTHER, "drain"),
      0,
    );
    if (workers === 1) {
      // Where a drain's time goes: the system that needs less Redis CPU per task scales further.
      row(
        "redis-server CPU per task, 1 process, µs",
        "lower",
        pick("skedulr", "redisUs"),
        pick(OTHER, "redisUs"),
      );
      row(
        "worker CPU per task, 1 process, µs",
        "lower",
        pick("skedulr", "workerUs"),
        pick(OTHER, "workerUs"),
      );
      row(
        "bulk submit (1000 per call), tasks/s",
        "higher",
        pick("skedulr", "enqueue"),
        pick(OTHER, "enqueue"),
        0,
      );
    }
  }
}

for (
  const [phase, measure, label] of [
    ["latency", latency, "enqueue→start"],
    ["lateness", lateness, "delayed lateness"],
  ] as const
) {
  if (!ONLY.has(phase)) continue;
  const runs: Record<string, Measured<number[]>>[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    runs.push(await each(rep, 2, phase, async (s) => (await measure(s)).sort((a, b) => a - b)));
  }
  for (const [p, name] of [[0.5, "p50"], [0.99, "p99"], [1, "max"]] as const) {
    if (phase === "latency" && p === 1) continue;
    const pick = (sys: string) => runs.map((r) => pct(r[sys].value, p));
    row(`${label} ${name}, ms`, "lower", pick("skedulr"), pick(OTHER), 2);
  }
  if (phase === "lateness") {
    const us = (sys: string) => latenessRedisUs[sys] ?? [NaN];
    row("redis-server CPU per delayed task, µs", "lower", us("skedulr"), us(OTHER));
  }
}

const after = load();
console.log(`\nload average after: ${after}\n`);
const otherName = EVENTS_AB ? "events off" : BASE ? `base (${BASE})` : "BullMQ";
const vs = EVENTS_AB ? "events off" : BASE ? "base" : "BullMQ";
console.log(`| metric | Skedulr | ${otherName} | Skedulr vs ${vs} |`);
console.log("|---|---:|---:|---|");
for (const r of rows) console.log(`| ${r.join(" | ")} |`);
await admin.close();
await waiter.close();
await server.stop();
process.exit(0);
