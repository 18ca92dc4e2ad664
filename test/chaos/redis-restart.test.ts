/**
 * @module redis-restart.test — chaos rows: Redis `SHUTDOWN` mid-run and a restart 2 s later
 * on the same AOF, with `appendfsync everysec` and `always` (issue 11). Many short tasks in
 * flight; nothing may end dead or stay unfinished, and only a task whose run overlapped the
 * outage may run twice.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { overlapped, report, tally, unexplainedReruns } from "../helpers/chaos-evidence.ts";
import { until, withChaos } from "./chaos-cluster.ts";

/** The outage: long enough for every in-flight call to fail, shorter than the 3 s lease. */
const DOWN_MS = 2_000;

function restartRow(fsync: "everysec" | "always"): void {
  it(`nothing dead or lost, reruns only across the outage (appendfsync ${fsync})`, {
    timeout: 60_000,
  }, () =>
    withChaos(`restart-${fsync}`, { fsync, leaseMs: 3_000 }, async (c) => {
      // 50 slots per worker instead of the default 10: more handlers and settles are in
      // flight when Redis goes away, which is what this row is about.
      await c.spawn(3, { SKEDULR_POOLS: "default=50" });
      // 8000 stays below the store's row retention (10k finished rows), so every record can
      // still be read at the end; the 20k would only make the test slower.
      const n = 8_000;
      const ids = await c.submit(Array.from({ length: n }, () => ({
        type: "work",
        payload: { ms: 20 },
      })));
      await until(() => c.logged("end") >= n / 4, "a quarter of the tasks done", 30_000);
      const faultStart = Date.now();
      await c.redis.shutdown();
      // The fault itself lasts DOWN_MS; nothing waits on this timer for a condition.
      await new Promise((r) => setTimeout(r, DOWN_MS));
      await c.redis.start();
      const faultEnd = Date.now();

      const tasks = await c.untilFinal(ids, 30_000);
      const runs = c.runs();
      const t = tally(ids, tasks, runs);
      report(`redis restart (appendfsync ${fsync})`, t);
      assert.equal(t.dead, 0, "no task is dead because Redis restarted");
      assert.equal(t.neverFinished, 0, "no task is lost or stranded");
      assert.equal(t.succeeded, n);
      assert.deepEqual(
        unexplainedReruns(t, runs, overlapped(faultStart, faultEnd)),
        [],
        `only tasks running across the outage [${faultStart}, ${faultEnd}] ran again`,
      );
    }));
}

describe("chaos: Redis SHUTDOWN and restart 2 s later, mid-run", () => {
  restartRow("everysec");
  restartRow("always");
});
