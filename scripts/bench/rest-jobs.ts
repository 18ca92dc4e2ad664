/**
 * @module rest-jobs — job handlers for scripts/bench/rest.ts, loaded by real
 * `scripts/entry/worker.ts` processes (over TCP or over REST) through SKEDULR_JOBS.
 *
 * Samples go to Redis over TCP at BENCH_REDIS_URL whatever the worker's own transport:
 * the measuring channel must be the same for both systems, and a REST worker may not have
 * REDIS_URL set (it selects the TCP store).
 */
import process from "node:process";
import { preciseNow, recorder } from "./e2e-recorder.ts";

const record = recorder(process.env.BENCH_REDIS_URL!, process.env.BENCH_SAMPLES ?? "bench:samples");

export default {
  noop: () => null,
  /** Enqueue → start: `t` is when the driver called submit. */
  latency: (payload: { t: number }) => {
    record(preciseNow() - payload.t);
    return null;
  },
};
