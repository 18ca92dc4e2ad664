/**
 * @module suite-types — behaviour suite: a submit of a task type no live worker handles.
 * Workers advertise their types in their heartbeat; a submitting node (here a client-only
 * Scheduler on the same store) answers such a submit with `warnings`, or refuses it in
 * strict mode with nothing stored.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { UnknownTypeError } from "../../src/core/errors.ts";
import { type Harness, harness, type StorageFactory } from "./harness.ts";

/** A started worker handling `known`, and a client-only node on the same store. */
async function cluster(factory: StorageFactory, strictTypes = false) {
  const worker = await harness(factory, { start: false, pools: { other: 1 } });
  worker.s.register("known", () => "ok");
  await worker.s.start(); // its first heartbeat lists ["known"]
  const api = await harness(factory, { start: false, shared: worker.storage, strictTypes });
  await worker.eventually(async () => (await api.s.workers()).length === 1, "the heartbeat");
  return {
    worker,
    api,
    close: async () => {
      await api.close();
      await worker.close();
    },
  };
}

const stored = async (h: Harness) => (await h.s.list({ limit: 1000 })).items.length;

export function typesSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: task types no live worker handles`, () => {
    it("stores the task with a warning naming the type; a handled type gets none", async () => {
      const c = await cluster(factory);
      try {
        // Pool `other` is the only one the worker runs: nothing claims these tasks.
        const [unknown, known, schedule] = await c.api.s.submitMany([
          { type: "unknown", pool: "p" },
          { type: "known", pool: "p" },
          { type: "nightly", cron: "0 3 * * *" },
        ]);
        assert.equal(unknown.warnings?.length, 1);
        assert.match(
          unknown.warnings[0],
          /no live worker handles type "unknown" \(they handle known\)/,
        );
        assert.equal(known.warnings, undefined);
        assert.match(schedule.warnings?.[0] ?? "", /type "nightly"/, "a schedule's type too");
        assert.equal((await c.api.s.get(unknown.id))?.status, "queued", "stored all the same");
        const [single] = await c.api.s.submitMany([{ type: "unknown", pool: "p" }]);
        assert.equal(single.warnings?.length, 1);
      } finally {
        await c.close();
      }
    });

    it("strict mode refuses it with unknown_type naming each spec, and stores nothing", async () => {
      const c = await cluster(factory, true);
      try {
        const before = await stored(c.api);
        await assert.rejects(
          c.api.s.submitMany([
            { type: "known", id: "strict-0", pool: "p" },
            { type: "unknown", id: "strict-1", pool: "p" },
          ]),
          (e: unknown) => {
            assert.ok(e instanceof UnknownTypeError);
            assert.equal(e.code, "unknown_type");
            assert.deepEqual(e.issues.map((i) => i.path), ["[1].type"]);
            assert.match(e.message, /"unknown"/);
            return true;
          },
        );
        await assert.rejects(c.api.s.submit({ type: "unknown" }), /type: no live worker/);
        assert.equal(await stored(c.api), before, "nothing stored");
        assert.equal(await c.api.s.get("strict-0"), null);
        assert.ok(await c.api.s.submit({ type: "known", pool: "p" }), "a handled type passes");
      } finally {
        await c.close();
      }
    });

    it("with no live worker, warns that none runs and does not refuse, even in strict mode", async () => {
      const h = await harness(factory, { start: false, strictTypes: true });
      try {
        const [s] = await h.s.submitMany([{ type: "anything" }]);
        assert.match(s.warnings?.[0] ?? "", /^no live worker is running/);
        assert.equal((await h.s.get(s.id))?.status, "queued");
      } finally {
        await h.close();
      }
    });

    it("a worker of an older version (no types in its heartbeat) counts as handling every type", async () => {
      const h = await harness(factory, { start: false, strictTypes: true });
      try {
        const now = h.clock.now();
        await h.storage.heartbeat({
          info: {
            id: "old-1",
            host: "h",
            pid: 1,
            pools: { default: 1 },
            running: 0,
            startedAt: now,
            lastSeen: now,
          },
          ttlMs: 30_000,
          now,
        });
        const [s] = await h.s.submitMany([{ type: "anything" }]);
        assert.equal(s.warnings, undefined);
      } finally {
        await h.close();
      }
    });

    it("reads the workers' types again before warning on a cache older than a second", async () => {
      const c = await cluster(factory);
      try {
        const [first] = await c.api.s.submitMany([{ type: "late", pool: "p" }]);
        assert.equal(first.warnings?.length, 1, "no worker handles it yet");
        // A worker that handles `late` starts (a rolling deploy): its first heartbeat lists it.
        const late = await harness(factory, {
          start: false,
          shared: c.worker.storage,
          pools: { other: 1 },
        });
        try {
          late.s.register("late", () => "ok");
          await late.s.start();
          await c.api.eventually(async () => (await c.api.s.workers()).length === 2, "2 workers");
          await c.api.clock.advance(1_500);
          const [again] = await c.api.s.submitMany([{ type: "late", pool: "p" }]);
          assert.equal(again.warnings, undefined);
        } finally {
          await late.close();
        }
      } finally {
        await c.close();
      }
    });
  });
}
