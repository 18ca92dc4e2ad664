/**
 * What one firing of a late schedule runs, by its catchUp (core/catch-up.ts): on time, after
 * a short delay, after many missed occurrences (capped), and its next run times.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { firingPlan, nextRuns } from "../../src/core/catch-up.ts";
import { CATCH_UP_MAX } from "../../src/core/bounds.ts";
import type { CatchUp } from "../../src/core/task.ts";

const T = Date.UTC(2026, 0, 5, 8);
const every = (ms: number, catchUp: CatchUp) => ({
  kind: "every" as const,
  everyMs: ms,
  cron: null,
  timezone: null,
  startAt: T,
  catchUp,
});

describe("firingPlan", () => {
  it("runs an occurrence fired on time, whatever the catchUp", () => {
    for (const c of ["none", "last", "all"] as const) {
      assert.deepEqual(firingPlan(every(60_000, c), T, T + 5), {
        runAt: T,
        firedAt: T,
        nextRunAt: T + 60_000,
      });
    }
  });

  it("none skips a lone occurrence fired later than half its gap (or 60 s)", () => {
    assert.equal(firingPlan(every(10_000, "none"), T, T + 4_000).runAt, T);
    assert.equal(firingPlan(every(10_000, "none"), T, T + 6_000).runAt, null);
    assert.equal(firingPlan(every(3_600_000, "none"), T, T + 59_000).runAt, T);
    assert.equal(firingPlan(every(3_600_000, "none"), T, T + 61_000).runAt, null);
    assert.equal(firingPlan(every(3_600_000, "last"), T, T + 61_000).runAt, T);
  });

  it("with many due: last runs the newest once, none only if it is on time", () => {
    const now = T + 95_000; // due: T .. T + 90 s
    const last = firingPlan(every(10_000, "last"), T, now);
    assert.deepEqual(last, { runAt: T + 90_000, firedAt: T + 90_000, nextRunAt: T + 100_000 });
    // 6 s after the newest: more than half its gap, so it is missed too.
    const none = firingPlan(every(10_000, "none"), T, T + 96_000);
    assert.deepEqual(none, { runAt: null, firedAt: T + 90_000, nextRunAt: T + 100_000 });
    assert.equal(firingPlan(every(10_000, "none"), T, T + 92_000).runAt, T + 90_000);
  });

  it("all runs each in turn, skipping ahead to the newest CATCH_UP_MAX", () => {
    const plan = firingPlan(every(1_000, "all"), T, T + 10_500);
    assert.deepEqual(plan, { runAt: T, firedAt: T, nextRunAt: T + 1_000 });
    const due = CATCH_UP_MAX + 50;
    const now = T + (due - 1) * 1_000;
    const skip = firingPlan(every(1_000, "all"), T, now);
    assert.equal(skip.runAt, null);
    // After the skip, exactly CATCH_UP_MAX occurrences are left, each run.
    let at = skip.nextRunAt, runs = 0;
    while (at <= now) {
      const p = firingPlan(every(1_000, "all"), at, now);
      assert.equal(p.runAt, at);
      runs++;
      at = p.nextRunAt;
    }
    assert.equal(runs, CATCH_UP_MAX);
  });

  it("finds a cron's newest missed occurrences a week later without walking each one", () => {
    const everySecond = {
      kind: "cron" as const,
      everyMs: null,
      cron: "* * * * * *",
      timezone: "UTC",
      startAt: T,
      catchUp: "last" as CatchUp,
    };
    const now = T + 7 * 86_400_000 + 500;
    assert.deepEqual(firingPlan(everySecond, T, now), {
      runAt: T + 7 * 86_400_000,
      firedAt: T + 7 * 86_400_000,
      nextRunAt: T + 7 * 86_400_000 + 1_000,
    });
    const all = firingPlan({ ...everySecond, catchUp: "all" }, T, now);
    assert.equal(all.runAt, null, "past the cap: skipped ahead");
    assert.equal(all.nextRunAt, now - 500 - (CATCH_UP_MAX - 1) * 1_000, "the newest 100 remain");
  });

  it("lists the next run times from nextRunAt", () => {
    const s = { ...every(60_000, "last"), nextRunAt: T + 60_000 };
    assert.deepEqual(nextRuns(s, 3), [T + 60_000, T + 120_000, T + 180_000]);
    const daily = {
      kind: "cron" as const,
      everyMs: null,
      cron: "0 9 * * *",
      timezone: "UTC",
      startAt: T,
      nextRunAt: Date.UTC(2026, 0, 5, 9),
    };
    assert.deepEqual(nextRuns(daily, 2), [Date.UTC(2026, 0, 5, 9), Date.UTC(2026, 0, 6, 9)]);
  });
});
