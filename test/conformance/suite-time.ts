/**
 * @module suite-time — delayed tasks and recurring/cron schedules on the manual clock.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0 } from "./harness.ts";
import { gate } from "../../scripts/tools/wait.ts";

export function timeSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: delayed tasks`, () => {
    it("runs delay, runAt and scheduleOnce tasks at their time, never before", async () => {
      const h = await harness(factory);
      try {
        const ranAt = new Map<string, number>();
        h.s.register("t", (_p, ctx) => {
          ranAt.set(ctx.id, h.clock.now());
        });
        const a = await h.s.submit({ type: "t", delay: "1500ms" });
        const b = await h.s.submit({ type: "t", runAt: new Date(T0 + 3_000).toISOString() });
        const c = await h.s.scheduleOnce({ type: "t" }, new Date(T0 + 4_000));
        assert.equal((await h.s.get(a))?.status, "scheduled");
        await h.clock.advance(1_499);
        assert.equal(ranAt.size, 0);
        await h.clock.advance(20);
        await h.eventually(() => ranAt.has(a), "a to run");
        await h.clock.advance(3_000 - 1_519 - 1);
        assert.ok(!ranAt.has(b), "b not before 3 s");
        await h.clock.advance(2_000);
        await h.eventually(() => ranAt.has(b) && ranAt.has(c), "b and c to run");
        assert.ok(ranAt.get(a)! >= T0 + 1_500 && ranAt.get(a)! <= T0 + 1_510);
        assert.ok(ranAt.get(b)! >= T0 + 3_000 && ranAt.get(b)! <= T0 + 3_010);
        assert.ok(ranAt.get(c)! >= T0 + 4_000 && ranAt.get(c)! <= T0 + 4_010);
      } finally {
        await h.close();
      }
    });

    it("runs a task whose runAt is already past at once", async () => {
      const h = await harness(factory);
      try {
        h.s.register("t", () => "done");
        const id = await h.s.submit({ type: "t", runAt: T0 - 60_000 });
        await h.clock.advance(10);
        await h.until(id, "succeeded");
      } finally {
        await h.close();
      }
    });
  });

  describe(`${backend}: recurring and cron`, () => {
    it("fires an interval schedule anchored to its start: own ids, linked, no drift", async () => {
      const h = await harness(factory);
      try {
        const runs: { id: string; at: number; scheduleId: string | null }[] = [];
        h.s.register("tick", (_p, ctx) => {
          runs.push({ id: ctx.id, at: h.clock.now(), scheduleId: ctx.scheduleId });
          // A slow run must not shift the next firing.
          return new Promise<void>((r) => h.clock.setTimer(r, 700));
        });
        const sid = await h.s.scheduleRecurring({ type: "tick" }, "1s");
        for (let i = 0; i < 5; i++) await h.clock.advance(1_000);
        await h.eventually(() => runs.length === 5, "5 runs");
        assert.deepEqual(runs.map((r) => r.at - T0), [1_000, 2_000, 3_000, 4_000, 5_000]);
        assert.equal(new Set(runs.map((r) => r.id)).size, 5);
        assert.ok(runs.every((r) => r.scheduleId === sid));
        const run = await h.s.get(runs[0].id);
        assert.equal(run?.scheduleId, sid);
      } finally {
        await h.close();
      }
    });

    it("skips a firing while the previous run of the schedule is still running", async () => {
      const h = await harness(factory);
      try {
        const hold = gate();
        const runs: string[] = [];
        h.s.register("slow", (_p, ctx) => {
          runs.push(ctx.id);
          return hold.promise;
        });
        const sid = await h.s.scheduleRecurring({ type: "slow" }, "1s");
        await h.clock.advance(1_000);
        await h.eventually(() => runs.length === 1, "first run");
        for (let i = 0; i < 3; i++) await h.clock.advance(1_000);
        // Wait until the occurrences at 2 s, 3 s and 4 s were decided (the schedule moved on).
        await h.eventually(async () => (await h.s.getSchedule(sid))?.nextRunAt === T0 + 5_000);
        assert.equal(runs.length, 1, "occurrences at 2 s, 3 s, 4 s are skipped");
        hold.open();
        await h.until(runs[0], "succeeded");
        await h.clock.advance(1_000);
        await h.eventually(() => runs.length === 2, "next occurrence runs");
      } finally {
        await h.close();
      }
    });

    it("stops firing after the schedule is cancelled", async () => {
      const h = await harness(factory);
      try {
        let runs = 0;
        h.s.register("tick", () => {
          runs++;
        });
        const sid = await h.s.scheduleRecurring({ type: "tick" }, "1s");
        await h.clock.advance(1_000);
        await h.eventually(() => runs === 1, "first run");
        await h.s.cancel(sid);
        await h.clock.advance(5_000);
        assert.equal(runs, 1);
        assert.equal(await h.s.getSchedule(sid), null);
      } finally {
        await h.close();
      }
    });

    it("fires cron in its time zone, following DST (Europe/Berlin 09:00 on weekdays)", async () => {
      // 2026-03-27 is a Friday; Berlin moves to summer time on Sunday 2026-03-29.
      const start = Date.UTC(2026, 2, 27, 7, 0, 0);
      const h = await harness(factory, {
        startAt: start,
        lookAheadMs: 86_400_000,
        pollMs: 3_600_000,
        recoverMs: 3_600_000,
        heartbeatMs: 3_600_000,
        leaseMs: 3_600_000,
      });
      try {
        const runs: string[] = [];
        h.s.register("report", (_p, ctx) => {
          runs.push(ctx.id);
        });
        const sid = await h.s.scheduleCron({ type: "report" }, "0 9 * * 1-5", {
          timezone: "Europe/Berlin",
        });
        const schedule = await h.s.getSchedule(sid);
        assert.equal(schedule?.nextRunAt, Date.UTC(2026, 2, 27, 8, 0, 0), "09:00 CET = 08:00Z");
        // Walk to Tuesday 2026-03-31 noon in hour steps.
        for (let t = start; t < Date.UTC(2026, 2, 31, 12); t += 3_600_000) {
          await h.clock.advance(3_600_000);
        }
        await h.eventually(() => runs.length === 3, "three weekday firings");
        // Each run records the occurrence it fired for; the wheel never fires early.
        const fired = await Promise.all(runs.map((id) => h.s.get(id)));
        for (const run of fired) assert.ok(run!.startedAt! >= run!.runAt!);
        assert.deepEqual(fired.map((run) => new Date(run!.runAt!).toISOString()), [
          "2026-03-27T08:00:00.000Z", // Friday, CET (UTC+1)
          "2026-03-30T07:00:00.000Z", // Monday, CEST (UTC+2)
          "2026-03-31T07:00:00.000Z",
        ]);
      } finally {
        await h.close();
      }
    });

    it("fires a daily 02:30 Europe/Berlin schedule once a day across both clock changes", async () => {
      // 02:30 does not exist on 2026-03-29 (it fires once, at the end of the gap, 03:00) and
      // happens twice on 2026-10-25 (it fires once, at the first).
      for (
        const [from, expected] of [
          [Date.UTC(2026, 2, 28, 0), [
            "2026-03-28T01:30:00.000Z",
            "2026-03-29T01:00:00.000Z",
            "2026-03-30T00:30:00.000Z",
          ]],
          [Date.UTC(2026, 9, 24, 0), [
            "2026-10-24T00:30:00.000Z",
            "2026-10-25T00:30:00.000Z",
            "2026-10-26T01:30:00.000Z",
          ]],
        ] as const
      ) {
        const h = await harness(factory, {
          startAt: from,
          lookAheadMs: 86_400_000,
          pollMs: 3_600_000,
          recoverMs: 3_600_000,
          heartbeatMs: 3_600_000,
          leaseMs: 3_600_000,
        });
        try {
          const runs: string[] = [];
          h.s.register("nightly", (_p, ctx) => {
            runs.push(ctx.id);
          });
          await h.s.scheduleCron({ type: "nightly" }, "30 2 * * *", { timezone: "Europe/Berlin" });
          // Walk three days in half-hour steps, so every local 02:xx is passed through.
          for (let t = from; t < from + 3 * 86_400_000 - 3_600_000; t += 1_800_000) {
            await h.clock.advance(1_800_000);
          }
          await h.eventually(() => runs.length === 3, "three nightly runs");
          const fired = await Promise.all(runs.map((id) => h.s.get(id)));
          assert.deepEqual(fired.map((run) => new Date(run!.runAt!).toISOString()), expected);
        } finally {
          await h.close();
        }
      }
    });
  });
}
