/**
 * @module bench/wheel — timing wheel versus `setTimeout`, one cell per process.
 *
 * Not a test: `scripts/bench/wheel.sh` (npm run bench:wheel) runs every cell in a fresh process
 * under Bun and Deno, three times, and this file's `report` mode prints the medians.
 *
 *   bun scripts/bench/wheel.ts fill <wheel|timeout> <N>    insert, cancel, memory, full GC
 *   bun scripts/bench/wheel.ts late <wheel|timeout> <N>    firing lateness, N due over 2 s
 *   bun scripts/bench/wheel.ts drain <wheelSize> <N>       fire N through a virtual clock
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

/** Median of three forced full GCs, in ms: a single one swings with leftover sweeping. */
function gcPauseMs(): number {
  const pauses = [0, 1, 2].map(() => {
    const t = performance.now();
    fullGc();
    return performance.now() - t;
  });
  return pauses.sort((a, b) => a - b)[1];
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
  if (kind === "map") {
    // The floor under any timer keyed by string id: the id → slot lookup the wheel also does.
    const index = new Map<string, number>();
    let next = 0;
    return {
      schedule: (id) => {
        if (index.get(id) === undefined) index.set(id, next++);
      },
      cancel: (id) => {
        if (index.get(id) !== undefined) index.delete(id);
      },
      size: () => index.size,
      stop: () => index.clear(),
    };
  }
  throw new Error(`bench: unknown structure ${JSON.stringify(kind)}; use wheel, timeout or map`);
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
  // JIT warm-up on a separate instance and separate ids: three rounds of 20k schedule + cancel,
  // so that even the 10k cell measures optimized code rather than the tiering compilers.
  const warmIds = Array.from({ length: 20_000 }, (_, i) => `warm:${i}`);
  for (let round = 0; round < 3; round++) {
    const warmup = makeTimers(kind, clock);
    const base0 = clock.now();
    for (let i = 0; i < warmIds.length; i++) {
      warmup.schedule(warmIds[i], base0 + delays[i % n], noop);
    }
    for (let i = 0; i < warmIds.length; i++) warmup.cancel(warmIds[i]);
    warmup.stop();
  }

  // Small fills finish within one GC or JIT hiccup, so those cells take the median of several
  // fresh structures; the first fill alone gives memory and GC figures.
  const fills = n >= 1_000_000 ? 1 : n >= 100_000 ? 3 : 5;
  const inserts: number[] = [], cancels: number[] = [];
  const ats = new Float64Array(n);
  let first: Record<string, number> = {};
  let lastTimers: Timers | undefined;
  let t: number;
  for (let round = 0; round < fills; round++) {
    const timers = makeTimers(kind, clock);
    fullGc();
    const gcBaseMs = round === 0 ? gcPauseMs() : 0;
    const before = memory();
    // Everything below is synchronous, so no timer can fire and change what is pending.
    const base = clock.now();
    for (let i = 0; i < n; i++) ats[i] = base + delays[i];
    t = performance.now();
    for (let i = 0; i < n; i++) timers.schedule(ids[i], ats[i], noop);
    inserts.push((performance.now() - t) * 1e6 / n);
    if (timers.size() !== n) throw new Error(`bench: ${timers.size()} pending, expected ${n}`);
    if (round === 0) {
      fullGc();
      const after = memory();
      first = {
        heapB: (after.heap - before.heap) / n,
        rssB: (after.rss - before.rss) / n,
        gcMs: gcPauseMs(),
        gcBaseMs,
      };
    }
    t = performance.now();
    for (let i = 0; i < n; i++) timers.cancel(ids[order[i]]);
    cancels.push((performance.now() - t) * 1e6 / n);
    if (timers.size() !== 0) throw new Error(`bench: ${timers.size()} left after cancel`);
    if (round < fills - 1) timers.stop();
    else lastTimers = timers;
  }
  const result = { ...first, insertNs: median(inserts), cancelNs: median(cancels) };
  const timers = lastTimers!;
  // setTimeout on Deno takes ~10 µs an op: a second round at 1M would blow the time budget.
  if (kind === "timeout" && n >= 1_000_000) {
    timers.stop();
    return result;
  }
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
  return { ...result, warmInsertNs, orderedCancelNs };
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

/**
 * Fires N entries (delays uniform 1 s..1 h) through a synchronous virtual clock: the cost per
 * fired entry of every cascade and driver turn, for a given wheelSize. Used to pick the default.
 */
function drain(wheelSize: number, n: number): Record<string, number> {
  const random = prng(42);
  let now = 1_700_000_000_000;
  let pending: { at: number; fn: () => void } | undefined;
  let wakeups = 0;
  const clock: Clock = {
    now: () => now,
    setTimer: (fn, ms) => (pending = { at: now + ms, fn }),
    clearTimer: (handle) => {
      if (handle === pending) pending = undefined;
    },
  };
  const wheel = new TimingWheel({ clock, wheelSize });
  const ids = Array.from({ length: n }, (_, i) => `task:${i}`);
  let fired = 0;
  const count = () => void fired++;
  for (let i = 0; i < n; i++) wheel.schedule(ids[i], now + 1_000 + random() * 3_599_000, count);
  wheel.start();
  const t = performance.now();
  while (pending) {
    const timer = pending;
    pending = undefined;
    if (timer.at > now) now = timer.at;
    wakeups++;
    timer.fn();
  }
  const ms = performance.now() - t;
  if (fired !== n) throw new Error(`bench: drained ${fired} of ${n}`);
  return { drainNs: ms * 1e6 / n, wakeups };
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
    const values = (groups.get(key) ?? []).map((r) => r[metric]).filter((v) =>
      typeof v === "number"
    ) as number[];
    return values.length ? median(values).toFixed(digits) : "–";
  };
  const label: Record<string, string> = {
    wheel: "TimingWheel",
    timeout: "setTimeout + Map",
    map: "Map<string, number> alone",
  };
  const lines = [
    "| runtime | structure | N | insert ns/op fresh / refill | cancel ns/op random / in order " +
    "| heap B/entry | RSS B/entry | full GC ms (no timers) | lateness p50 / p99 / max ms " +
    "| min ms | runs |",
    "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
  ];
  const ns = [...new Set(results.map((r) => r.n))].sort((a, b) => a - b);
  for (const runtime of ["bun", "deno", "node"]) {
    for (const kind of ["wheel", "timeout", "map"]) {
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
} else if (mode === "drain") {
  console.log(
    JSON.stringify({
      runtime: runtimeName,
      cell: mode,
      wheelSize: Number(kind),
      n: Number(count),
      ...drain(Number(kind), Number(count)),
    }),
  );
} else if (mode === "fill" || mode === "late") {
  const n = Number(count);
  if (!Number.isInteger(n) || n <= 0) {
    throw new Error(`bench: N must be a positive integer, got ${JSON.stringify(count)}`);
  }
  const metrics = mode === "fill" ? fill(kind, n) : await late(kind, n);
  console.log(JSON.stringify({ runtime: runtimeName, cell: mode, kind, n, ...metrics }));
} else {
  console.error("usage: wheel.ts fill|late wheel|timeout|map N | drain SIZE N | report FILE");
  throw new Error(`bench: unknown mode ${JSON.stringify(mode)}`);
}
