/**
 * @module redis-down-api.test — chaos row: Redis down for longer than the HTTP server's idle
 * timeout (issue 11). Every API request must get an honest answer in time — 503 `storage`
 * with Retry-After within 2 s, `/healthz` 503 within 1 s — never a 500 or a dropped
 * connection, and the worker works again once Redis is back.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { report, tally } from "../helpers/chaos-evidence.ts";
import { type Call, call, describeCalls, until, withChaos } from "./chaos-cluster.ts";

/** Longer than Bun.serve's default idle timeout (10 s), which cut requests in the issue. */
const DOWN_MS = 12_000;
/** Rounds of requests during the outage, at these offsets from its start. */
const ROUNDS_AT = [500, 4_000, 8_000, 11_000];
const API_BOUND_MS = 2_000 + 500;
const HEALTH_BOUND_MS = 1_000 + 300;

describe("chaos: Redis down longer than the HTTP idle timeout", () => {
  it("every request answers 503 storage in time, and the worker recovers", {
    timeout: 90_000,
  }, () =>
    withChaos("down", { leaseMs: 3_000 }, async (c) => {
      const [w] = await c.spawn(1);
      const [before] = await c.submit([{ type: "work", payload: { ms: 10 } }]);
      const done = await c.untilFinal([before], 10_000);
      assert.equal(done.get(before)?.status, "succeeded", "the worker works before the outage");

      await c.redis.shutdown();
      const downAt = Date.now();
      const round = () =>
        Promise.all([
          call(w, "POST", "/api/tasks", { type: "work", payload: { ms: 10 } }),
          call(w, "GET", `/api/tasks/${before}`),
          call(w, "GET", "/api/tasks?limit=10"),
          call(w, "GET", "/healthz"),
        ]);
      // A load schedule over the outage (timers pace the rounds; none waits for a condition).
      const calls: Call[] = (await Promise.all(ROUNDS_AT.map((at) =>
        new Promise((r) =>
          setTimeout(r, at)
        ).then(round)
      ))).flat();
      const left = DOWN_MS - (Date.now() - downAt);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      await c.redis.start();

      // Back: a new task succeeds on the same worker.
      const after = await until(
        async () => {
          const r = await call(w, "POST", "/api/tasks", { type: "work", payload: { ms: 10 } });
          return r.status === 201 ? r.body.id as string : null;
        },
        "a submit to be accepted after Redis is back",
        20_000,
        250,
      );
      const ids = [before, after];
      const tasks = await c.untilFinal(ids, 20_000);
      const t = tally(ids, tasks, c.runs());
      report(`redis down ${DOWN_MS / 1000}s (API)`, t);

      const all = describeCalls(calls);
      assert.deepEqual(
        calls.filter((x) => x.dropped).map((x) => `${x.label}: dropped after ${x.ms} ms`),
        [],
        `no dropped connection:\n${all}`,
      );
      const api = calls.filter((x) => x.label !== "GET /healthz");
      const health = calls.filter((x) => x.label === "GET /healthz");
      assert.deepEqual(
        api.filter((x) =>
          x.status !== 503 || x.body?.error?.code !== "storage" || !x.retryAfter ||
          x.ms > API_BOUND_MS
        ).map((x) => `${x.label}: ${x.status} in ${x.ms} ms`),
        [],
        `every API request answers 503 storage with Retry-After within ${API_BOUND_MS} ms:\n${all}`,
      );
      assert.deepEqual(
        health.filter((x) => x.status !== 503 || x.ms > HEALTH_BOUND_MS)
          .map((x) => `${x.status} in ${x.ms} ms`),
        [],
        `/healthz answers 503 within ${HEALTH_BOUND_MS} ms:\n${all}`,
      );
      assert.equal(t.succeeded, 2, "the worker works again after Redis is back");
      assert.equal(t.dead, 0);
    }));
});
