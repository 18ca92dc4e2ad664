/**
 * @module e2e-jobs — Skedulr job handlers for scripts/bench/e2e.ts, loaded by real
 * `scripts/entry/worker.ts` processes through SKEDULR_JOBS. BullMQ's twin is e2e-bullmq-worker.ts.
 */
import process from "node:process";
import { preciseNow, recorder } from "./e2e-recorder.ts";

const record = recorder(process.env.REDIS_URL!, process.env.BENCH_SAMPLES ?? "bench:samples");

export default {
  noop: () => null,
  /** Enqueue → start: `t` is when the driver called submit. */
  latency: (payload: { t: number }) => {
    record(preciseNow() - payload.t);
    return null;
  },
  /** Start − due time. */
  lateness: (payload: { due: number }) => {
    record(preciseNow() - payload.due);
    return null;
  },
};
