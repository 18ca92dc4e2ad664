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

/**
 * The newest `n` occurrences at or before `upTo` and at or after `from`, oldest first: found
 * without walking from `from` (arithmetic for intervals, croner's previousRuns for cron).
 */
export function latestOccurrences(
  schedule: Pick<ScheduleRecord, "kind" | "everyMs" | "cron" | "timezone" | "startAt">,
  from: number,
  upTo: number,
  n: number,
): number[] {
  if (schedule.kind === "every") {
    const every = schedule.everyMs!;
    if (upTo < schedule.startAt) return [];
    const last = Math.floor((upTo - schedule.startAt) / every);
    const first = Math.max(0, Math.ceil((from - schedule.startAt) / every), last - n + 1);
    const out: number[] = [];
    for (let k = first; k <= last; k++) out.push(schedule.startAt + k * every);
    return out;
  }
  // previousRuns counts back from strictly before its reference: one ms past upTo.
  return cronFor(schedule.cron!, schedule.timezone).previousRuns(n, new Date(upTo + 1))
    .map((d) => d.getTime()).filter((at) => at >= from && at <= upTo).reverse();
}
