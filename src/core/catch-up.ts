/**
 * @module catch-up — what one firing of a schedule does when it fires late: which run it
 * enqueues (if any), and where the schedule goes next, by its `catchUp`.
 */
import { CATCH_UP_MAX, MISSED_AFTER_MS } from "./bounds.ts";
import { latestOccurrences, nextOccurrence } from "./recurrence.ts";
import type { ScheduleRecord } from "./task.ts";

/** Far beyond any real schedule: a cron with no further occurrence. */
export const NEVER = 8.64e15;

export interface FiringPlan {
  /** The occurrence to run (the run's runAt), or null: nothing runs. */
  runAt: number | null;
  /** The latest occurrence this firing stands for (lastFiredAt). */
  firedAt: number;
  /** Where the schedule goes next (past: the wheel fires it again at once). */
  nextRunAt: number;
}

type Cadence = Pick<ScheduleRecord, "kind" | "everyMs" | "cron" | "timezone" | "startAt">;

const after = (s: Cadence, at: number) => nextOccurrence(s, at) ?? NEVER;

/**
 * The firing of occurrence `occurrenceAt` at `now`. On time it runs that occurrence. When
 * later ones are due too (missed while paused or while no worker ran): `last` runs the
 * newest once, `none` runs it only if it is not itself missed (see below),
 * `all` runs this one and moves to the next (the wheel fires it at once), skipping ahead to
 * the newest CATCH_UP_MAX first. An occurrence fired later than MISSED_AFTER_MS, or than half
 * the gap to its next one, after its time is missed too: `none` skips it.
 */
export function firingPlan(
  s: Cadence & Pick<ScheduleRecord, "catchUp">,
  occurrenceAt: number,
  now: number,
): FiringPlan {
  // The newest due occurrences since this one (at most CATCH_UP_MAX + 1), found without a
  // walk over every missed one; this one first when fewer are due.
  const found = latestOccurrences(s, occurrenceAt + 1, now, CATCH_UP_MAX + 1);
  const due = found.length > CATCH_UP_MAX ? found : [occurrenceAt, ...found];
  const newest = due[due.length - 1];
  const next = after(s, newest);
  // Fired later than 60 s, or than half the gap to the next occurrence, after its time.
  const missed = (at: number) => now - at > Math.min(MISSED_AFTER_MS, (next - at) / 2);
  if (due.length === 1) {
    const run = s.catchUp === "none" && missed(occurrenceAt) ? null : occurrenceAt;
    return { runAt: run, firedAt: occurrenceAt, nextRunAt: next };
  }
  if (s.catchUp === "all") {
    // More than CATCH_UP_MAX due: skip to the newest CATCH_UP_MAX (due[1..]).
    if (found.length > CATCH_UP_MAX) return { runAt: null, firedAt: due[0], nextRunAt: due[1] };
    return { runAt: occurrenceAt, firedAt: occurrenceAt, nextRunAt: due[1] };
  }
  const run = s.catchUp === "none" && missed(newest) ? null : newest;
  return { runAt: run, firedAt: newest, nextRunAt: next };
}

/** The next `n` run times of a schedule from its nextRunAt (fewer when a cron ends). */
export function nextRuns(s: Cadence & Pick<ScheduleRecord, "nextRunAt">, n: number): number[] {
  const out: number[] = [];
  for (let at = s.nextRunAt; at < NEVER && out.length < n; at = after(s, at)) out.push(at);
  return out;
}
