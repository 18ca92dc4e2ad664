/**
 * @module suite-dedupe — idempotent submit (`dedupe`): within its ttl a second submit with
 * the same key stores nothing and is answered with the first task, even once that task
 * finished and retention removed its row; past the ttl the key is free again.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0 } from "./harness.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import type { Harness } from "./harness.ts";

const HOUR = 3_600_000;

/** How many tasks the store holds (every status). */
async function taskCount(h: Harness): Promise<number> {
  return (await h.s.list({ limit: 1000 })).items.length;
}

export function dedupeSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: idempotent submit (dedupe)`, () => {
    it("answers a repeated key within its ttl with the first task and stores nothing", async () => {
      const h = await harness(factory, { start: false });
      try {
        const spec = (payload: number) => ({
          type: "order",
          payload,
          dedupe: { key: "order-42", ttl: "1h" },
        });
        const [first] = await h.s.submitMany([spec(1)]);
        assert.equal(first.deduplicated, undefined);
        await h.clock.advance(HOUR - 1);
        const [again] = await h.s.submitMany([spec(2)]);
        assert.deepEqual(again, {
          id: first.id,
          kind: "task",
          status: "queued",
          deduplicated: true,
          warnings: again.warnings,
        });
        assert.equal(await taskCount(h), 1);
        assert.equal((await h.s.get(first.id))?.payload, 1, "the first submit's payload stands");
        const other = await h.s.submit({ type: "order", dedupe: { key: "order-43", ttl: "1h" } });
        assert.notEqual(other, first.id, "another key is independent");
        assert.equal(await taskCount(h), 2);
      } finally {
        await h.close();
      }
    });

    it("frees the key once its ttl has passed: the next submit stores a new task", async () => {
      const h = await harness(factory, { start: false });
      try {
        const spec = { type: "order", dedupe: { key: "k", ttl: "10s" } };
        const first = await h.s.submit(spec);
        await h.clock.advance(10_000);
        const [second] = await h.s.submitMany([spec]);
        assert.notEqual(second.id, first);
        assert.equal(second.deduplicated, undefined);
        assert.equal(await taskCount(h), 2);
        // The new task took the key for its own ttl.
        const [third] = await h.s.submitMany([spec]);
        assert.equal(third.id, second.id);
        assert.equal(third.deduplicated, true);
      } finally {
        await h.close();
      }
    });

    it("keeps answering with the first task after it finished, and after its row was pruned", async () => {
      const h = await harness(factory, { storageOptions: { history: { maxCount: 1 } } });
      try {
        h.s.register("job", () => "done");
        const spec = { type: "job", dedupe: { key: "once", ttl: "1h" } };
        const first = await h.s.submit(spec);
        await h.until(first, "succeeded");
        const [afterFinish] = await h.s.submitMany([spec]);
        assert.deepEqual([afterFinish.id, afterFinish.status], [first, "succeeded"]);
        assert.equal(afterFinish.deduplicated, true);
        // Retention keeps one finished row: two more finished tasks prune the first (in its
        // partition, where the dedupe key hashes, on a partitioned store).
        for (const n of [1, 2]) {
          await h.until(
            await h.s.submit({ type: "job", payload: n, partitionKey: "once" }),
            "succeeded",
          );
        }
        assert.equal(await h.s.get(first), null, "retention pruned the first row");
        const [afterPrune] = await h.s.submitMany([spec]);
        assert.deepEqual([afterPrune.id, afterPrune.status], [first, "pruned"]);
        assert.equal(afterPrune.deduplicated, true);
        assert.equal(await taskCount(h), 1, "nothing was stored");
      } finally {
        await h.close();
      }
    });

    it("flags the duplicates of a batch and stores the rest, all or none for real errors", async () => {
      const h = await harness(factory, { start: false });
      try {
        const taken = await h.s.submit({ type: "a", dedupe: { key: "taken", ttl: "1h" } });
        const answers = await h.s.submitMany([
          { type: "a", payload: 1, dedupe: { key: "taken", ttl: "1h" } },
          { type: "a", payload: 2, dedupe: { key: "fresh", ttl: "1h" } },
          { type: "a", payload: 3, dedupe: { key: "fresh", ttl: "1h" } },
          { type: "a", payload: 4 },
        ]);
        assert.equal(answers[0].id, taken);
        assert.equal(answers[0].deduplicated, true);
        assert.equal(answers[1].deduplicated, undefined);
        assert.equal(answers[2].id, answers[1].id, "the batch's own first task holds the key");
        assert.equal(answers[2].deduplicated, true);
        assert.equal(answers[3].deduplicated, undefined);
        assert.equal((await h.s.get(answers[1].id))?.payload, 2);
        assert.equal(await taskCount(h), 3);
        // A real error stores nothing, not even the batch's fresh dedupe key.
        await assert.rejects(
          h.s.submitMany([
            { type: "a", dedupe: { key: "later", ttl: "1h" } },
            { type: "a", dependsOn: ["no-such-task"] },
          ]),
          /unknown task id/,
        );
        const [later] = await h.s.submitMany([{ type: "a", dedupe: { key: "later", ttl: "1h" } }]);
        assert.equal(later.deduplicated, undefined, "the failed batch did not take the key");
        assert.equal(await taskCount(h), 4);
      } finally {
        await h.close();
      }
    });

    it("decides on the callers' now at the store: a hit until the ttl's last ms", async () => {
      const { storage, dispose } = await factory();
      try {
        const dedupe = { key: "edge", ttlMs: 1000 };
        const [stored] = await storage.enqueue({ tasks: [newTask("a", T0, { dedupe })], now: T0 });
        assert.equal(stored.id, "a");
        assert.equal("dedupe" in stored, false, "dedupe is never part of the record");
        const hit = await storage.enqueue({
          tasks: [newTask("b", T0, { dedupe })],
          now: T0 + 999,
        });
        assert.deepEqual(hit, [{ id: "a", status: "queued", deduplicated: true }]);
        assert.equal(await storage.get("b"), null);
        const [fresh] = await storage.enqueue({
          tasks: [newTask("c", T0, { dedupe })],
          now: T0 + 1000,
        });
        assert.equal(fresh.id, "c");
        assert.equal("deduplicated" in fresh, false);
      } finally {
        await dispose();
      }
    });

    it("a key is held for its ttl on the callers' clock, however far the store's own moved", async () => {
      const { storage, dispose } = await factory();
      try {
        const dedupe = { key: "skew", ttlMs: 20 };
        await storage.enqueue({ tasks: [newTask("a", T0, { dedupe })], now: T0 });
        // Not a synchronisation: the scenario itself. The store's clock runs 40 ms on while
        // the callers' moves 10 (a slow caller, or one whose clock runs behind).
        await new Promise((resolve) => setTimeout(resolve, 40));
        const hit = await storage.enqueue({ tasks: [newTask("b", T0, { dedupe })], now: T0 + 10 });
        assert.deepEqual(hit, [{ id: "a", status: "queued", deduplicated: true }]);
      } finally {
        await dispose();
      }
    });

    it("counts only the stored tasks of a batch against the capacity limit", async () => {
      const { storage, dispose } = await factory({ maxUnfinished: 2 });
      try {
        const dedupe = { key: "cap", ttlMs: HOUR };
        await storage.enqueue({ tasks: [newTask("a", T0, { dedupe })], now: T0 });
        const answers = await storage.enqueue({
          tasks: [newTask("b", T0, { dedupe }), newTask("c", T0)],
          now: T0,
        });
        assert.deepEqual(answers.map((a) => a.id), ["a", "c"]);
      } finally {
        await dispose();
      }
    });
  });
}
