/**
 * @module fib example — the second seed's demo on the embedded store: ten naive recursive
 * Fibonacci tasks submitted with random delays inside a window (20 s by default), where
 * n = 4 fails on purpose. Each finished attempt is printed as it happens (from `onResult`),
 * then the summary from `stats()`.
 *
 *   bun scripts/examples/fib.ts
 *   deno run -A scripts/examples/fib.ts
 *   FIB_SPAN_MS=2000 bun scripts/examples/fib.ts   # shrink the window (tests, impatient users)
 */
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import type { AttemptRecord, DurationStats } from "../../src/mod.ts";
import { env, exit, runtimeClock } from "../../src/adapters/runtime.ts";

const SPAN_MS = parseSpan(env("FIB_SPAN_MS"));
// 4 is the planted failure; 35 is the slowest, about a tenth of a second of naive recursion.
const NS = [4, 20, 22, 24, 26, 28, 30, 32, 34, 35];

function parseSpan(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 20_000;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) {
    console.error(`fib: FIB_SPAN_MS must be a number of ms ≥ 0, got ${JSON.stringify(raw)}`);
    exit(2);
  }
  return Math.floor(ms);
}

/** Deliberately naive: the point is a task that burns CPU for a while. */
function fib(n: number): number {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

const scheduler = new Scheduler({
  storage: new MemoryStorage(),
  pools: { default: 4 },
  clock: runtimeClock,
  logger: silentLogger,
});

scheduler.register("fib", (payload: { n: number }) => {
  if (payload.n === 4) throw new Error("fib(4) fails on purpose (the demo's planted error)");
  return fib(payload.n);
});

const started = Date.now();
const nById = new Map<string, number>();
const since = (t: number) => `+${((t - started) / 1000).toFixed(3)}s`.padStart(8);

let finished = 0;
let allDone!: () => void;
const done = new Promise<void>((resolve) => (allDone = resolve));

scheduler.onResult((record: AttemptRecord) => {
  const n = nById.get(record.taskId);
  // The stored record carries the handler's return value; the attempt record does not.
  scheduler.get(record.taskId).then((task) => {
    const outcome = record.status === "succeeded"
      ? `= ${task?.result}`
      : `${record.status}: ${record.error?.message}`;
    console.log(
      `${
        since(record.finishedAt)
      }  ${record.taskId}  fib(${n}) ${outcome}  (${record.durationMs} ms)`,
    );
    // Retrying attempts are not final; with maxRetries 0 every attempt is, but stay honest.
    if (record.status !== "retrying" && ++finished === NS.length) allDone();
  });
});

// The scheduler's own timers are unref'd; this one keeps the process alive until the end
// and turns a hang into a failure instead of a silent wait.
const watchdog = setTimeout(() => {
  console.error(`fib: not finished ${SPAN_MS + 60_000} ms after start; giving up`);
  exit(1);
}, SPAN_MS + 60_000);

await scheduler.start();
console.log(`submitting ${NS.length} fib tasks at random offsets within ${SPAN_MS} ms`);
for (const n of NS) {
  const delay = Math.floor(Math.random() * SPAN_MS);
  const id = await scheduler.submit({ type: "fib", payload: { n }, delay });
  nById.set(id, n);
  console.log(`  ${id}  fib(${n}) in ${delay} ms`);
}

await done;
clearTimeout(watchdog);

const stats = await scheduler.stats();
console.log("\nsummary");
for (const [type, d] of Object.entries(stats.durations)) console.log(`  ${type}: ${describe(d)}`);
console.log(
  `  succeeded ${stats.totals.succeeded}, dead ${stats.totals.dead}, ` +
    `failed attempts ${stats.totals.failedAttempts}`,
);

function describe(d: DurationStats): string {
  const tail = d.p95Ms !== undefined
    ? `p95 ${d.p95Ms} ms, p99 ${d.p99Ms} ms`
    : "p95/p99 n/a (under 100 samples)";
  return `count ${d.count}, mean ${d.meanMs} ms, median ${d.medianMs} ms, ` +
    `min ${d.minMs} ms, max ${d.maxMs} ms, ${tail}`;
}

await scheduler.shutdown({ timeoutMs: 5_000 });
exit(0);
