/**
 * @module recurrence — the next occurrence of an interval or cron schedule.
 *
 * Interval schedules are anchored to their start: occurrences are `startAt + k * every`, so
 * a slow firing never shifts the ones after it. Cron uses croner in the schedule's time
 * zone, which handles DST: a wall-clock time that does not exist that day (spring forward)
 * fires once at the end of the gap, and one that happens twice (fall back) fires once, at
 * its first occurrence.
 */
import { Cron } from "croner";
import type { ScheduleRecord } from "./task.ts";

const crons = new Map<string, Cron>();

function cronFor(expression: string, timezone: string | null): Cron {
  const key = `${timezone ?? ""}|${expression}`;
  let job = crons.get(key);
  if (!job) {
    job = new Cron(expression, { timezone: timezone ?? undefined, paused: true });
    if (crons.size > 1000) crons.clear();
    crons.set(key, job);
  }
  return job;
}

/** The first occurrence strictly after `after` (epoch ms), or null if there is none. */
export function nextOccurrence(
  schedule: Pick<ScheduleRecord, "kind" | "everyMs" | "cron" | "timezone" | "startAt">,
  after: number,
): number | null {
  if (schedule.kind === "every") {
    const every = schedule.everyMs!;
    if (after < schedule.startAt) return schedule.startAt;
    return schedule.startAt + (Math.floor((after - schedule.startAt) / every) + 1) * every;
  }
  const next = cronFor(schedule.cron!, schedule.timezone).nextRun(new Date(after));
  return next ? next.getTime() : null;
}
