/**
 * @module cluster bench — a deployment drained with 1, 2 and 3 partitions on a local 3-master
 * Redis Cluster: throughput, and the CPU each master spent per task it served.
 *
 *   bun scripts/bench/cluster.ts [--tasks 20000] [--reps 2] [--workers 2] [--partitions 1,2,3]
 *
 * Per run: a fresh prefix; `workers` real `scripts/entry/worker.ts` processes (concurrency 50,
 * REDIS_CLUSTER_NODES, SKEDULR_PARTITIONS); `tasks` no-op tasks submitted in bulk (1000 per
 * call, each call one partition, in turn) while the pools are paused; then resume and time
 * the drain until the partitions' completion counts are full. Each master's CPU (user +
 * system, /proc) over the drain, and the time it spent running the scripts (INFO
 * commandstats), are divided by the tasks its partitions completed.
 *
 * This machine has 2 cores for three masters, the workers and the driver, so the total cannot
 * grow much with partitions; what partitions change is where the Redis work goes. The report
 * shows each master's CPU per task (flat: a partition's scripts cost the same wherever they
 * run), how the load splits, and the throughput projected for one core per master: each
 * master at 100 % of a core serves 1e6 / (its µs per task) tasks/s, and the masters in use
 * serve their shares in parallel.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import process from "node:process";
import { ClusterTransport, parseClusterNodes } from "../../src/adapters/redis-cluster.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { hashSlot } from "../../src/storage/redis/keys.ts";
import { partitionedRedis, partitionTags } from "../../src/storage/redis/partitions.ts";
import { startRedisCluster } from "../tools/redis-cluster.ts";
import { ready, startWorker, type WorkerProcess } from "../tools/worker-process.ts";
import { processCpuMicros, watchForeignCpu } from "./e2e-cpu.ts";
import { arg, median } from "./bench-args.ts";

const TASKS = Number(arg("tasks", "20000"));
const REPS = Number(arg("reps", "2"));
const WORKERS = Number(arg("workers", "2"));
const PARTITIONS = arg("partitions", "1,2,3").split(",").map(Number);

const cluster = await startRedisCluster({ masters: 3 });
process.once("exit", () => {
  for (const n of cluster.nodes) {
    try {
      process.kill(n.pid, "SIGKILL");
    } catch { /* gone */ }
  }
});
const masters = cluster.masters().sort((a, b) => a - b);
const pidOf = new Map(cluster.nodes.map((n) => [n.port, n.pid]));
const admin = new ClusterTransport(parseClusterNodes(cluster.seeds).seeds);
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
const version = spawnSync("redis-server", ["--version"], { encoding: "utf8" }).stdout.trim();
console.log(`cluster bench: 3 masters (${masters.join(", ")}), ${version.split(" ")[2]}`);
console.log(`bun ${process.versions.bun}, ${WORKERS} workers × 50, ${TASKS} tasks, load ${load()}`);

/** The master (port) serving a hash tag's slot. */
function masterOf(tag: string): number {
  const slot = hashSlot(`{${tag}}`);
  for (const line of cluster.cli(masters[0], "CLUSTER", "NODES").split("\n")) {
    const f = line.split(" ");
    if (!f[2]?.includes("master")) continue;
    for (const range of f.slice(8)) {
      const [lo, hi] = range.split("-").map(Number);
      if (slot >= lo && slot <= (hi ?? lo)) return Number(/:(\d+)@/.exec(f[1])![1]);
    }
  }
  throw new Error(`no master serves slot ${slot}`);
}

interface Run {
  seconds: number;
  /** Per master port: tasks its partitions completed, CPU µs it spent. */
  perMaster: Map<number, { tasks: number; cpuUs: number }>;
  /** Cores other processes (not the masters, workers or driver) took meanwhile. */
  foreign: number | null;
  /** Script calls (EVALSHA) the masters served over the drain, per task. */
  callsPerTask: number;
  /** CPU µs the worker processes spent per task. */
  workerUs: number;
}

/** EVALSHA calls a master has served so far (INFO commandstats). */
function scriptCalls(port: number): number {
  const m = /cmdstat_evalsha:calls=(\d+)/.exec(cluster.cli(port, "INFO", "commandstats"));
  return Number(m?.[1] ?? 0);
}

let runs = 0;
async function drain(n: number): Promise<Run> {
  const prefix = `cbench${++runs}`;
  const tags = partitionTags("default", n);
  const storage = partitionedRedis({
    transport: admin,
    closeTransport: false,
    prefix,
    partitions: n,
  });
  await storage.init();
  const client = new Scheduler({ storage, pools: {}, logger: silentLogger });
  const workers: WorkerProcess[] = await Promise.all(
    Array.from({ length: WORKERS }, () =>
      startWorker({
        REDIS_CLUSTER_NODES: cluster.seeds,
        SKEDULR_PARTITIONS: String(n),
        SKEDULR_PREFIX: prefix,
        SKEDULR_POOLS: "default=50",
        SKEDULR_JOBS: "scripts/bench/e2e-jobs.ts",
        REDIS_URL: "",
      })),
  );
  try {
    await Promise.all(workers.map((w) => ready(w, 30_000)));
    await client.pause();
    for (let i = 0; i < TASKS; i += 1000) {
      await client.submitMany(Array.from({ length: Math.min(1000, TASKS - i) }, () => ({
        type: "noop",
      })));
    }
    const done = async () =>
      await Promise.all(
        tags.map(async (tag) =>
          Number(await admin.send(["HGET", `${prefix}:{${tag}}:totals`, "succeeded"]) ?? 0)
        ),
      );
    const cpu0 = masters.map((p) => processCpuMicros(pidOf.get(p)!));
    const calls0 = masters.map(scriptCalls);
    const others = watchForeignCpu(() => [
      ...masters.map((p) => pidOf.get(p)!),
      ...workers.map((w) => w.child.pid!),
      process.pid,
    ]);
    const workers0 = workers.map((w) => processCpuMicros(w.child.pid!));
    const t0 = performance.now();
    await client.resume();
    let perPart = await done();
    while (perPart.reduce((a, b) => a + b, 0) < TASKS) {
      await new Promise((r) => setTimeout(r, 20));
      perPart = await done();
    }
    const seconds = (performance.now() - t0) / 1000;
    const foreign = others.stop();
    const perMaster = new Map(masters.map((p, i) => [p, {
      tasks: 0,
      cpuUs: processCpuMicros(pidOf.get(p)!) - cpu0[i],
    }]));
    tags.forEach((tag, k) => (perMaster.get(masterOf(tag))!.tasks += perPart[k]));
    const calls = masters.reduce((sum, p, i) => sum + scriptCalls(p) - calls0[i], 0);
    const workerUs = workers.reduce(
      (sum, w, i) => sum + processCpuMicros(w.child.pid!) - workers0[i],
      0,
    );
    return {
      seconds,
      perMaster,
      foreign,
      callsPerTask: calls / TASKS,
      workerUs: workerUs / TASKS,
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop("SIGKILL")));
    await storage.close();
  }
}

const rows: string[] = [];
for (const n of PARTITIONS) {
  const results: Run[] = [];
  for (let r = 0; r < REPS; r++) results.push(await drain(n));
  const best = results.sort((a, b) => a.seconds - b.seconds)[results.length >> 1];
  const rate = TASKS / median(results.map((x) => x.seconds));
  const used = masters.filter((p) => best.perMaster.get(p)!.tasks > 0);
  const cells = masters.map((p) => {
    const m = best.perMaster.get(p)!;
    return m.tasks ? `${m.tasks} tasks, ${(m.cpuUs / m.tasks).toFixed(1)} µs/task` : "idle";
  });
  // One core per master: each serves its share at 1e6 / (µs per task) tasks/s; the slowest
  // share bounds the whole drain.
  const projected = Math.min(...used.map((p) => {
    const m = best.perMaster.get(p)!;
    return (1e6 / (m.cpuUs / m.tasks)) * (TASKS / m.tasks);
  }));
  const redisUs = [...best.perMaster.values()].reduce((s, m) => s + m.cpuUs, 0) / TASKS;
  rows.push(
    `| ${n} | ${rate.toFixed(0)} | ${cells.join(" | ")} | ${redisUs.toFixed(1)} | ${
      best.callsPerTask.toFixed(2)
    } | ${best.workerUs.toFixed(0)} | ${projected.toFixed(0)} | ${
      best.foreign === null ? "?" : best.foreign.toFixed(2)
    } |`,
  );
  console.log(rows[rows.length - 1]);
}
console.log(`\nload ${load()}\n`);
console.log(
  `| partitions | drained tasks/s | ${
    masters.map((_, i) => `master ${i + 1}`).join(" | ")
  } | Redis µs/task (all masters) | script calls/task | worker µs/task | projected tasks/s, one core per master | other processes (cores) |`,
);
console.log(`|${"---|".repeat(masters.length + 7)}`);
for (const row of rows) console.log(row);
await admin.close();
await cluster.stop();
process.exit(0);
