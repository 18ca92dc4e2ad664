/**
 * @module http-jobs — the one job type of scripts/bench/http.ts, loaded by a real
 * `scripts/entry/worker.ts` process through SKEDULR_JOBS: its heartbeat advertises `noop`, so
 * submits of it are answered without a "no live worker" warning, as in a deployment.
 */
export default {
  noop: () => null,
};
