/**
 * @module redis-full.test — chaos row: Redis hits `maxmemory` (noeviction) while tasks run
 * (issue 11). Finishing work must still be accepted (a settle, renewal or release is not a
 * new write the store may refuse), while new submits are refused with an honest 503.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { report, tally } from "../helpers/chaos-evidence.ts";
import { type Call, call, describeCalls, until, withChaos } from "./chaos-cluster.ts";

const LEASE_MS = 3_000;

describe("chaos: Redis hits maxmemory while tasks run", () => {
  it("handlers that succeeded end succeeded, none runs twice, submits get 503 storage", {
    timeout: 60_000,
  }, () =>
    withChaos("full", { leaseMs: LEASE_MS }, async (c) => {
      const ws = await c.spawn(3);
      // 30 tasks for 30 slots, all running at once; longer than a lease, so their leases
      // are renewed while the store is full. Half may retry, half may not.
      const specs = Array.from({ length: 30 }, (_, i) => ({
        type: "work",
        payload: { ms: 4_000 },
        maxRetries: i % 2 ? 3 : 0,
      }));
      const ids = await c.submit(specs);
      await until(() => c.logged("start") >= ids.length, "every task running", 15_000);

      // Full: a limit just above what is used now, then submits of 8 KiB payloads (due in an
      // hour, so they never run) until stored data is over the limit and the API refuses
      // them. Small ones: a big request's own query buffer alone can trip the limit, and
      // used memory falls back under it once that buffer is freed.
      const limit = (await c.redis.usedMemory()) + 128 * 1024;
      await c.redis.setMaxmemory(limit);
      const filler = { type: "work", delay: "1h", payload: { pad: "x".repeat(8 * 1024) } };
      const answers: Call[] = [];
      await until(
        async () => {
          const a = await call(ws[answers.length % ws.length], "POST", "/api/tasks", filler);
          answers.push(a);
          return (a.status !== 201 && (await c.redis.usedMemory()) > limit) ||
            answers.length >= 400;
        },
        "the store to be full",
        20_000,
        0,
      );

      const tasks = await c.untilFinal(ids, 4_000 + 4 * LEASE_MS);
      await c.redis.setMaxmemory(0);
      const runs = c.runs();
      const t = tally(ids, tasks, runs);
      report("redis maxmemory", t);

      const refused = answers.filter((a) => a.status !== 201);
      assert.ok(refused.length > 0, `the full store refused a submit:\n${describeCalls(answers)}`);
      assert.deepEqual(
        refused.filter((a) => a.status !== 503 || a.body?.error?.code !== "storage"),
        [],
        `a refused submit answers 503 storage, never 500:\n${describeCalls(refused)}`,
      );
      for (const a of refused) {
        assert.match(a.body.error.message, /full/i, "the message says the store is full");
        assert.ok(a.retryAfter, "503 carries Retry-After");
      }
      const handledOk = ids.filter((id) => runs.get(id)?.some((r) => r.end !== null));
      assert.deepEqual(
        handledOk.filter((id) => tasks.get(id)?.status !== "succeeded")
          .map((id) =>
            `${id} (maxRetries ${specs[ids.indexOf(id)].maxRetries}): ${
              JSON.stringify(tasks.get(id))
            }`
          ),
        [],
        "a task whose handler succeeded ends succeeded",
      );
      assert.deepEqual(t.ranTwice, [], "no task runs twice");
      assert.equal(t.dead, 0, "nothing dead");
      assert.equal(t.succeeded, ids.length);
    }));
});
