/**
 * @module suite-queries — the store's own indexes read directly: a task's workflow children
 * (`children`) and one task's attempts (`history({ taskId })`), and the one event path (a
 * write's events reach the store's own subscribers before the call returns).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type StorageFactory, T0, TOGETHER } from "./harness.ts";
import type { NewTask } from "../../src/core/task.ts";
import type { Storage, StorageEvent } from "../../src/storage/storage.ts";
import { leaseOf, newSchedule, newTask } from "../../scripts/tools/new-task.ts";

const OWNER = { workerId: "w1", leaseMs: 60_000 };

/** A task of these tests: all in one partition of a partitioned store (their order counts). */
function task(id: string, extra: Partial<NewTask> = {}): NewTask {
  return newTask(id, T0, { ...TOGETHER, ...extra });
}

/** Claims `id` (the only queued task of its pool) and settles it with `settle`. */
async function run(
  s: Storage,
  id: string,
  now: number,
  settle: "complete" | "retry" | "dead",
): Promise<void> {
  const [claimed] = await s.claim({ pool: "default", max: 1, owner: OWNER, now });
  assert.equal(claimed?.id, id);
  const lease = leaseOf(claimed, OWNER.workerId);
  if (settle === "complete") assert.equal(await s.complete({ lease, result: null, now }), true);
  else {
    const retryAt = settle === "retry" ? now : null;
    await s.fail({ lease, error: { message: `boom ${id}` }, retryAt, now });
    if (settle === "retry") assert.equal(await s.promoteDue({ now, limit: 10 }), 1);
  }
}

export function queriesSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: children and a task's attempts`, () => {
    it("children(id) lists the tasks that waited on it, in order, with their statuses, paged", async () => {
      const { storage: s, dispose } = await factory();
      try {
        await s.enqueue({
          tasks: [
            task("p"),
            task("c1", { dependsOn: ["p"] }),
            task("u"),
            task("c2", { onSuccessOf: "p" }),
            task("c3", { onFailureOf: "p" }),
            task("g", { dependsOn: ["c1"] }),
          ],
          now: T0,
        });
        const ids = async (id: string, page = {}) => {
          const { items, next } = await s.children(id, page);
          return { items: items.map((t) => `${t.id}:${t.status}`), next };
        };
        assert.deepEqual(await ids("p"), {
          items: ["c1:waiting", "c2:waiting", "c3:waiting"],
          next: null,
        });
        const first = await ids("p", { limit: 2 });
        assert.deepEqual(first.items, ["c1:waiting", "c2:waiting"]);
        assert.ok(first.next);
        assert.deepEqual(await ids("p", { limit: 2, cursor: first.next }), {
          items: ["c3:waiting"],
          next: null,
        });
        assert.deepEqual(await ids("c1"), { items: ["g:waiting"], next: null });
        assert.deepEqual(await ids("u"), { items: [], next: null });
        assert.deepEqual(await ids("nope"), { items: [], next: null });

        await run(s, "p", T0 + 1, "complete");
        assert.deepEqual((await ids("p")).items, ["c1:queued", "c2:queued", "c3:cancelled"]);
        // Submitted after p ended: settled at once, it never waited on p.
        await s.enqueue({ tasks: [task("late", { dependsOn: ["p"] })], now: T0 + 2 });
        assert.deepEqual((await ids("p")).items, ["c1:queued", "c2:queued", "c3:cancelled"]);
        const [c3] = (await s.children("p", { cursor: "2" })).items;
        assert.equal(c3.cancelReason, "parent p ended succeeded");
      } finally {
        await dispose();
      }
    });

    it("history({ taskId }) answers one task's attempts, newest first, paged and filtered", async () => {
      const { storage: s, dispose } = await factory();
      try {
        // "job-1" is a prefix of "job-10": only exact ids count.
        await s.enqueue({ tasks: [task("job-1", { maxRetries: 2 })], now: T0 });
        await run(s, "job-1", T0 + 1, "retry");
        await s.enqueue({ tasks: [task("job-10")], now: T0 + 2 });
        await run(s, "job-1", T0 + 3, "retry");
        await run(s, "job-10", T0 + 4, "complete");
        await run(s, "job-1", T0 + 5, "complete");
        const attempts = async (filter: object) => {
          const { items, next } = await s.history({ taskId: "job-1", ...filter });
          return { items: items.map((a) => `${a.taskId}#${a.attempt}:${a.status}`), next };
        };
        assert.deepEqual(await attempts({}), {
          items: ["job-1#3:succeeded", "job-1#2:retrying", "job-1#1:retrying"],
          next: null,
        });
        const first = await attempts({ limit: 2 });
        assert.deepEqual(first.items, ["job-1#3:succeeded", "job-1#2:retrying"]);
        assert.ok(first.next);
        assert.deepEqual(await attempts({ limit: 2, cursor: first.next }), {
          items: ["job-1#1:retrying"],
          next: null,
        });
        assert.deepEqual((await attempts({ status: "retrying" })).items, [
          "job-1#2:retrying",
          "job-1#1:retrying",
        ]);
        assert.deepEqual((await s.history({ taskId: "job-10" })).items.map((a) => a.attempt), [1]);
        assert.deepEqual(await s.history({ taskId: "nope" }), { items: [], next: null });
      } finally {
        await dispose();
      }
    });

    it("delivers a write's events to the store's own subscribers before the call returns", async () => {
      const { storage: s, dispose } = await factory();
      const events: StorageEvent[] = [];
      const off = s.subscribe((e) => events.push(e));
      // A partitioned store also says which partition (`part`): not what is compared here.
      const saw = (e: StorageEvent) =>
        events.some((x) => JSON.stringify({ ...x, part: undefined }) === JSON.stringify(e));
      try {
        await s.enqueue({ tasks: [task("q"), task("d", { runAt: T0 + 60_000 })], now: T0 });
        assert.ok(saw({ kind: "ready", pool: "default" }), JSON.stringify(events));
        assert.ok(saw({ kind: "delayed", id: "d", runAt: T0 + 60_000 }));

        const [q] = await s.claim({ pool: "default", max: 1, owner: OWNER, now: T0 });
        const lease = leaseOf(q, OWNER.workerId);
        await s.fail({ lease, error: { message: "x" }, retryAt: T0 + 5_000, now: T0 });
        assert.ok(saw({ kind: "delayed", id: "q", runAt: T0 + 5_000 }));

        events.length = 0;
        assert.equal(await s.promoteDue({ now: T0 + 5_000, limit: 10 }), 1);
        assert.ok(saw({ kind: "ready", pool: "default" }), "a promotion's ready");

        const schedule = newSchedule("s1", 60_000, T0, {
          nextRunAt: T0 + 60_000,
          skipIfRunning: false,
        });
        await s.putSchedule({ replace: false, now: T0, schedule });
        assert.ok(saw({ kind: "schedule", id: "s1", nextRunAt: T0 + 60_000 }));

        events.length = 0;
        await s.setPaused({ pool: "default", paused: true });
        assert.ok(saw({ kind: "control" }));
      } finally {
        off();
        await dispose();
      }
    });
  });
}
