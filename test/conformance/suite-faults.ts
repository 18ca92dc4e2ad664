/**
 * @module suite-faults — what a worker does when the store fails under it, injected between
 * the scheduler and each backend (test/helpers/faulty-storage.ts): a lost lease is never the
 * task's failure, settles survive refused calls and lost replies, a lost claim reply strands
 * nothing, and a stall shorter than the lease aborts nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0, TOGETHER } from "./harness.ts";
import { Faults } from "../helpers/faulty-storage.ts";
import { gate } from "../../scripts/tools/wait.ts";
import type { Harness } from "./harness.ts";

/** Statuses of a task's attempts in history, oldest first. */
async function attempts(h: Harness, id: string): Promise<string[]> {
  const { items } = await h.s.history({ limit: 100 });
  return items.filter((a) => a.taskId === id).map((a) => a.status).reverse();
}

/** A handler that runs until its signal aborts, recording why; later runs return "done". */
function stallingFirst(h: Harness, runs: { n: number; aborts: string[] }, every = false) {
  h.s.register("slow", async (_p, ctx) => {
    runs.n++;
    if (runs.n > 1 && !every) return "done";
    await new Promise((_, reject) =>
      ctx.signal.addEventListener("abort", () => {
        runs.aborts.push((ctx.signal.reason as { kind: string }).kind);
        reject(ctx.signal.reason);
      })
    );
  });
}

export function faultsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: storage faults under a worker`, () => {
    it("a worker that cannot renew stops at its lease's end; the task runs again, no retry spent (stalled)", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults, leaseMs: 3_000 });
      try {
        const runs = { n: 0, aborts: [] as string[] };
        stallingFirst(h, runs);
        const id = await h.s.submit({ type: "slow" }); // maxRetries 0: a failure would be final
        await h.until(id, "running");
        faults.inject("renewLeases", "reject").inject("release", "reject");
        await h.clock.advance(2_900);
        assert.deepEqual(runs.aborts, [], "nothing aborted before the lease's end");
        await h.clock.advance(200);
        assert.deepEqual(runs.aborts, ["lease-expired"], "stopped by its own clock");
        const t = await h.eventually(async () => {
          await h.clock.advance(500);
          const t = await h.s.get(id);
          return t?.status === "succeeded" ? t : null;
        }, "the second run");
        assert.equal(runs.n, 2);
        assert.equal(t.attempt, 1, "the lost attempt was not counted");
        assert.equal(t.stalls, 1);
        assert.deepEqual(await attempts(h, id), ["stalled", "succeeded"]);
        const { totals } = await h.s.stats();
        assert.equal(totals.failedAttempts, 0);
        assert.equal(totals.stalled, 1);
        assert.equal(totals.dead, 0);
      } finally {
        await h.close();
      }
    });

    it("past maxStalls a task that keeps losing its worker is dead, with an error that says so", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults, leaseMs: 3_000 });
      try {
        const runs = { n: 0, aborts: [] as string[] };
        stallingFirst(h, runs, true);
        faults.inject("renewLeases", "reject").inject("release", "reject");
        const id = await h.s.submit({ type: "slow", maxStalls: 1, maxRetries: 5 });
        const t = await h.eventually(async () => {
          await h.clock.advance(500);
          const t = await h.s.get(id);
          return t?.status === "dead" ? t : null;
        }, "dead");
        assert.equal(runs.n, 2);
        assert.equal(t.stalls, 2);
        assert.match(t.error!.message, /stalled 2 times \(maxStalls 1\)/);
        assert.deepEqual(await attempts(h, id), ["stalled", "dead"]);
        assert.deepEqual((await h.s.deadLetters()).items.map((x) => x.id), [id]);
      } finally {
        await h.close();
      }
    });

    it("a child's ctx.parents is read again when the store refuses the read; no retry spent", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        let seen: unknown;
        h.s.register("make", () => "made");
        h.s.register("join", async (_p, ctx) => {
          seen = await ctx.parents;
        });
        const parent = await h.s.submit({ type: "make" });
        await h.until(parent, "succeeded");
        faults.inject("get", "reject", 2);
        const child = await h.s.submit({ type: "join", dependsOn: [parent] });
        for (let i = 0; i < 20 && seen === undefined; i++) await h.clock.advance(100);
        const done = await h.until(child, "succeeded");
        assert.equal(done.attempt, 1, "the read's faults were not the handler's failure");
        assert.deepEqual(seen, { [parent]: { status: "succeeded", result: "made" } });
        assert.ok(faults.applied.filter((f) => f === "get:reject").length >= 1);
      } finally {
        await h.close();
      }
    });

    it("a completion whose reply was lost is retried and stored once", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        let runs = 0;
        h.s.register("t", () => ++runs);
        faults.inject("complete", "lose-reply", 1);
        const id = await h.s.submit({ type: "t" });
        const t = await h.eventually(async () => {
          await h.clock.advance(100);
          const t = await h.s.get(id);
          return t?.status === "succeeded" ? t : null;
        }, "succeeded");
        assert.equal(runs, 1);
        assert.equal(t.result, 1);
        assert.deepEqual(faults.applied, ["complete:lose-reply"]);
        assert.equal(faults.reached.get("complete"), 2, "tried again after the lost reply");
        assert.deepEqual(await attempts(h, id), ["succeeded"]);
        assert.equal((await h.s.stats()).totals.succeeded, 1);
      } finally {
        await h.close();
      }
    });

    it("a completion with history off whose reply was lost is retried: no entry, one duration", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        h.s.register("quiet", () => "ok", { history: 0 });
        faults.inject("complete", "lose-reply", 1);
        const id = await h.s.submit({ type: "quiet" });
        await h.eventually(async () => {
          await h.clock.advance(100);
          return (await h.s.get(id))?.status === "succeeded";
        }, "succeeded");
        assert.deepEqual(faults.applied, ["complete:lose-reply"]);
        assert.equal(faults.reached.get("complete"), 2, "tried again after the lost reply");
        assert.deepEqual(await attempts(h, id), [], "no history entry, also after the retry");
        const stats = await h.s.stats();
        assert.equal(stats.totals.succeeded, 1);
        assert.equal(stats.durations.quiet?.count, 1, "its duration counted once");
      } finally {
        await h.close();
      }
    });

    it("a dedupe submit whose reply was lost, retried, stores one task and answers with it", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults, start: false });
      try {
        const spec = { type: "t", payload: 1, dedupe: { key: "lost-reply", ttl: "1h" } };
        faults.inject("enqueue", "lose-reply", 1);
        await assert.rejects(h.s.submit(spec), /reply was lost/);
        const [retry] = await h.s.submitMany([spec]);
        assert.equal(retry.deduplicated, true);
        const { items } = await h.s.list();
        assert.deepEqual(items.map((t) => t.id), [retry.id], "one task, the first try's");
        // A custom id too: the retry still answers with the stored task.
        faults.inject("enqueue", "lose-reply", 1);
        const custom = { ...spec, id: "order-7", dedupe: { key: "custom", ttl: "1h" } };
        await assert.rejects(h.s.submit(custom), /reply was lost/);
        assert.equal(await h.s.submit(custom), "order-7");
        assert.equal((await h.s.list()).items.length, 2);
        assert.equal(faults.reached.get("enqueue"), 4);
      } finally {
        await h.close();
      }
    });

    it("a schedule PUT whose reply was lost, retried, keeps one schedule firing once a slot", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        h.s.register("tick", () => "ok");
        // catchUp all: the slot whose firing the store refused still runs, late, once.
        const spec = { type: "tick", every: "1s", catchUp: "all", skipIfRunning: false };
        faults.inject("putSchedule", "lose-reply", 1);
        await assert.rejects(h.s.putSchedule("lost", spec), /reply was lost/);
        const retry = await h.s.putSchedule("lost", spec);
        assert.equal(retry.created, false, "the first try stored it");
        assert.equal(retry.schedule.nextRunAt, T0 + 1_000, "its slots did not move");
        // A firing the store refuses is tried again; the slot still runs once.
        faults.inject("fireSchedule", "reject", 1);
        for (let i = 0; i < 4; i++) await h.clock.advance(1_000);
        const runs = async () =>
          (await h.storage.list({ limit: 100 })).items.filter((t) => t.scheduleId === "lost")
            .map((t) => t.runAt! - T0).sort((a, b) => a - b);
        await h.eventually(async () => (await runs()).length >= 4);
        const at = await runs();
        assert.equal(new Set(at).size, at.length, `one run per slot: ${at}`);
        assert.deepEqual(at.slice(0, 4), [1_000, 2_000, 3_000, 4_000]);
        assert.equal((await h.s.listSchedules()).length, 1);
      } finally {
        await h.close();
      }
    });

    it("a debounced submit whose reply was lost, retried, joins the one waiting task", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        const payloads: unknown[] = [];
        h.s.register("t", (payload) => void payloads.push(payload));
        const spec = (payload: number) => ({
          type: "t",
          payload,
          debounce: { key: "lost-reply", delay: 300 },
        });
        const [first] = await h.s.submitMany([spec(1)]);
        await h.clock.advance(100);
        faults.inject("enqueue", "lose-reply", 1);
        await assert.rejects(h.s.submit(spec(2)), /reply was lost/);
        const [retry] = await h.s.submitMany([spec(2)]);
        assert.equal(retry.id, first.id, "the retry joins the burst");
        assert.equal(retry.debounced, true);
        assert.equal((await h.s.list()).items.length, 1, "one task stored");
        await h.clock.advance(299);
        assert.deepEqual(payloads, [], "never early: due 300 ms after the last submit");
        await h.clock.advance(1);
        await h.until(first.id, "succeeded");
        assert.deepEqual(payloads, [2], "one run, with the last payload");
      } finally {
        await h.close();
      }
    });

    it("a failure refused while the store is unreachable is retried until it answers", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        let runs = 0;
        h.s.register("flaky", () => {
          if (++runs === 1) throw new Error("first attempt fails");
          return "ok";
        });
        faults.inject("fail", "reject", 3);
        const id = await h.s.submit({
          type: "flaky",
          maxRetries: 1,
          backoff: { type: "fixed", delay: "1s" },
        });
        const t = await h.eventually(async () => {
          await h.clock.advance(200);
          const t = await h.s.get(id);
          return t?.status === "succeeded" ? t : null;
        }, "succeeded on the retry");
        assert.equal(runs, 2);
        assert.equal(t.attempt, 2);
        assert.deepEqual(faults.applied, ["fail:reject", "fail:reject", "fail:reject"]);
        assert.deepEqual(await attempts(h, id), ["retrying", "succeeded"]);
        assert.equal((await h.s.stats()).totals.failedAttempts, 1);
      } finally {
        await h.close();
      }
    });

    it("a promotion and an expiry the store refuses are retried on their own, not left to the next scan", async () => {
      const faults = new Faults();
      // A look-ahead scan an hour apart: only the duties' own retries can recover in time.
      const h = await harness(factory, { faults, lookAheadMs: 3_600_000 });
      try {
        await h.s.pause("default");
        const expiring = await h.s.submit({ type: "t", expiresIn: 500 });
        const delayed = await h.s.submit({ type: "t", pool: "elsewhere", delay: 500 });
        faults.inject("promoteDue", "reject", 2);
        faults.inject("expireDue", "reject", 2);
        await h.clock.advance(500);
        await h.eventually(async () => {
          await h.clock.advance(100);
          const [e, d] = await Promise.all([h.s.get(expiring), h.s.get(delayed)]);
          return e?.status === "expired" && d?.status === "queued";
        }, "expired and promoted after the refusals");
        const late = h.clock.now() - (T0 + 500);
        assert.ok(late <= 5_000, `recovered ${late} ms after the due time (the retries' back-off)`);
        const applied = faults.applied.slice().sort();
        assert.deepEqual(applied, [
          "expireDue:reject",
          "expireDue:reject",
          "promoteDue:reject",
          "promoteDue:reject",
        ]);
      } finally {
        await h.close();
      }
    });

    it("a claim whose reply was lost strands nothing: its tasks are handed back at once", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults }); // the default 30 s lease
      try {
        let runs = 0;
        h.s.register("t", () => ++runs);
        faults.inject("claim", "lose-reply", 1);
        const id = await h.s.submit({ type: "t" });
        const t = await h.eventually(async () => {
          await h.clock.advance(100);
          const t = await h.s.get(id);
          return t?.status === "succeeded" ? t : null;
        }, "succeeded");
        assert.ok(h.clock.now() - t.createdAt < 5_000, "long before the lost claim's lease ended");
        assert.equal(runs, 1);
        assert.equal(t.attempt, 1);
        assert.equal(t.stalls, 0);
        assert.deepEqual(await attempts(h, id), ["succeeded"]);
      } finally {
        await h.close();
      }
    });

    it("renewals held up for less than a lease abort nothing", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults, leaseMs: 3_000 });
      try {
        const release = gate();
        const aborts: string[] = [];
        h.s.register("long", async (_p, ctx) => {
          ctx.signal.addEventListener("abort", () => aborts.push(String(ctx.signal.reason)));
          await release.promise;
          return "finished";
        });
        const id = await h.s.submit({ type: "long" });
        await h.until(id, "running");
        faults.inject("renewLeases", "hang");
        await h.clock.advance(2_000);
        assert.equal(faults.reached.get("renewLeases") ?? 0, 0, "the renewal is held");
        faults.heal(); // the store answers again: the held renewal goes through, late
        await h.eventually(() => faults.reached.get("renewLeases"), "the held renewal");
        await h.clock.advance(2_000);
        release.open();
        const t = await h.until(id, "succeeded");
        assert.deepEqual(aborts, []);
        assert.equal(t.result, "finished");
        assert.equal(t.stalls, 0);
      } finally {
        await h.close();
      }
    });

    it("fencing: a settle of an earlier claim is refused, even from the same worker", async () => {
      const h = await harness(factory, { start: false });
      try {
        const owner = { workerId: "w1", leaseMs: 1_000 };
        const now = h.clock.now();
        // Queue order is one partition's: the two share one.
        const [first, second] = [
          await h.s.submit({ type: "t", ...TOGETHER }),
          await h.s.submit({ type: "t", ...TOGETHER }),
        ];
        const [a] = await h.storage.claim({ pool: "default", max: 1, owner, now });
        assert.equal(a.id, first);
        assert.deepEqual(await h.storage.recoverExpired({ now: now + 1_001, limit: 10 }), {
          recovered: 1,
          cascadesPending: false,
        });
        const again = await h.storage.claim({ pool: "default", max: 2, owner, now: now + 1_002 });
        assert.deepEqual(again.map((t) => t.id), [first, second], "back ahead of later work");
        const b = again[0];
        assert.notEqual(b.token, a.token);
        const late = { id: a.id, workerId: "w1", token: a.token };
        const fresh = { id: b.id, workerId: "w1", token: b.token };
        assert.equal(
          await h.storage.complete({ lease: late, result: "late", now: now + 1_003 }),
          false,
        );
        assert.equal(
          await h.storage.fail({
            lease: late,
            error: { message: "late" },
            retryAt: null,
            now: now + 1_003,
          }),
          null,
        );
        assert.equal(
          await h.storage.setProgress({ lease: late, progress: 50, now: Date.now() }),
          false,
        );
        assert.deepEqual(
          await h.storage.renewLeases({ leases: [late], leaseMs: 1_000, now: now + 1_003 }),
          [first],
        );
        assert.equal(await h.storage.release({ leases: [late], now: now + 1_003 }), 0);
        assert.equal(
          await h.storage.complete({ lease: fresh, result: "fresh", now: now + 1_004 }),
          true,
        );
        const t = (await h.s.get(first))!;
        assert.equal(t.result, "fresh");
        assert.equal(t.attempt, 1);
        assert.equal(t.stalls, 1);
      } finally {
        await h.close();
      }
    });
  });
}
