/**
 * @module http bench — HTTP submit throughput of the real API next to a Hono hello-world POST
 * on the same runtime, in one run, driven by `wrk`:
 *
 *   bun scripts/bench/http.ts [--runtime bun|deno] [--reps 3] [--seconds 5] [--warmup 2]
 *                             [--connections 50] [--batch 100]
 *                             [--only hello,memory,redis,memory-batch,redis-batch]
 *                             [--base <dir>]
 *
 * `--base <dir>` also runs the API cells on the checkout in <dir> (e.g. `git archive <commit>
 * | tar -x -C <dir>` with node_modules linked), interleaved, as `base:<cell>` rows: an A/B in
 * one run.
 *
 * Cells, each in fresh server processes (a cell never inherits another's heap or tasks):
 * - hello: `scripts/bench/http-hello.ts`, a Hono app that parses the JSON body and answers
 *   201 with a small JSON object, on the API's own server adapter;
 * - memory: `scripts/entry/worker.ts` on the embedded store (the API node is the worker);
 * - redis: `scripts/entry/serve.ts` (an API-only node) on a throwaway redis-server, with one
 *   `worker.ts` process beside it;
 * - `*-batch`: the same, POSTing arrays of `batch` specs to `/tasks/batch`.
 * Every submit is `{"type":"noop","payload":{"n":1}}`. The workers' pools are paused before
 * the load starts, so what is measured is submitting, not running; their heartbeats advertise
 * `noop`, so answers carry no "no live worker" warning, as in a deployment.
 *
 * Per cell: a warm-up run, then the measured one; req/s, tasks/s, the API process's CPU per
 * request and redis-server's per task (from /proc), wrk's latency p50 / p99. Repetitions
 * interleave the cells; the table shows medians. The load average is printed before, at each
 * repetition and after, and the CPU other processes took during each measurement.
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { startRedisServer } from "../tools/redis-server.ts";
import { ready, startWorker, type WorkerProcess } from "../tools/worker-process.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { processCpuMicros, watchForeignCpu } from "./e2e-cpu.ts";
import { requireWrk, wrk, type WrkResult } from "./http-wrk.ts";
import { arg } from "./bench-args.ts";

const RUNTIME = arg("runtime", "bun");
const REPS = Number(arg("reps", "3"));
const SECONDS = Number(arg("seconds", "5"));
const WARMUP = Number(arg("warmup", "2"));
const CONNECTIONS = Number(arg("connections", "50"));
const BATCH = Number(arg("batch", "100"));
const CELLS = ["hello", "memory", "redis", "memory-batch", "redis-batch"] as const;
type Cell = typeof CELLS[number];
const ONLY = arg("only", CELLS.join(",")).split(",") as Cell[];
for (const c of ONLY) {
  if (!CELLS.includes(c)) throw new Error(`--only: unknown cell "${c}" (${CELLS.join(", ")})`);
}
const BASE = arg("base", "");
/** A cell on this checkout, or (`base:` prefix) the API cells on the one in --base. */
type CellName = Cell | `base:${Cell}`;
const RUN: CellName[] = ONLY.flatMap((
  c,
) => (BASE && c !== "hello" ? [c, `base:${c}` as const] : [c]));
if (RUNTIME !== "bun" && RUNTIME !== "deno") throw new Error(`--runtime: bun or deno`);

requireWrk();
const runtime = RUNTIME === "bun" ? ["bun"] : ["deno", "run", "-A"];
const SPEC = { type: "noop", payload: { n: 1 } };
const single = JSON.stringify(SPEC);
const batch = JSON.stringify(Array.from({ length: BATCH }, () => SPEC));

const server = ONLY.some((c) => c.startsWith("redis")) ? await startRedisServer() : null;
process.once("exit", () => {
  try {
    if (server) process.kill(server.pid, "SIGKILL");
  } catch { /* already gone */ }
});
const admin = server && connectRedisTcp(server.url);
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

/** The processes of one cell: the API node measured, and any beside it. */
interface Target {
  url: string;
  api: WorkerProcess;
  others: WorkerProcess[];
}

const JOBS = {
  SKEDULR_JOBS: fileURLToPath(new URL("./http-jobs.ts", import.meta.url)),
  SKEDULR_POOLS: "default=50",
};

async function pausePools(w: WorkerProcess): Promise<void> {
  const res = await fetch(`${w.url}/api/pause`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  if (!res.ok) throw new Error(`pausing the pools failed: ${res.status} ${await res.text()}`);
}

/** Waits until a worker's heartbeat lists `noop`, so submits carry no warning. */
async function advertised(api: WorkerProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${api.url}/api/workers`);
    const { workers } = await res.json() as { workers: { types?: string[] }[] };
    if (workers.some((w) => w.types?.includes("noop"))) return;
    if (Date.now() > deadline) throw new Error("no worker advertised noop within 20 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}

let namespaces = 0;

async function start(name: CellName): Promise<Target> {
  const base = name.startsWith("base:");
  const cell = name.replace(/^base:/, "") as Cell;
  const entry = (
    script: string,
  ) => (base ? join(BASE, "scripts/entry", script) : `scripts/entry/${script}`);
  if (cell === "hello") {
    const api = await ready(await startWorker({}, "scripts/bench/http-hello.ts", runtime));
    return { url: api.url.replace(/\/skedulr$/, "/"), api, others: [] };
  }
  const path = cell.endsWith("batch") ? "/api/tasks/batch" : "/api/tasks";
  if (cell.startsWith("memory")) {
    const api = await ready(await startWorker({ ...JOBS }, entry("worker.ts"), runtime));
    await pausePools(api);
    await advertised(api);
    return { url: api.url + path, api, others: [] };
  }
  await admin!.send(["FLUSHALL"]);
  const env = { REDIS_URL: server!.url, SKEDULR_PREFIX: `http${++namespaces}` };
  const worker = await ready(await startWorker({ ...env, ...JOBS }, entry("worker.ts"), runtime));
  await pausePools(worker);
  const api = await ready(await startWorker(env, entry("serve.ts"), runtime));
  await advertised(api);
  return { url: api.url + path, api, others: [worker] };
}

interface Measurement {
  cell: CellName;
  wrk: WrkResult;
  tasksPerSecond: number;
  apiCpuUsPerRequest: number;
  redisCpuUsPerTask: number | null;
  foreignCores: number | null;
}

async function measure(cell: CellName): Promise<Measurement> {
  const t = await start(cell);
  const kind = cell.replace(/^base:/, "");
  const body = kind.endsWith("batch") ? batch : single;
  const perRequest = kind.endsWith("batch") ? BATCH : 1;
  try {
    const o = { connections: CONNECTIONS, threads: 1 };
    await wrk(t.url, body, { ...o, seconds: WARMUP });
    const pids = [t.api.child.pid!, ...t.others.map((w) => w.child.pid!)];
    if (server) pids.push(server.pid);
    const foreign = watchForeignCpu(() => pids);
    const api0 = processCpuMicros(t.api.child.pid!);
    const redis0 = server ? processCpuMicros(server.pid) : 0;
    const result = await wrk(t.url, body, { ...o, seconds: SECONDS });
    const apiUs = processCpuMicros(t.api.child.pid!) - api0;
    const redisUs = server ? processCpuMicros(server.pid) - redis0 : 0;
    const tasks = result.requests * perRequest;
    return {
      cell,
      wrk: result,
      tasksPerSecond: result.perSecond * perRequest,
      apiCpuUsPerRequest: apiUs / result.requests,
      redisCpuUsPerTask: kind.startsWith("redis") ? redisUs / tasks : null,
      foreignCores: foreign.stop(),
    };
  } finally {
    for (const w of [t.api, ...t.others]) await w.stop("SIGKILL");
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (x: number | null, d = 1) => (x === null || Number.isNaN(x) ? "–" : x.toFixed(d));
const thousands = (x: number) => Math.round(x).toLocaleString("en-US");

console.log(
  `http bench on ${RUNTIME}: ${CONNECTIONS} connections, ${SECONDS} s per cell after ${WARMUP} s ` +
    `of warm-up, batch ${BATCH}, ${REPS} reps; load ${load()}`,
);
const runs = new Map<CellName, Measurement[]>(RUN.map((c) => [c, []]));
for (let rep = 1; rep <= REPS; rep++) {
  console.log(`rep ${rep}, load ${load()}`);
  for (const cell of RUN) {
    const m = await measure(cell);
    runs.get(cell)!.push(m);
    const bad = m.wrk.non2xx + m.wrk.errors;
    console.log(
      `  ${cell.padEnd(17)} ${thousands(m.wrk.perSecond).padStart(7)} req/s ` +
        `${thousands(m.tasksPerSecond).padStart(8)} tasks/s, API ${
          f(m.apiCpuUsPerRequest)
        } µs/req` +
        (m.redisCpuUsPerTask === null ? "" : `, redis ${f(m.redisCpuUsPerTask)} µs/task`) +
        `, p50 ${f(m.wrk.p50Ms, 2)} p99 ${f(m.wrk.p99Ms, 2)} ms, others ${
          f(m.foreignCores, 2)
        } cores` +
        (bad ? `  ** ${m.wrk.non2xx} non-2xx, ${m.wrk.errors} socket errors **` : ""),
    );
  }
}
console.log(`\nmedians of ${REPS} (${RUNTIME}), load ${load()}:\n`);
const hello = runs.has("hello") ? median(runs.get("hello")!.map((m) => m.wrk.perSecond)) : null;
console.log(
  "| cell | req/s | tasks/s | vs hello | API CPU µs/req | Redis CPU µs/task | p50 / p99 ms |",
);
console.log("|---|---:|---:|---:|---:|---:|---|");
for (const [cell, ms] of runs) {
  const rps = median(ms.map((m) => m.wrk.perSecond));
  const redis = ms[0].redisCpuUsPerTask === null
    ? null
    : median(ms.map((m) => m.redisCpuUsPerTask!));
  console.log(
    `| ${cell} | ${thousands(rps)} | ${thousands(median(ms.map((m) => m.tasksPerSecond)))} | ` +
      `${hello ? `${f((100 * rps) / hello, 0)}%` : "–"} | ` +
      `${f(median(ms.map((m) => m.apiCpuUsPerRequest)))} | ${f(redis)} | ` +
      `${f(median(ms.map((m) => m.wrk.p50Ms)), 2)} / ${f(median(ms.map((m) => m.wrk.p99Ms)), 2)} |`,
  );
}
await admin?.close();
process.exit(0);
