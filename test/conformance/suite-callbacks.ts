/**
 * @module suite-callbacks — a task's `callback`: each ending in one of its statuses
 * (succeeded, dead, cancelled queued or running, cancelled at insert or by a workflow
 * cascade, expired) creates exactly one `callback` task in the same store call, in pool
 * `callbacks`, carrying the final record even once retention pruned the task; a status not
 * in `on` creates none; an ending whose reply was lost and is retried creates one. Their
 * delivery: suite-callback-delivery.ts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, harness, type StorageFactory, T0 } from "./harness.ts";
import { Faults } from "../helpers/faulty-storage.ts";
import { leaseOf, newTask } from "../../scripts/tools/new-task.ts";
import type { TaskRecord } from "../../src/core/task.ts";

export const HOOK = "https://hooks.example.com/skedulr";
const owner = { workerId: "w1", leaseMs: 30_000 };

/** Plain JSON, as the API would answer it (header values redacted). */
export const json = (v: unknown) => JSON.parse(JSON.stringify(v));

/** The callback tasks reporting task `id`, oldest first. */
export async function callbacksOf(h: Harness, id: string): Promise<TaskRecord[]> {
  const { items } = await h.storage.list({ type: "callback", limit: 100 });
  return items.filter((t) => (t.payload as { taskId: string }).taskId === id).reverse();
}

/** The one callback task of `id`, checked to carry `id`'s final record and `status`. */
export async function oneCallback(h: Harness, id: string, status: string): Promise<TaskRecord> {
  const [cb, ...more] = await callbacksOf(h, id);
  assert.ok(cb, `a callback task for ${id}`);
  assert.deepEqual(more, [], "exactly one");
  const final = await h.storage.get(id);
  assert.equal(final?.status, status);
  const p = cb.payload as { event: string; url: string; task: TaskRecord };
  assert.equal(p.event, `task.${status}`);
  assert.equal(p.url, HOOK);
  assert.deepEqual(json(p.task), json(final), "it carries the final record");
  assert.equal(cb.id, `__cb_${id}_1`);
  assert.deepEqual(
    [cb.type, cb.pool, cb.status, cb.callback, cb.maxRetries],
    ["callback", "callbacks", "queued", null, 8],
    "in pool callbacks, retried, no callback of its own",
  );
  return cb;
}

/** Claims the next task of pool default as worker w1. */
async function claimOne(h: Harness, now = h.clock.now()) {
  const [t] = await h.storage.claim({ pool: "default", max: 1, owner, now });
  assert.ok(t, "a task to claim");
  return t;
}

export function callbacksSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: callbacks`, () => {
    it("a success creates one callback with the ending, carrying the final record", async () => {
      const h = await harness(factory, { start: false });
      try {
        const id = await h.s.submit({ type: "t", id: "ok-1", callback: { url: HOOK } });
        assert.deepEqual(await callbacksOf(h, id), [], "none before it ends");
        const t = await claimOne(h);
        assert.equal(
          await h.storage.complete({ lease: leaseOf(t, "w1"), result: 7, now: T0 }),
          true,
        );
        const cb = await oneCallback(h, id, "succeeded");
        assert.equal((cb.payload as { task: TaskRecord }).task.result, 7);
        // A repeated settle of the same claim (a lost reply) adds none.
        await h.storage.complete({ lease: leaseOf(t, "w1"), result: 7, now: T0 });
        assert.equal((await callbacksOf(h, id)).length, 1);
      } finally {
        await h.close();
      }
    });

    it("a death (failed, stalled), a cancel (queued, running) and an expiry each create one; a status not in on none", async () => {
      const h = await harness(factory, { start: false });
      try {
        const callback = { url: HOOK };
        const dies = await h.s.submit({ type: "t", id: "dies", callback });
        const t = await claimOne(h);
        const error = { message: "boom" };
        await h.storage.fail({ lease: leaseOf(t, "w1"), error, retryAt: null, now: T0 });
        const dead = await oneCallback(h, dies, "dead");
        assert.equal((dead.payload as { task: TaskRecord }).task.error?.message, "boom");

        // Dead for losing its worker once too often: recovery ends it, with its callback.
        const stalls = await h.s.submit({ type: "t", id: "stalls", maxStalls: 0, callback });
        assert.equal((await claimOne(h)).id, stalls);
        await h.storage.recoverExpired({ now: T0 + owner.leaseMs + 1, limit: 10 });
        const lost = await oneCallback(h, stalls, "dead");
        assert.match((lost.payload as { task: TaskRecord }).task.error!.message, /stalled 1 times/);

        const queued = await h.s.submit({ type: "t", id: "queued", callback });
        await h.s.cancel(queued, "not needed");
        const c = await oneCallback(h, queued, "cancelled");
        assert.equal((c.payload as { task: TaskRecord }).task.cancelReason, "not needed");

        const running = await h.s.submit({ type: "t", id: "running", callback });
        assert.equal((await claimOne(h)).id, running);
        await h.s.cancel(running);
        await oneCallback(h, running, "cancelled");

        const late = await h.s.submit({ type: "t", id: "late", expiresIn: 100, callback });
        await h.storage.expireDue({ now: T0 + 100, limit: 10 });
        await oneCallback(h, late, "expired");

        const only = { url: HOOK, on: ["dead", "expired"] };
        const fine = await h.s.submit({ type: "t", id: "fine", callback: only });
        const f = await claimOne(h, T0 + 100);
        await h.storage.complete({ lease: leaseOf(f, "w1"), result: null, now: T0 + 100 });
        assert.equal((await h.storage.get(fine))?.status, "succeeded");
        assert.deepEqual(await callbacksOf(h, fine), [], "succeeded is not in its on");
      } finally {
        await h.close();
      }
    });

    it("a resubmitted task that ends again gets a second callback, never a repeat of the first", async () => {
      const h = await harness(factory, { start: false });
      try {
        const id = await h.s.submit({ type: "t", id: "again", callback: { url: HOOK } });
        await h.s.cancel(id);
        await h.s.resubmit(id);
        await h.s.cancel(id, "twice");
        const both = await callbacksOf(h, id);
        assert.deepEqual(both.map((t) => t.id), [`__cb_${id}_1`, `__cb_${id}_2`]);
        const reasons = both.map((t) => (t.payload as { task: TaskRecord }).task.cancelReason);
        assert.deepEqual(reasons, ["cancelled by request", "twice"], "each its own ending");
      } finally {
        await h.close();
      }
    });

    it("a workflow cascade that cancels children creates their callbacks, and so does a cancel at submit", async () => {
      const h = await harness(factory, { start: false });
      try {
        const callback = { url: HOOK, on: ["cancelled"] };
        await h.s.submitMany([
          { type: "t", id: "parent" },
          { type: "t", id: "kid-1", onSuccessOf: "parent", callback },
          { type: "t", id: "kid-2", dependsOn: ["kid-1"], callback },
        ]);
        await h.s.cancel("parent");
        await oneCallback(h, "kid-1", "cancelled");
        const kid2 = await oneCallback(h, "kid-2", "cancelled");
        const reason = (kid2.payload as { task: TaskRecord }).task.cancelReason;
        assert.equal(reason, "parent kid-1 ended cancelled");
        // Its parent already ended the wrong way: the child is cancelled as it is stored.
        const [late] = await h.s.submitMany([
          { type: "t", id: "kid-3", onSuccessOf: "parent", callback },
        ]);
        assert.equal(late.status, "cancelled");
        await oneCallback(h, "kid-3", "cancelled");
      } finally {
        await h.close();
      }
    });

    it("the callback keeps the final record after retention pruned the task; the id reused gets its own", async () => {
      const h = await harness(factory, {
        start: false,
        storageOptions: { history: { maxCount: 2 } },
      });
      try {
        const id = await h.s.submit({ type: "t", id: "pruned", callback: { url: HOOK } });
        const t = await claimOne(h);
        await h.storage.complete({ lease: leaseOf(t, "w1"), result: "kept", now: T0 });
        const before = json(await h.storage.get(id));
        // Retention is each partition's: the others go where the id "pruned" lives.
        for (let i = 0; i < 3; i++) {
          await h.s.submit({ type: "t", partitionKey: "pruned" });
          const o = await claimOne(h);
          await h.storage.complete({ lease: leaseOf(o, "w1"), result: i, now: T0 + 1 + i });
        }
        assert.equal(await h.storage.get(id), null, "retention removed the task");
        const [cb] = await callbacksOf(h, id);
        assert.deepEqual(json((cb.payload as { task: unknown }).task), before);
        // The id is free again: a new task under it that ends gets a callback of its own.
        await h.s.submit({ type: "t", id, callback: { url: HOOK } });
        await h.s.cancel(id);
        const [first, second] = await callbacksOf(h, id);
        assert.deepEqual([first.id, second?.id], [`__cb_${id}_1`, `__cb_${id}_2`]);
        assert.deepEqual(json((first.payload as { task: unknown }).task), before, "untouched");
        assert.equal((second.payload as { task: TaskRecord }).task.status, "cancelled");
      } finally {
        await h.close();
      }
    });

    it("past 100 callback ids in use, a fresh one is made: none is overwritten", async () => {
      const h = await harness(factory, { start: false });
      try {
        // Ids only a store makes: as if 100 earlier tasks "busy" had left their callbacks.
        const taken = Array.from({ length: 100 }, (_, i) => newTask(`__cb_busy_${i + 1}`, T0));
        await h.storage.enqueue({ tasks: taken, now: T0 });
        await h.s.submit({ type: "t", id: "busy", callback: { url: HOOK } });
        await h.s.cancel("busy");
        const [cb, ...more] = await callbacksOf(h, "busy");
        assert.deepEqual(more, []);
        assert.match(cb.id, /^__cb_busy_s\d+$/);
        assert.equal((cb.payload as { task: TaskRecord }).task.status, "cancelled");
        const untouched = await h.storage.list({ type: "t", limit: 200 });
        assert.equal(untouched.items.filter((t) => t.id.startsWith("__cb_busy_")).length, 100);
      } finally {
        await h.close();
      }
    });

    it("an ending whose reply was lost and is retried creates one callback", async () => {
      const faults = new Faults();
      const h = await harness(factory, { faults });
      try {
        let runs = 0;
        h.s.register("t", () => ++runs);
        h.s.register("boom", () => {
          throw new Error("always");
        });
        faults.inject("complete", "lose-reply", 1).inject("fail", "lose-reply", 1);
        const ok = await h.s.submit({ type: "t", callback: { url: HOOK } });
        const bad = await h.s.submit({ type: "boom", callback: { url: HOOK } });
        await h.eventually(async () => {
          await h.clock.advance(100);
          return faults.reached.get("complete") === 2 && faults.reached.get("fail") === 2;
        }, "both settles retried after their lost replies");
        await h.until(ok, "succeeded");
        await h.until(bad, "dead");
        assert.equal(runs, 1);
        assert.deepEqual(faults.applied.sort(), ["complete:lose-reply", "fail:lose-reply"]);
        await oneCallback(h, ok, "succeeded");
        await oneCallback(h, bad, "dead");
      } finally {
        await h.close();
      }
    });
  });
}
