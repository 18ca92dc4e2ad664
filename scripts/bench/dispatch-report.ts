/**
 * @module dispatch-report — figures and the markdown table of the dispatch benchmark.
 */

/** One design's result in one process. */
export interface Measurement {
  design: string;
  runtime: string;
  n: number;
  leadMs: number;
  scheduleUsPerTask: number;
  dispatchCpuUsPerTask: number;
  /** Of it, the main (JavaScript) thread's, where /proc tells (Linux); else null. */
  mainThreadCpuUsPerTask: number | null;
  setupMs: number;
  /** Scheduling was still running when the first task fell due: lateness is not valid. */
  overran: boolean;
  /** A full GC ran before the memory baseline. */
  gc: boolean;
  minMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Heap held per pending task once all are scheduled (after a full GC), in bytes. */
  pendingBytesPerTask: number;
  rssPeakMB: number;
  heapPeakMB: number;
}

/** Nearest-rank percentiles of lateness in ms (start − due). */
export function summarise(late: Float64Array) {
  const sorted = late.slice().sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { minMs: sorted[0], p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[sorted.length - 1] };
}

const mid = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Per-figure medians over repetitions, each column on its own; `minMs` is the minimum. */
export function median(runs: Measurement[]): Measurement {
  const m = { ...runs[0] };
  const keys = [
    "scheduleUsPerTask",
    "dispatchCpuUsPerTask",
    "setupMs",
    "p50Ms",
    "p99Ms",
    "maxMs",
    "pendingBytesPerTask",
    "rssPeakMB",
    "heapPeakMB",
  ] as const;
  for (const k of keys) m[k] = mid(runs.map((r) => r[k]));
  // The never-early check must hold in every run, so min is the minimum, not a median.
  m.minMs = Math.min(...runs.map((r) => r.minMs));
  m.overran = runs.some((r) => r.overran);
  return m;
}

const LABEL: Record<string, string> = {
  scheduler: "(a) Skedulr: wheel + pools, MemoryStorage",
  heap: "(b) seed: min-heap + sleeping loop + pool",
  timeout: "(c) one setTimeout per task",
};

export function formatTable(rows: Measurement[]): string {
  const f = (x: number, d = 1) => x.toFixed(d);
  const lines = [
    "| design | schedule µs/task | dispatch CPU µs/task | lateness min | p50 | p99 | max (ms) " +
    "| heap B/pending task | peak RSS Δ MB | peak heap Δ MB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${LABEL[r.design] ?? r.design}${r.overran ? " (overran lead!)" : ""} | ` +
        `${f(r.scheduleUsPerTask, 2)} | ${f(r.dispatchCpuUsPerTask)} | ${f(r.minMs, 0)} | ${
          f(r.p50Ms, 0)
        } | ${f(r.p99Ms, 0)} | ` +
        `${f(r.maxMs, 0)} | ${f(r.pendingBytesPerTask, 0)} | ${f(r.rssPeakMB)} | ${
          f(r.heapPeakMB)
        } |`,
    );
  }
  return lines.join("\n");
}

/**
 * Dispatch CPU split into a part per task and a part per run, from medians at two sizes over
 * the same span: CPU(n) = fixed + marginal × n. The fixed part is what a run costs whatever
 * its size (compiling the dispatch path, the span's timer passes); the marginal part is what
 * each further task adds.
 */
export function costSplit(
  small: Measurement,
  large: Measurement,
): { marginalUs: number; fixedMs: number } {
  const a = small.dispatchCpuUsPerTask * small.n, b = large.dispatchCpuUsPerTask * large.n;
  const marginalUs = (b - a) / (large.n - small.n);
  return { marginalUs, fixedMs: (a - marginalUs * small.n) / 1000 };
}

/** The split of each design's dispatch CPU (`--also-n`), as a markdown table. */
export function formatSplit(pairs: [Measurement, Measurement][]): string {
  const lines = [
    "| design | CPU µs/task at n₁ | at n₂ | per task (marginal) µs | per run (fixed) ms |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const [small, large] of pairs) {
    const { marginalUs, fixedMs } = costSplit(small, large);
    lines.push(
      `| ${LABEL[small.design] ?? small.design} | ${small.dispatchCpuUsPerTask.toFixed(1)} ` +
        `(n=${small.n}) | ${large.dispatchCpuUsPerTask.toFixed(1)} (n=${large.n}) | ` +
        `${marginalUs.toFixed(1)} | ${fixedMs.toFixed(0)} |`,
    );
  }
  return lines.join("\n");
}
