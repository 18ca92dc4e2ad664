/**
 * @module dispatch bench — in-process dispatch of 100k no-op tasks due at random offsets
 * within 10 s, three designs side by side: this scheduler (timing wheel + pools on the
 * embedded store), the seed's final design (min-heap + one sleeping loop + bounded pool) and
 * one `setTimeout` per task. Reports scheduling cost per task, dispatch lateness
 * (start − due) and peak memory, as medians over fresh processes.
 *
 *   bun scripts/bench/dispatch.ts                       # runner: 3 designs × 3 reps, table
 *   deno run -A scripts/bench/dispatch.ts               # same under Deno
 *   bun scripts/bench/dispatch.ts --design=scheduler    # one measurement, one JSON line
 *
 * Options: --n=100000 --span=10000 (ms) --lead=3000 (ms from the end of setup to the first
 * possible due time) --pool=100 --batch=1 (scheduler: specs per submitMany) --exact=1
 * (scheduler: 0 promotes at wheel ticks, `exactDue: false`) --reps=3
 * --seed=42 --designs=scheduler,heap,timeout. --also-n=300000 runs every design at that size
 * too (same span, so denser) and splits its dispatch CPU into a part per task and a part per
 * run (dispatch-report.ts `costSplit`).
 *
 * Each measurement is a fresh process so no design inherits another's heap, JIT state or
 * timers. All tasks are scheduled before the first is due (the lead), so the scheduling
 * loop never delays a dispatch; a run where it did is repeated with a doubled lead (the lead
 * only adds idle time), and flagged if it still overran.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type DesignName, DESIGNS, makeDesign } from "./dispatch-designs.ts";
import {
  formatSplit,
  formatTable,
  type Measurement,
  median,
  summarise,
} from "./dispatch-report.ts";
import { prng } from "../tools/prng.ts";

const args = new Map(
  process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string]),
);
const num = (key: string, fallback: number) => Number(args.get(key) ?? fallback);
const N = num("n", 100_000);
const SPAN_MS = num("span", 10_000);
const LEAD_MS = num("lead", 3_000);
const POOL = num("pool", 100);
const BATCH = num("batch", 1);
const EXACT = num("exact", 1) !== 0;
const REPS = num("reps", 3);
const SEED = num("seed", 42);
const ALSO_N = num("also-n", 0);

const g = globalThis as {
  Bun?: { version: string; gc(full: boolean): void };
  Deno?: { version: { deno: string } };
  gc?: () => void;
};
const runtime = g.Bun ? `bun ${g.Bun.version}` : g.Deno ? `deno ${g.Deno.version.deno}` : "node";

function fullGc(): boolean {
  if (g.Bun) g.Bun.gc(true);
  else if (g.gc) g.gc();
  else return false;
  return true;
}

async function measure(name: DesignName): Promise<Measurement> {
  const rand = prng(SEED);
  const offsets = Float64Array.from({ length: N }, () => Math.floor(rand() * SPAN_MS));
  const due = new Float64Array(N);
  const started = new Float64Array(N);
  let count = 0;
  let finish!: () => void;
  const allStarted = new Promise<void>((resolve) => (finish = resolve));
  const design = makeDesign(name, {
    pool: POOL,
    batch: BATCH,
    exactDue: EXACT,
    onStart(i) {
      started[i] = Date.now();
      if (++count === N) finish();
    },
  });

  // Baseline after a full GC: everything allocated from here on belongs to the design (or
  // to the harness arrays above, which every design shares).
  const gcOk = fullGc();
  const base = process.memoryUsage();
  let peakRss = base.rss, peakHeap = base.heapUsed;
  const sample = () => {
    const m = process.memoryUsage();
    if (m.rss > peakRss) peakRss = m.rss;
    if (m.heapUsed > peakHeap) peakHeap = m.heapUsed;
  };
  const sampler = setInterval(sample, 20);
  // Ref'd on purpose: the scheduler's timers are unref'd, and this also bounds a hang.
  const watchdog = setTimeout(() => {
    console.error(`dispatch: ${name} started ${count}/${N} tasks before the deadline`);
    process.exit(1);
  }, LEAD_MS + SPAN_MS + 60_000);

  const setupStart = performance.now();
  await design.setup();
  const setupMs = performance.now() - setupStart;
  const t0 = Date.now() + LEAD_MS;
  for (let i = 0; i < N; i++) due[i] = t0 + offsets[i];
  const schedStart = performance.now();
  await design.scheduleAll(due);
  const scheduleMs = performance.now() - schedStart;
  sample();
  // What the pending tasks hold once the garbage of scheduling them is gone.
  fullGc();
  const pendingBytes = heapBytes() - heapBytes(base);
  const overran = Date.now() >= t0;

  const cpuStart = process.cpuUsage();
  const threadsStart = threadTicks();
  await allStarted;
  const cpu = process.cpuUsage(cpuStart);
  const threads = threadTicks();
  sample();
  clearInterval(sampler);
  clearTimeout(watchdog);
  await design.teardown();

  const late = new Float64Array(N);
  for (let i = 0; i < N; i++) late[i] = started[i] - due[i];
  return {
    design: name,
    runtime,
    n: N,
    leadMs: LEAD_MS,
    scheduleUsPerTask: (scheduleMs * 1000) / N,
    // Whole-process CPU (GC threads included) from the end of scheduling to the last start.
    dispatchCpuUsPerTask: (cpu.user + cpu.system) / N,
    // The JS thread's share (the rest is the runtime's: JIT compilers, GC helpers).
    mainThreadCpuUsPerTask: threads && threadsStart
      ? ((threads.main - threadsStart.main) * 1e4) / N
      : null,
    setupMs,
    overran,
    gc: gcOk,
    ...summarise(late),
    pendingBytesPerTask: pendingBytes / N,
    rssPeakMB: (peakRss - base.rss) / 2 ** 20,
    heapPeakMB: (peakHeap - base.heapUsed) / 2 ** 20,
  };
}

/**
 * CPU ticks (10 ms) of this process's main thread, from Linux's /proc; null elsewhere. The
 * main thread runs the JavaScript; the runtime's own threads (JIT compilers, GC helpers) are
 * the rest of the process's time.
 */
function threadTicks(): { main: number } | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { main: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

/**
 * Heap in use: Bun's `heapUsed` counts ArrayBuffer memory already; V8 (Deno) keeps typed
 * arrays' backing stores outside the heap, in `external`.
 */
function heapBytes(m = process.memoryUsage()): number {
  return m.heapUsed + (g.Bun ? 0 : m.external);
}

/** Spawns one fresh process of the same runtime for `design` and parses its JSON line. */
function spawnOne(design: DesignName, leadMs: number, n: number): Measurement {
  const script = fileURLToPath(import.meta.url);
  const skip = new Set(["design", "reps", "designs", "lead", "n", "also-n"]);
  const pass = [...args].filter(([k]) => !skip.has(k)).map(([k, v]) => `--${k}=${v}`);
  pass.push(`--lead=${leadMs}`, `--n=${n}`);
  const argv = g.Deno
    ? ["run", "-A", "--v8-flags=--expose-gc", script, `--design=${design}`, ...pass]
    : [script, `--design=${design}`, ...pass];
  const child = spawnSync(process.execPath, argv, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = child.stdout.trim().split("\n").pop() ?? "";
  if (child.status !== 0 || !line.startsWith("{")) {
    throw new Error(`dispatch: --design=${design} exited ${child.status}: ${child.stdout}`);
  }
  return JSON.parse(line);
}

/**
 * A run whose scheduling overran the lead measured its own submission, not dispatch. The
 * lead only adds idle time, so such a run is repeated with a doubled lead (twice at most).
 */
function measured(design: DesignName, n = N): Measurement {
  let lead = LEAD_MS;
  for (let attempt = 0;; attempt++) {
    const m = spawnOne(design, lead, n);
    if (!m.overran || attempt === 2) return m;
    lead *= 2;
    console.log(`  ${design}: scheduling overran the lead; again with --lead=${lead}`);
  }
}

const only = args.get("design");
if (only !== undefined) {
  if (!(DESIGNS as readonly string[]).includes(only)) {
    console.error(`dispatch: --design must be one of ${DESIGNS.join(", ")}, got "${only}"`);
    process.exit(2);
  }
  console.log(JSON.stringify(await measure(only as DesignName)));
  process.exit(0);
}

const designs = (args.get("designs") ?? DESIGNS.join(",")).split(",") as DesignName[];
console.log(
  `dispatch bench on ${runtime}: n=${N}, span ${SPAN_MS} ms, lead ${LEAD_MS} ms, ` +
    `pool ${POOL}, scheduler batch ${BATCH}${EXACT ? "" : ", wheel ticks (no exactDue)"}, ` +
    `${REPS} reps, seed ${SEED}`,
);
const runs = new Map<DesignName, Measurement[]>(designs.map((d) => [d, []]));
const larger = new Map<DesignName, Measurement[]>(designs.map((d) => [d, []]));
// Repetitions interleave the designs, so a burst of background load hits all of them.
for (let rep = 1; rep <= REPS; rep++) {
  for (const design of designs) {
    const m = measured(design);
    runs.get(design)!.push(m);
    console.log(
      `  rep ${rep} ${design.padEnd(9)} sched ${m.scheduleUsPerTask.toFixed(2)} µs/task, ` +
        `cpu ${m.dispatchCpuUsPerTask.toFixed(1)} µs/task` +
        (m.mainThreadCpuUsPerTask === null
          ? ", "
          : ` (JS thread ${m.mainThreadCpuUsPerTask.toFixed(1)}), `) +
        `late min/p50/p99/max ${m.minMs}/${m.p50Ms}/${m.p99Ms}/${m.maxMs} ms, ` +
        `${m.pendingBytesPerTask.toFixed(0)} B/pending, ` +
        `rss +${m.rssPeakMB.toFixed(1)} MB, heap +${m.heapPeakMB.toFixed(1)} MB` +
        (m.overran ? "  ** scheduling overran the lead: lateness invalid **" : "") +
        (m.gc ? "" : "  (no forced GC available)"),
    );
    if (ALSO_N) {
      const big = measured(design, ALSO_N);
      larger.get(design)!.push(big);
      console.log(
        `  rep ${rep} ${design.padEnd(9)} n=${ALSO_N}: cpu ${
          big.dispatchCpuUsPerTask.toFixed(1)
        } µs/task` + (big.overran ? "  ** scheduling overran the lead **" : ""),
      );
    }
  }
}
console.log("\nmedians of " + REPS + ` (${runtime}):\n`);
const rows = [...runs.values()].map((ms) => median(ms));
console.log(formatTable(rows));
if (ALSO_N) {
  console.log(`\nper task and per run (n=${N} and n=${ALSO_N} over the same span, medians):\n`);
  console.log(formatSplit(rows.map((r) => [r, median(larger.get(r.design as DesignName)!)])));
}
// The wheel promises never to fire early; a negative start − due would be a bug to report.
const early = rows.find((r) => r.design === "scheduler" && r.minMs < 0);
if (early) console.log(`\n** the scheduler started a task ${-early.minMs} ms early **`);
