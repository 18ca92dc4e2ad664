/**
 * @module redis-pause.test — chaos rows: Redis frozen with SIGSTOP (connections stay open,
 * nothing answers) for half a lease and for two leases while tasks run (issue 11). A stall
 * shorter than the lease must abort nothing; a longer one may re-run what was running, and
 * never dead-letters it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { overlapped, report, tally, unexplainedReruns } from "../helpers/chaos-evidence.ts";
import { until, withChaos } from "./chaos-cluster.ts";

const LEASE_MS = 3_000;

/** Freezes Redis for `ms`: the fault's own length, not a wait for a condition. */
async function freeze(
  redis: { pause(): void; resume(): void },
  ms: number,
): Promise<[number, number]> {
  const start = Date.now();
  redis.pause();
  try {
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    redis.resume();
  }
  return [start, Date.now()];
}

describe("chaos: Redis SIGSTOP while tasks run", () => {
  it("for half a lease: no handler aborted, nothing rerun, nothing dead", {
    timeout: 60_000,
  }, () =>
    withChaos("pause-half", { leaseMs: LEASE_MS }, async (c) => {
      await c.spawn(2);
      // Three leases long: renewals fall due during the stall and after it.
      const n = 10;
      const ids = await c.submit(Array.from({ length: n }, () => ({
        type: "work",
        payload: { ms: 3 * LEASE_MS },
      })));
      await until(() => c.logged("start") >= n, "every long task running", 15_000);
      await freeze(c.redis, LEASE_MS / 2);

      const tasks = await c.untilFinal(ids, 3 * LEASE_MS + 15_000);
      const runs = c.runs();
      const t = tally(ids, tasks, runs);
      report("redis SIGSTOP half a lease", t);
      const aborted = [...runs.values()].flat().filter((r) => r.abort !== null);
      assert.deepEqual(
        aborted.map((r) => `${r.taskId} on ${r.pid}: ${r.reason}`),
        [],
        "a stall shorter than the lease aborts no handler",
      );
      assert.equal(t.dead, 0, "nothing dead");
      assert.equal(t.neverFinished, 0, "nothing lost");
      assert.deepEqual(t.ranTwice, [], "nothing rerun");
      assert.equal(t.succeeded, n);
    }));

  it("for two leases: nothing dead or lost, reruns only for tasks running during it", {
    timeout: 90_000,
  }, () =>
    withChaos("pause-two", { leaseMs: LEASE_MS }, async (c) => {
      await c.spawn(3);
      // Long tasks that outlast the stall (their leases must be renewed after it), then a
      // stream of short ones around it.
      const long = await c.submit(Array.from({ length: 6 }, () => ({
        type: "work",
        payload: { ms: 4 * LEASE_MS },
      })));
      await until(() => c.logged("start") >= long.length, "the long tasks running", 15_000);
      const n = 2_000;
      const short = await c.submit(Array.from({ length: n }, () => ({
        type: "work",
        payload: { ms: 30 },
      })));
      await until(() => c.logged("end") >= n / 4, "a quarter of the short tasks done", 30_000);
      const [faultStart, faultEnd] = await freeze(c.redis, 2 * LEASE_MS);

      const ids = [...long, ...short];
      const tasks = await c.untilFinal(ids, 45_000);
      const runs = c.runs();
      const t = tally(ids, tasks, runs);
      report("redis SIGSTOP two leases", t);
      assert.equal(t.dead, 0, "no task is dead because Redis stalled");
      assert.equal(t.neverFinished, 0, "no task is lost or stranded");
      assert.equal(t.succeeded, ids.length);
      assert.deepEqual(
        unexplainedReruns(t, runs, overlapped(faultStart, faultEnd)),
        [],
        `only tasks running during the stall [${faultStart}, ${faultEnd}] ran again`,
      );
    }));
});
