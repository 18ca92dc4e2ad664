/**
 * @module suite-edge — the edge deliverer's run (src/worker/edge-run.ts) on every store: it
 * delivers the `http` tasks of its own pools only, settles them through the same
 * transitions as a worker (retries, dead letters, callbacks), does the duties a worker would
 * (promotion, lease recovery, schedules, a heartbeat), stays inside its invocation's budget,
 * cuts every attempt's timeout to the edge's, and answers when it must run next, from
 * `nextDue`. The receiver is a stand-in fetcher; test/e2e/edge-deliverer.test.ts runs the
 * whole deliverer in workerd against a real one.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, harness, type StorageFactory, T0 } from "./harness.ts";
import { callbackTaskHandler } from "../../src/worker/callback-task.ts";
import { EDGE_RESERVE, type EdgeConfig } from "../../src/worker/edge-config.ts";
import { edgeRun, type EdgeRunOptions } from "../../src/worker/edge-run.ts";
import type { HttpFetcher, OutboundRequest } from "../../src/worker/http-task.ts";
import { httpTaskHandler } from "../../src/worker/http-task.ts";
import type { HandlerEntry } from "../../src/worker/pool.ts";
import { silentLogger } from "../../src/worker/middleware.ts";
import { HOOK } from "./suite-callbacks.ts";

const CONFIG: EdgeConfig = {
  pools: new Map([["edge", 4], ["callbacks", 1]]),
  leaseMs: 3_000,
  timeoutMs: 2_000,
  subrequests: 1_000,
  runMs: 20_000,
};

/** A stand-in receiver: `answer` gives each request's status (or a promise of one). */
function receiver(answer: (r: OutboundRequest) => number | Promise<number> = () => 200) {
  const got: OutboundRequest[] = [];
  const fetcher: HttpFetcher = async (r) => {
    got.push(r);
    return { status: await answer(r), body: null };
  };
  return { got, fetcher };
}

/** One edge run on `h`'s store and clock, delivering through `fetcher`. */
function run(h: Harness, fetcher: HttpFetcher, options: Partial<EdgeRunOptions> = {}) {
  const handlers = new Map<string, HandlerEntry>([
    ["http", { handler: httpTaskHandler({ fetcher, signingKey: "k" }) }],
    ["callback", { handler: callbackTaskHandler({ fetcher, signingKey: "k" }) }],
  ]);
  return edgeRun({
    storage: h.storage,
    clock: h.clock,
    logger: silentLogger,
    workerId: "edge-test",
    host: "test",
    config: CONFIG,
    handlers,
    spent: () => 0,
    reloads: () => (h.storage as { scriptReloads?: () => number }).scriptReloads?.() ?? 0,
    heartbeatTtlMs: null,
    startedAt: T0,
    ...options,
  });
}

const http = (path: string, extra: Record<string, unknown> = {}) => ({
  type: "http",
  pool: "edge",
  payload: { url: `${HOOK}/${path}` },
  ...extra,
});

export function edgeSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: the edge deliverer's run`, () => {
    it("nextDue tells each kind of timed work; a paused schedule is none", async () => {
      const h = await harness(factory, { start: false });
      try {
        assert.deepEqual(await h.storage.nextDue(), {
          delayed: null,
          lease: null,
          schedule: null,
          expiry: null,
        });
        await h.s.submit({ type: "t", pool: "p", runAt: T0 + 5_000 });
        await h.s.submit({ type: "t", pool: "p", expiresAt: T0 + 9_000 });
        await h.s.submit({ type: "t", pool: "q" });
        const sid = await h.s.submit({ type: "t", every: "7s" });
        const owner = { workerId: "w", leaseMs: 4_000 };
        assert.equal((await h.storage.claim({ pool: "q", max: 1, owner, now: T0 })).length, 1);
        assert.deepEqual(await h.storage.nextDue(), {
          delayed: T0 + 5_000,
          lease: T0 + 4_000,
          schedule: T0 + 7_000,
          expiry: T0 + 9_000,
        });
        await h.s.pauseSchedule(sid);
        assert.equal((await h.storage.nextDue()).schedule, null);
      } finally {
        await h.close();
      }
    });

    it("delivers its own pools' http tasks, signed, and nothing of other pools", async () => {
      const h = await harness(factory, { start: false });
      try {
        const r = receiver();
        const mine = await h.s.submit(http("mine", { callback: { url: `${HOOK}/cb` } }));
        const other = await h.s.submit(http("other", { pool: "default" }));
        const later = await h.s.submit(http("later", { runAt: T0 + 3_000 }));
        const result = await run(h, r.fetcher);
        const done = await h.s.get(mine);
        assert.equal(done?.status, "succeeded");
        assert.equal(done?.workerId, "edge-test");
        assert.deepEqual(r.got.map((g) => g.url.pathname), ["/skedulr/mine", "/skedulr/cb"]);
        assert.match(r.got[0].headers.get("skedulr-signature") ?? "", /^v1=[0-9a-f]{64}$/);
        assert.equal((await h.s.get(other))?.status, "queued", "pool default is not the edge's");
        assert.equal(result.next, T0 + 3_000, "the alarm follows the delayed set");
        assert.equal(result.claimed, 2);
        await h.clock.advance(3_000);
        await run(h, r.fetcher);
        assert.equal((await h.s.get(later))?.status, "succeeded");
      } finally {
        await h.close();
      }
    });

    it("delivers a workflow child its parent's settle released, in the same run", async () => {
      const h = await harness(factory, { start: false });
      try {
        const r = receiver();
        const parent = await h.s.submit(http("parent", { id: "parent" }));
        const child = await h.s.submit(http("child", { dependsOn: [parent] }));
        await run(h, r.fetcher);
        assert.deepEqual(r.got.map((g) => g.url.pathname), ["/skedulr/parent", "/skedulr/child"]);
        assert.equal((await h.s.get(child))?.status, "succeeded");
      } finally {
        await h.close();
      }
    });

    it("retries a failing receiver at its back-off, then dead-letters it", async () => {
      const h = await harness(factory, { start: false });
      try {
        const r = receiver(() => 500);
        const backoff = { type: "fixed", delay: "1s" };
        const id = await h.s.submit(http("fails", { maxRetries: 2, backoff }));
        for (const at of [T0 + 1_000, T0 + 2_000]) {
          assert.equal((await run(h, r.fetcher)).next, at, "armed for the retry");
          await h.clock.advance(1_000);
        }
        assert.equal((await run(h, r.fetcher)).next, null, "nothing left to wait for");
        const dead = await h.s.get(id);
        assert.equal(dead?.status, "dead");
        assert.match(dead!.error!.message, /^HTTP 500 from /);
        assert.deepEqual((await h.s.deadLetters()).items.map((t) => t.id), [id]);
        assert.equal(r.got.length, 3);
      } finally {
        await h.close();
      }
    });

    it("ends an attempt at the edge's timeout, whatever the task asks for", async () => {
      const h = await harness(factory, { start: false });
      try {
        const r = receiver((req) =>
          new Promise((_, reject) =>
            req.signal.addEventListener("abort", () => reject(req.signal.reason))
          )
        );
        const payload = { url: HOOK, timeout: "1m" };
        const backoff = { type: "fixed", delay: "1s" };
        const id = await h.s.submit(
          http("slow", { timeout: "1m", payload, maxRetries: 1, backoff }),
        );
        const running = run(h, r.fetcher);
        await h.eventually(() => r.got.length === 1, "the delivery to start");
        await h.clock.advance(CONFIG.timeoutMs);
        await running;
        const t = await h.s.get(id);
        assert.equal(t?.status, "retrying");
        assert.match(t!.error!.message, /timed out after 2000 ms/);
      } finally {
        await h.close();
      }
    });

    it("recovers a lost delivery's lease, fires due schedules, and registers itself", async () => {
      const h = await harness(factory, { start: false });
      try {
        const r = receiver();
        const lost = await h.s.submit(http("lost"));
        const owner = { workerId: "edge-dead", leaseMs: CONFIG.leaseMs };
        await h.storage.claim({ pool: "edge", max: 1, owner, now: T0 });
        const sid = await h.s.submit(http("tick", { every: "2s" }));
        const first = await run(h, r.fetcher, { heartbeatTtlMs: 60_000 });
        assert.equal(first.next, T0 + 2_000, "the schedule comes before the lease");
        assert.equal(r.got.length, 0);
        const workers = await h.storage.listInstances(T0);
        assert.deepEqual(workers.map((w) => [w.id, w.types]), [["edge-test", [
          "http",
          "callback",
        ]]]);
        await h.clock.advance(CONFIG.leaseMs + 1);
        const second = await run(h, r.fetcher);
        assert.equal((await h.s.get(lost))?.status, "succeeded");
        assert.equal((await h.s.get(lost))?.stalls, 1, "recovered as a stalled attempt");
        assert.deepEqual(r.got.map((g) => g.url.pathname).sort(), [
          "/skedulr/lost",
          "/skedulr/tick",
        ]);
        assert.equal(second.next, T0 + 4_000, "the schedule's next occurrence");
        await h.s.cancel(sid);
      } finally {
        await h.close();
      }
    });

    it("claims nothing more once its subrequests run short, and asks to go on at once", async () => {
      const h = await harness(factory, { start: false });
      try {
        const r = receiver();
        await h.s.submitMany(Array.from({ length: 30 }, (_, i) => http(`n${i}`)));
        const config = { ...CONFIG, subrequests: 2 * EDGE_RESERVE };
        const result = await run(h, r.fetcher, { config, spent: () => r.got.length });
        assert.ok(r.got.length >= 1 && r.got.length <= EDGE_RESERVE + 4, `${r.got.length} sent`);
        assert.equal(result.next, T0, "the rest goes on in a fresh invocation");
        const left = await h.s.list({ status: "queued", pool: "edge" });
        assert.equal(left.items.length, 30 - r.got.length);
      } finally {
        await h.close();
      }
    });
  });
}
