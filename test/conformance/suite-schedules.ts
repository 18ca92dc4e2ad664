/**
 * @module suite-schedules — named schedules: create or replace under an id without firing a
 * slot twice (also when the replacement races a firing), pause and resume with each catchUp,
 * trigger, and one id namespace for tasks and schedules.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ConflictError, NotFoundError } from "../../src/mod.ts";
import type { Storage } from "../../src/storage/storage.ts";
import { harness, type StorageFactory, T0 } from "./harness.ts";
import { newTask } from "../../scripts/tools/new-task.ts";

/** The run times of schedule `sid` so far (each run's runAt), oldest first. */
async function runTimes(s: { list: Storage["list"] }, sid: string): Promise<number[]> {
  const { items } = await s.list({ limit: 1000 });
  return items.filter((t) => t.scheduleId === sid).map((t) => t.runAt!).sort((a, b) => a - b);
}

export function schedulesSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: named schedules`, () => {
    it("PUT of the same spec again keeps the slots: each occurrence runs once", async () => {
      const h = await harness(factory);
      try {
        h.s.register("tick", () => "ok");
        const first = await h.s.putSchedule("tick-1s", { type: "tick", every: "1s" });
        assert.equal(first.created, true);
        assert.equal(first.schedule.nextRunAt, T0 + 1_000);
        await h.clock.advance(500);
        const again = await h.s.putSchedule("tick-1s", { type: "tick", every: "1s" });
        assert.equal(again.created, false);
        assert.equal(again.schedule.nextRunAt, T0 + 1_000, "the same slot, not now + 1 s");
        for (let i = 0; i < 3; i++) {
          await h.clock.advance(1_000);
          await h.s.putSchedule("tick-1s", { type: "tick", every: "1s" });
        }
        await h.eventually(async () => (await runTimes(h.s, "tick-1s")).length === 3);
        assert.deepEqual(
          (await runTimes(h.s, "tick-1s")).map((t) => t - T0),
          [1_000, 2_000, 3_000],
        );
      } finally {
        await h.close();
      }
    });

    it("a replacement that read the schedule before a firing never fires that slot again", async () => {
      const h = await harness(factory);
      try {
        h.s.register("tick", () => "ok");
        await h.s.putSchedule("race", { type: "tick", every: "1s" });
        const before = await h.storage.getSchedule("race");
        await h.clock.advance(1_000);
        await h.eventually(async () => (await h.s.getSchedule("race"))?.lastFiredAt === T0 + 1_000);
        // Another node replaces it from what it read before the firing: the store refuses
        // the fired slot, and the node takes the next one.
        const stale = await h.storage.putSchedule({
          schedule: { ...before!, nextRunAt: T0 + 1_000 },
          replace: true,
          now: T0 + 1_000,
        });
        assert.deepEqual(stale, { outcome: "stale", lastFiredAt: T0 + 1_000 });
        assert.equal((await h.s.getSchedule("race"))?.nextRunAt, T0 + 2_000, "nothing changed");
        const replaced = await h.s.putSchedule("race", { type: "tick", every: "1s", priority: 3 });
        assert.equal(replaced.schedule.nextRunAt, T0 + 2_000);
        assert.equal(replaced.schedule.template.priority, 3);
        await h.clock.advance(1_000);
        await h.eventually(async () => (await runTimes(h.s, "race")).length === 2);
        assert.deepEqual((await runTimes(h.s, "race")).map((t) => t - T0), [1_000, 2_000]);
      } finally {
        await h.close();
      }
    });

    for (
      const [catchUp, expected] of [
        ["none", []],
        ["last", [120_000]],
        ["all", [
          10_000,
          20_000,
          30_000,
          40_000,
          50_000,
          60_000,
          70_000,
          80_000,
          90_000,
          100_000,
          110_000,
          120_000,
        ]],
      ] as const
    ) {
      it(`resumed after 2 minutes paused, catchUp ${catchUp} runs ${expected.length} missed occurrences`, async () => {
        const h = await harness(factory, { lookAheadMs: 5_000 });
        try {
          h.s.register("tick", () => "ok");
          const spec = { type: "tick", every: "10s", catchUp, skipIfRunning: false };
          await h.s.putSchedule("paused", spec);
          const paused = await h.s.pauseSchedule("paused");
          assert.equal(paused.paused, true);
          // To 127 s: the newest occurrence (120 s) is missed too, by more than half its gap.
          for (let i = 0; i < 25; i++) await h.clock.advance(5_000);
          await h.clock.advance(2_000);
          assert.deepEqual(await runTimes(h.s, "paused"), [], "nothing fires while paused");
          // Replacing keeps the pause.
          assert.equal((await h.s.putSchedule("paused", spec)).schedule.paused, true);
          assert.deepEqual(await h.storage.dueSchedules({ until: T0 + 127_000, limit: 10 }), []);
          const resumed = await h.s.resumeSchedule("paused");
          assert.equal(resumed.paused, false);
          // Due again in the store itself: a worker that starts only now fires it too.
          const due = await h.storage.dueSchedules({ until: T0 + 127_000, limit: 10 });
          assert.deepEqual(due.map((d) => d.id), ["paused"]);
          // The missed occurrences are decided: the schedule is due after now again.
          await h.eventually(async () =>
            (await h.s.getSchedule("paused"))!.nextRunAt === T0 + 130_000
          );
          const times = await runTimes(h.s, "paused");
          assert.deepEqual(times.map((t) => t - T0), [...expected]);
          await h.clock.advance(3_000);
          await h.eventually(async () =>
            (await runTimes(h.s, "paused")).length === times.length + 1
          );
          assert.equal((await runTimes(h.s, "paused")).at(-1), T0 + 130_000, "then on time");
        } finally {
          await h.close();
        }
      });
    }

    it("an occurrence fires once: a second firing of it (another node) changes nothing", async () => {
      const h = await harness(factory, { start: false });
      try {
        await h.s.putSchedule("once", { type: "t", every: "1s" });
        const s = (await h.storage.getSchedule("once"))!;
        const fire = (id: string) =>
          h.storage.fireSchedule({
            id: "once",
            occurrenceAt: s.nextRunAt,
            nextRunAt: s.nextRunAt + 1_000,
            firedAt: s.nextRunAt,
            run: newTask(id, T0, { scheduleId: "once", runAt: s.nextRunAt }),
            now: T0 + 1_000,
          });
        assert.deepEqual(await fire("r1"), { fired: true, taskId: "r1" });
        assert.deepEqual(await fire("r2"), { fired: false, taskId: null });
        assert.equal(await h.storage.get("r2"), null);
      } finally {
        await h.close();
      }
    });

    it("trigger runs the template once now; the cadence stays", async () => {
      const h = await harness(factory);
      try {
        const ran: string[] = [];
        h.s.register("report", (_p, ctx) => {
          ran.push(ctx.id);
        });
        await h.s.putSchedule("daily", { type: "report", cron: "0 9 * * *", catchUp: "none" });
        const next = (await h.s.getSchedule("daily"))!.nextRunAt;
        const { id } = await h.s.triggerSchedule("daily");
        const run = await h.until(id, "succeeded");
        assert.equal(run.scheduleId, "daily");
        const after = await h.s.getSchedule("daily");
        assert.equal(after?.nextRunAt, next);
        assert.equal(after?.lastRunId, id);
        await assert.rejects(h.s.triggerSchedule("nope"), NotFoundError);
        await assert.rejects(h.s.pauseSchedule("nope"), NotFoundError);
      } finally {
        await h.close();
      }
    });

    it("lists every schedule in creation order, more than one store call reads", async () => {
      const h = await harness(factory, { start: false });
      try {
        // Ids in creation order sort alike: a partitioned store merges ties by id.
        const ids = Array.from({ length: 1_201 }, (_, i) => `s${String(i).padStart(4, "0")}`);
        for (let i = 0; i < ids.length; i += 100) {
          await h.s.submitMany(ids.slice(i, i + 100).map((id) => ({ type: "t", id, every: "1h" })));
        }
        await h.s.removeSchedule("s0500");
        const listed = (await h.s.listSchedules()).map((s) => s.id);
        assert.deepEqual(listed, ids.filter((id) => id !== "s0500"));
      } finally {
        await h.close();
      }
    });

    it("tasks and schedules share one id namespace", async () => {
      const h = await harness(factory, { start: false });
      try {
        await h.s.submit({ type: "t", id: "taken" });
        await assert.rejects(h.s.putSchedule("taken", { type: "t", every: "1m" }), ConflictError);
        await h.s.submit({ type: "t", id: "nightly", cron: "0 3 * * *" });
        await assert.rejects(h.s.submit({ type: "t", id: "nightly" }), ConflictError);
        // A retried create of the same schedule answers it; a different one conflicts.
        assert.equal(await h.s.submit({ type: "t", id: "nightly", cron: "0 3 * * *" }), "nightly");
        await assert.rejects(
          h.s.submit({ type: "t", id: "nightly", cron: "0 4 * * *" }),
          ConflictError,
        );
        assert.equal((await h.s.listSchedules()).length, 1);
        assert.equal((await h.s.list({})).items.length, 1);
      } finally {
        await h.close();
      }
    });
  });
}
