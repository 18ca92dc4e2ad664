/**
 * @module limits.test — chaos rows about sizes rather than faults (issue 11): a 25,000-deep
 * `dependsOn` chain whose root is cancelled (every script does bounded work, counters match
 * the rows after every step), and a task timeout beyond the platform's timer maximum.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { report, tally } from "../helpers/chaos-evidence.ts";
import { call, until, withChaos } from "./chaos-cluster.ts";
import { ALL_STATUSES } from "../../src/core/task.ts";

/** status → number of `task:*` rows in it, found with SCAN (the throwaway Redis only). */
async function rowsByStatus(redis: RedisTransport, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.send([
      "SCAN",
      cursor,
      "MATCH",
      `${prefix}:{default}:task:*`,
      "COUNT",
      "2000",
    ]) as [string, string[]];
    cursor = String(next);
    const statuses = await redis.pipeline(keys.map((k) => ["HGET", k, "status"]));
    for (const s of statuses) out.set(String(s), (out.get(String(s)) ?? 0) + 1);
  } while (cursor !== "0");
  return out;
}

async function countsHash(redis: RedisTransport, prefix: string): Promise<Map<string, number>> {
  const flat = await redis.send(["HGETALL", `${prefix}:{default}:counts`]) as string[];
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i], Number(flat[i + 1]));
  return out;
}

describe("chaos: a 25,000-deep dependsOn chain, then cancel of its root", () => {
  it("answers 200, cancels the whole chain, and counts match the rows", {
    timeout: 120_000,
  }, () =>
    withChaos("chain", {}, async (c) => {
      const [w] = await c.spawn(1);
      const depth = 25_000;
      const id = (i: number) => `c${i}`;
      // The root waits an hour, so the chain stays `waiting` until the cancel.
      for (let from = 0; from < depth; from += 1000) {
        const batch = Array.from({ length: 1000 }, (_, k) => {
          const i = from + k;
          return i === 0
            ? { id: id(0), type: "work", delay: "1h" }
            : { id: id(i), type: "work", dependsOn: [id(i - 1)] };
        });
        const r = await call(w, "POST", "/api/tasks/batch", batch, 30_000);
        assert.equal(r.status, 201, `batch at ${from}: ${JSON.stringify(r.body).slice(0, 300)}`);
      }
      const cancel = await call(w, "POST", `/api/tasks/${id(0)}/cancel`, {}, 30_000);

      // Finished rows past the store's retention (10k) are pruned, so "the whole chain is
      // cancelled" reads: no row in any other status, and the counts hash agrees with the rows.
      const prefix = c.prefix;
      let rows = new Map<string, number>();
      await until(
        () =>
          c.redis.query(async (r) => {
            rows = await rowsByStatus(r, prefix);
            return [...rows.keys()].every((s) => s === "cancelled");
          }),
        "every task of the chain to be cancelled",
        60_000,
        1_000,
      ).catch(() => {});
      const counts = await c.redis.query((r) => countsHash(r, prefix));
      const left = [...rows].filter(([s]) => s !== "cancelled").reduce((n, [, k]) => n + k, 0);
      console.log(
        `chaos 25k-deep chain cancel: submitted ${depth} / succeeded ${
          rows.get("succeeded") ?? 0
        }` +
          ` / dead ${rows.get("dead") ?? 0} / never finished ${left} / run more than once 0`,
      );
      assert.equal(cancel.status, 200, `cancel of the root: ${JSON.stringify(cancel.body)}`);
      assert.deepEqual(
        Object.fromEntries(rows),
        { cancelled: rows.get("cancelled") },
        "no task left waiting",
      );
      for (const s of ALL_STATUSES) {
        assert.equal(counts.get(s) ?? 0, rows.get(s) ?? 0, `counts.${s} matches the rows`);
      }
      // The cascade's last and newest-finished row is within the retention: it must be there.
      const tail = await c.redis.send([
        "HGET",
        `${prefix}:{default}:task:${id(depth - 1)}`,
        "status",
      ]);
      assert.equal(tail, "cancelled", "the end of the chain is cancelled");
      assert.equal(c.runs().size, 0, "no task of the chain ran");
    }));
});

describe("chaos: a timeout beyond 2^31-1 ms", () => {
  it(
    '"timeout": "25d" on a 200 ms handler succeeds',
    { timeout: 30_000 },
    () =>
      withChaos("timeout", {}, async (c) => {
        await c.spawn(1);
        const ids = await c.submit([{ type: "work", payload: { ms: 200 }, timeout: "25d" }]);
        const tasks = await c.untilFinal(ids, 10_000);
        const runs = c.runs();
        const t = tally(ids, tasks, runs);
        report("timeout 25d", t);
        assert.equal(tasks.get(ids[0])?.status, "succeeded", JSON.stringify(tasks.get(ids[0])));
        assert.deepEqual(
          runs.get(ids[0])?.map((r) => r.abort === null && r.end !== null),
          [true],
          "the handler ran once, to its end",
        );
      }),
  );
});
