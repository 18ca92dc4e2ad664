/**
 * @module flow-jobs — job handlers for scripts/bench/flow.ts, loaded by a real
 * `scripts/entry/worker.ts` process through SKEDULR_JOBS: each records its start time
 * (a clock shared by every process on the host) to the list BENCH_SAMPLES.
 */
import process from "node:process";
import { preciseNow, recorder } from "./e2e-recorder.ts";

const record = recorder(process.env.REDIS_URL!, process.env.BENCH_SAMPLES ?? "bench:samples");

export default {
  noop: () => null,
  /** A small tenant's task: its start time (the driver subtracts when it was queued). */
  small: () => {
    record(preciseNow());
    return null;
  },
};
