/**
 * @module bench/wheel — timing wheel versus `setTimeout`, one cell per process.
 *
 * Not a test: `scripts/bench/wheel.sh` (npm run bench:wheel) runs every cell in a fresh process
 * under Bun and Deno, three times, and this file's `report` mode prints the medians.
 *
 *   bun scripts/bench/wheel.ts fill <wheel|timeout> <N>    insert, cancel, memory, full GC
 *   bun scripts/bench/wheel.ts late <wheel|timeout> <N>    firing lateness, N due over 2 s
 *   bun scripts/bench/wheel.ts report <results.jsonl>      markdown table of medians
 *
 * Deno needs `--v8-flags=--expose-gc` for the forced GCs. Each cell prints one JSON line.
 */

import { type Clock, systemClock } from "../../src/core/clock.ts";
import { TimingWheel } from "../../src/core/timing-wheel.ts";

// deno-lint-ignore no-explicit-any
const runtime = globalThis as any;
const runtimeName: string = runtime.Bun ? "bun" : runtime.Deno ? "deno" : "node";

function fullGc(): void {
  if (runtime.Bun) runtime.Bun.gc(true);
  else if (typeof runtime.gc === "function") runtime.gc();
  else throw new Error("bench: forced GC is unavailable; run Deno with --v8-flags=--expose-gc");
}

/**
 * Bytes the JS engine holds. Bun's heapUsed already counts ArrayBuffer memory (its `external`
 * repeats it); V8 keeps typed-array backing stores outside the heap, so Deno adds `external`.
 */
function memory(): { heap: number; rss: number } {
  if (runtime.Deno) {
    const m = runtime.Deno.memoryUsage();
    return { heap: m.heapUsed + m.external, rss: m.rss };
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The two structures behind one interface: schedule at an absolute time, cancel by id. */
interface Timers {
  schedule(id: string, atMs: number, fn: () => void): void;
  cancel(id: string): void;
  size(): number;
  stop(): void;
}

function makeTimers(kind: string, clock: Clock): Timers {
  if (kind === "wheel") {
    const wheel = new TimingWheel({ clock });
    wheel.start();
    return {
      schedule: (id, atMs, fn) => wheel.schedule(id, atMs, fn),
      cancel: (id) => wheel.cancel(id),
      size: () => wheel.size,
      stop: () => wheel.stop(),
    };
  }
  if (kind === "timeout") {
    // What a scheduler would need without a wheel: a handle per id, to cancel and replace.
    const handles = new Map<string, ReturnType<typeof setTimeout>>();
    return {
      schedule: (id, atMs, fn) => handles.set(id, setTimeout(fn, Math.max(0, atMs - clock.now()))),
      cancel: (id) => {
        clearTimeout(handles.get(id));
        handles.delete(id);
      },
      size: () => handles.size,
      stop: () => {
        for (const handle of handles.values()) clearTimeout(handle);
        handles.clear();
      },
    };
  }
  throw new Error(`bench: unknown structure ${JSON.stringify(kind)}; use wheel or timeout`);
}

const noop = (): void => {};

/** Insert N with delays uniform in 1 s..1 h, measure memory and a full GC, cancel all. */
function fill(kind: string, n: number): Record<string, number> {
  const random = prng(42);
  // The caller owns ids and run-at times (a scheduler already has both), so they exist before
  // the baseline and are not counted as the timer structure's memory.
  const ids = Array.from({ length: n }, (_, i) => `task:${i}`);
  const delays = new Float64Array(n);
  for (let i = 0; i < n; i++) delays[i] = 1_000 + Math.floor(random() * 3_599_000);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
  const clock = systemClock;
  const warm = Math.min(n, 20_000);
  const warmup = makeTimers(kind, clock);
  const base0 = clock.now();
  for (let i = 0; i < warm; i++) warmup.schedule(ids[i], base0 + delays[i], noop);
  for (let i = 0; i < warm; i++) warmup.cancel(ids[i]);
  warmup.stop();

  const timers = makeTimers(kind, clock);
  const ats = new Float64Array(n);
  fullGc();
  let t = performance.now();
  fullGc();
  const gcBaseMs = performance.now() - t;
  const before = memory();
  // Everything below is synchronous, so no timer can fire and change what is pending.
  const base = clock.now();
  for (let i = 0; i < n; i++) ats[i] = base + delays[i];
  t = performance.now();
  for (let i = 0; i < n; i++) timers.schedule(ids[i], ats[i], noop);
  const insertNs = (performance.now() - t) * 1e6 / n;
  if (timers.size() !== n) throw new Error(`bench: ${timers.size()} pending, expected ${n}`);
  fullGc();
  const after = memory();
  t = performance.now();
  fullGc();
  const gcMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < n; i++) timers.cancel(ids[order[i]]);
  const cancelNs = (performance.now() - t) * 1e6 / n;
  if (timers.size() !== 0) throw new Error(`bench: ${timers.size()} left after cancel`);
  // Second round on memory the first one already touched: refill, cancel in insertion order.
  fullGc();
  t = performance.now();
  for (let i = 0; i < n; i++) timers.schedule(ids[i], ats[i], noop);
  const warmInsertNs = (performance.now() - t) * 1e6 / n;
  t = performance.now();
  for (let i = 0; i < n; i++) timers.cancel(ids[i]);
  const orderedCancelNs = (performance.now() - t) * 1e6 / n;
  if (timers.size() !== 0) throw new Error(`bench: ${timers.size()} left after cancel`);
  timers.stop();
  return {
    insertNs,
    warmInsertNs,
    cancelNs,
    orderedCancelNs,
    gcBaseMs,
    heapB: (after.heap - before.heap) / n,
    rssB: (after.rss - before.rss) / n,
    gcMs,
  };
}

/** Lateness of N callbacks due uniformly over 2 s, the window opening 1.5 s after the start. */
async function late(kind: string, n: number): Promise<Record<string, number>> {
  // One sub-ms clock for both structures, so lateness is measured the same way for each.
  const clock: Clock = { ...systemClock, now: () => performance.timeOrigin + performance.now() };
  const random = prng(7);
  const ids = Array.from({ length: n }, (_, i) => `task:${i}`);
  const ats = new Float64Array(n);
  const lateness = new Float64Array(n);
  const timers = makeTimers(kind, clock);
  let fired = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const callback = (i: number) => () => {
    lateness[i] = clock.now() - ats[i];
    if (++fired === n) done();
  };
  const start = clock.now();
  for (let i = 0; i < n; i++) ats[i] = start + 1_500 + random() * 2_000;
  for (let i = 0; i < n; i++) timers.schedule(ids[i], ats[i], callback(i));
  const scheduledMs = clock.now() - start;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    all,
    new Promise((_, reject) => {
      deadline = setTimeout(() => reject(new Error(`bench: only ${fired}/${n} fired`)), 15_000);
    }),
  ]);
  clearTimeout(deadline);
  timers.stop();
  const sorted = lateness.slice().sort();
  const pick = (q: number) => sorted[Math.min(n - 1, Math.floor(q * n))];
  return {
    p50: pick(0.5),
    p99: pick(0.99),
    max: sorted[n - 1],
    min: sorted[0],
    scheduledMs,
  };
}

interface Result {
  runtime: string;
  cell: string;
  kind: string;
  n: number;
  [metric: string]: number | string;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** One markdown table: a row per runtime × structure × N; lateness on the late test's N. */
function report(text: string): string {
  const results: Result[] = text.split("\n").filter((line) => line.startsWith("{")).map((line) =>
    JSON.parse(line)
  );
  const groups = new Map<string, Result[]>();
  for (const r of results) {
    const key = `${r.runtime}|${r.kind}|${r.n}|${r.cell}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const med = (key: string, metric: string, digits: number): string => {
    const rows = groups.get(key);
    if (!rows) return "–";
    return median(rows.map((r) => r[metric] as number)).toFixed(digits);
  };
  const label: Record<string, string> = { wheel: "TimingWheel", timeout: "setTimeout + Map" };
  const lines = [
    "| runtime | structure | N | insert ns/op cold / warm | cancel ns/op random / in order " +
    "| heap B/entry | RSS B/entry | full GC ms (no timers) | lateness p50 / p99 / max ms " +
    "| min ms | runs |",
    "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
  ];
  const ns = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  for (const runtime of ["bun", "deno", "node"]) {
    for (const kind of ["wheel", "timeout"]) {
      for (const n of ns) {
        const fillKey = `${runtime}|${kind}|${n}|fill`, lateKey = `${runtime}|${kind}|${n}|late`;
        if (!groups.has(fillKey) && !groups.has(lateKey)) continue;
        const latency = groups.has(lateKey)
          ? `${med(lateKey, "p50", 2)} / ${med(lateKey, "p99", 2)} / ${med(lateKey, "max", 1)}`
          : "–";
        const runs = Math.max(groups.get(fillKey)?.length ?? 0, groups.get(lateKey)?.length ?? 0);
        lines.push(
          `| ${runtime} | ${label[kind]} | ${n.toLocaleString("en-US")} | ` +
            `${med(fillKey, "insertNs", 0)} / ${med(fillKey, "warmInsertNs", 0)} | ` +
            `${med(fillKey, "cancelNs", 0)} / ${med(fillKey, "orderedCancelNs", 0)} | ` +
            `${med(fillKey, "heapB", 0)} | ${med(fillKey, "rssB", 0)} | ` +
            `${med(fillKey, "gcMs", 1)} (${med(fillKey, "gcBaseMs", 1)}) | ` +
            `${latency} | ${med(lateKey, "min", 2)} | ${runs} |`,
        );
      }
    }
  }
  return lines.join("\n");
}

const [mode, kind, count] = runtime.Deno ? runtime.Deno.args : process.argv.slice(2);
if (mode === "report") {
  const text = runtime.Deno
    ? await runtime.Deno.readTextFile(kind)
    : await runtime.Bun.file(kind).text();
  console.log(report(text));
} else if (mode === "fill" || mode === "late") {
  const n = Number(count);
  if (!Number.isInteger(n) || n <= 0) {
    throw new Error(`bench: N must be a positive integer, got ${JSON.stringify(count)}`);
  }
  const metrics = mode === "fill" ? fill(kind, n) : await late(kind, n);
  console.log(JSON.stringify({ runtime: runtimeName, cell: mode, kind, n, ...metrics }));
} else {
  console.error("usage: wheel.ts fill|late wheel|timeout N  |  wheel.ts report results.jsonl");
  throw new Error(`bench: unknown mode ${JSON.stringify(mode)}`);
}
