/**
 * @module bench/wheel — timing wheel (by handle and by id) versus `setTimeout`, one cell per
 * process.
 *
 * Not a test: `scripts/bench/wheel.sh` (npm run bench:wheel) runs every cell in a fresh process
 * under Bun and Deno, three times, and this file's `report` mode prints the medians.
 *
 *   bun scripts/bench/wheel.ts fill <structure> <N>                  insert, cancel, memory, GC
 *   bun scripts/bench/wheel.ts late <structure> <N>                  lateness, N due over 2 s
 *   bun scripts/bench/wheel.ts drain <wheelSize> <N> [ids|handles]   fire N, virtual clock
 *   bun scripts/bench/wheel.ts report <results.jsonl>                table of medians
 *
 * Structures: `handles` (TimingWheel add/remove by integer handle), `wheel` (TimingWheel
 * schedule/cancel by string id), `timeout` (setTimeout + Map by id), `map` (the bare
 * Map<string, number> lookup, the floor under anything keyed by string id).
 *
 * Deno needs `--v8-flags=--expose-gc` for the forced GCs. Each cell prints one JSON line.
 */

import { type Clock, systemClock } from "../../src/core/clock.ts";
import { TimingWheel } from "../../src/core/timing-wheel.ts";
import { prng } from "../tools/prng.ts";

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

/**
 * The structures behind one interface. Entry i is the caller's record i; the loops over all N
 * live inside each structure, so the timed loop body is the structure's own call with no
 * wrapper in between, and everything else it reads (due times, ids, handles, the cancel
 * order) is prepared before the clock starts.
 */
interface Timers {
  /** Schedules entry i at `ats[i]` for every i < ats.length, with `fns[i]` or a no-op. */
  insert(ats: Float64Array, fns?: (() => void)[]): void;
  /** Untimed: lays out what `cancel` will read, in `order` (entry indices). */
  prepareCancel(order: Int32Array): void;
  /** Cancels every entry, in the prepared order. */
  cancel(): void;
  size(): number;
  stop(): void;
}

function makeTimers(kind: string, clock: Clock, ids: string[]): Timers {
  const n = ids.length;
  if (kind === "wheel") {
    const wheel = new TimingWheel({ clock });
    wheel.start();
    let cancelIds: string[] = [];
    return {
      insert: (ats, fns) => {
        if (fns) { for (let i = 0; i < n; i++) wheel.schedule(ids[i], ats[i], fns[i]); }
        else for (let i = 0; i < n; i++) wheel.schedule(ids[i], ats[i], noop);
      },
      prepareCancel: (order) => {
        cancelIds = Array.from(order, (i) => ids[i]);
      },
      cancel: () => {
        for (let i = 0; i < n; i++) wheel.cancel(cancelIds[i]);
      },
      size: () => wheel.size,
      stop: () => wheel.stop(),
    };
  }
  if (kind === "handles") {
    // The caller keeps each entry's handle in its own record: here, a Float64Array.
    const wheel = new TimingWheel({ clock });
    wheel.start();
    const handles = new Float64Array(n);
    const cancelHandles = new Float64Array(n);
    return {
      insert: (ats, fns) => {
        if (fns) { for (let i = 0; i < n; i++) handles[i] = wheel.add(ats[i], fns[i]); }
        else for (let i = 0; i < n; i++) handles[i] = wheel.add(ats[i], noop);
      },
      prepareCancel: (order) => {
        for (let i = 0; i < n; i++) cancelHandles[i] = handles[order[i]];
      },
      cancel: () => {
        for (let i = 0; i < n; i++) wheel.remove(cancelHandles[i]);
      },
      size: () => wheel.size,
      stop: () => wheel.stop(),
    };
  }
  if (kind === "timeout") {
    // What a scheduler would need without a wheel: a handle per id, to cancel and replace.
    const handles = new Map<string, ReturnType<typeof setTimeout>>();
    let cancelIds: string[] = [];
    const schedule = (id: string, atMs: number, fn: () => void) =>
      handles.set(id, setTimeout(fn, Math.max(0, atMs - clock.now())));
    return {
      insert: (ats, fns) => {
        for (let i = 0; i < n; i++) schedule(ids[i], ats[i], fns ? fns[i] : noop);
      },
      prepareCancel: (order) => {
        cancelIds = Array.from(order, (i) => ids[i]);
      },
      cancel: () => {
        for (let i = 0; i < n; i++) {
          const id = cancelIds[i];
          clearTimeout(handles.get(id));
          handles.delete(id);
        }
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
    let cancelIds: string[] = [];
    return {
      insert: () => {
        for (let i = 0; i < n; i++) {
          const id = ids[i];
          if (index.get(id) === undefined) index.set(id, next++);
        }
      },
      prepareCancel: (order) => {
        cancelIds = Array.from(order, (i) => ids[i]);
      },
      cancel: () => {
        for (let i = 0; i < n; i++) {
          const id = cancelIds[i];
          if (index.get(id) !== undefined) index.delete(id);
        }
      },
      size: () => index.size,
      stop: () => index.clear(),
    };
  }
  throw new Error(
    `bench: unknown structure ${JSON.stringify(kind)}; use wheel, handles, timeout or map`,
  );
}

const noop = (): void => {};

/** Insert N with delays uniform in 1 s..1 h, measure memory and a full GC, cancel all. */
function fill(kind: string, n: number): Record<string, number> {
  const random = prng(42);
  // The caller owns ids, run-at times and the cancel order (a scheduler already has them), so
  // they exist before the baseline and are not counted as the timer structure's memory.
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
  const inOrder = new Int32Array(n);
  for (let i = 0; i < n; i++) inOrder[i] = i;
  // systemClock, counting reads: the insert path should not read the clock per call.
  let clockReads = 0;
  const clock: Clock = { ...systemClock, now: () => (clockReads++, Date.now()) };
  // JIT warm-up on a separate instance and separate ids: three rounds of 20k schedule + cancel,
  // so that even the 10k cell measures optimized code rather than the tiering compilers.
  const warmIds = Array.from({ length: 20_000 }, (_, i) => `warm:${i}`);
  const warmAts = new Float64Array(warmIds.length);
  const warmOrder = new Int32Array(warmIds.length);
  for (let i = 0; i < warmIds.length; i++) warmOrder[i] = i;
  for (let i = warmIds.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const swap = warmOrder[i];
    warmOrder[i] = warmOrder[j];
    warmOrder[j] = swap;
  }
  for (let round = 0; round < 3; round++) {
    const warmup = makeTimers(kind, clock, warmIds);
    const base0 = clock.now();
    for (let i = 0; i < warmIds.length; i++) warmAts[i] = base0 + delays[i % n];
    warmup.insert(warmAts);
    warmup.prepareCancel(warmOrder);
    warmup.cancel();
    warmup.stop();
  }

  // Small fills finish within one GC or JIT hiccup, so those cells take the median of several
  // fresh structures; the first fill alone gives memory and GC figures.
  const fills = n >= 1_000_000 ? 1 : n >= 100_000 ? 3 : 5;
  const inserts: number[] = [], cancels: number[] = [];
  const ats = new Float64Array(n);
  let first: Record<string, number> = {};
  let lastTimers: Timers | undefined;
  let readsPerInsert = 0;
  let t: number;
  for (let round = 0; round < fills; round++) {
    const timers = makeTimers(kind, clock, ids);
    fullGc();
    const gcBaseMs = round === 0 ? gcPauseMs() : 0;
    const before = memory();
    // Everything below is synchronous, so no timer can fire and change what is pending.
    // One clock read for the whole batch: the due times are absolute, computed up front.
    const base = clock.now();
    for (let i = 0; i < n; i++) ats[i] = base + delays[i];
    const reads0 = clockReads;
    t = performance.now();
    timers.insert(ats);
    inserts.push((performance.now() - t) * 1e6 / n);
    readsPerInsert = Math.max(readsPerInsert, (clockReads - reads0) / n);
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
    timers.prepareCancel(order);
    t = performance.now();
    timers.cancel();
    cancels.push((performance.now() - t) * 1e6 / n);
    if (timers.size() !== 0) throw new Error(`bench: ${timers.size()} left after cancel`);
    if (round < fills - 1) timers.stop();
    else lastTimers = timers;
  }
  const result = {
    ...first,
    insertNs: median(inserts),
    cancelNs: median(cancels),
    clockReadsPerInsert: readsPerInsert,
  };
  const timers = lastTimers!;
  // setTimeout on Deno takes ~10 µs an op: a second round at 1M would blow the time budget.
  if (kind === "timeout" && n >= 1_000_000) {
    timers.stop();
    return result;
  }
  // Second round on memory the first one already touched: refill, cancel in insertion order.
  fullGc();
  t = performance.now();
  timers.insert(ats);
  const warmInsertNs = (performance.now() - t) * 1e6 / n;
  timers.prepareCancel(inOrder);
  t = performance.now();
  timers.cancel();
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
  const timers = makeTimers(kind, clock, ids);
  let fired = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const fns = Array.from({ length: n }, (_, i) => () => {
    lateness[i] = clock.now() - ats[i];
    if (++fired === n) done();
  });
  const start = clock.now();
  for (let i = 0; i < n; i++) ats[i] = start + 1_500 + random() * 2_000;
  timers.insert(ats, fns);
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
 * fired entry of every cascade and driver turn, for a given wheelSize, with entries scheduled
 * by id (the default) or added by handle. Used to pick the default wheelSize.
 */
function drain(wheelSize: number, n: number, by: string): Record<string, number> {
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
  for (let i = 0; i < n; i++) {
    const at = now + 1_000 + random() * 3_599_000;
    if (by === "handles") wheel.add(at, count);
    else wheel.schedule(ids[i], at, count);
  }
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
    wheel: "TimingWheel (ids)",
    handles: "TimingWheel (handles)",
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
    for (const kind of ["handles", "wheel", "timeout", "map"]) {
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

const [mode, kind, count, extra] = runtime.Deno ? runtime.Deno.args : process.argv.slice(2);
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
      by: extra ?? "ids",
      ...drain(Number(kind), Number(count), extra ?? "ids"),
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
  console.error(
    "usage: wheel.ts fill|late handles|wheel|timeout|map N | drain SIZE N [ids|handles] | " +
      "report FILE",
  );
  throw new Error(`bench: unknown mode ${JSON.stringify(mode)}`);
}
