/**
 * @module schedules — named schedules from the submitting half: create or replace one
 * (`PUT /schedules/:id`), pause, resume and trigger, each one store call the store decides.
 */
import type { Clock } from "../core/clock.ts";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import { NEVER } from "../core/catch-up.ts";
import { nextOccurrence } from "../core/recurrence.ts";
import type { ScheduleRecord } from "../core/task.ts";
import type { ScheduleStore } from "../storage/storage.ts";
import { scheduleRun } from "../core/submission.ts";

/** Tries of a replacement whose occurrence another node fired meanwhile (each moves on). */
const PUT_TRIES = 5;

/**
 * `fresh` (from the spec) as the replacement of `stored`: an interval schedule given no
 * `runAt` keeps its anchor, so its slots stay where they were; the next occurrence is the
 * first slot from the stored one still due (not yet fired) or from now, and after the last
 * occurrence fired, so no slot fires twice.
 */
function replacement(
  stored: ScheduleRecord,
  fresh: ScheduleRecord,
  runAtGiven: boolean,
  now: number,
): ScheduleRecord {
  const keepAnchor = !runAtGiven && fresh.kind === "every" && stored.kind === "every";
  const record = { ...fresh, startAt: keepAnchor ? stored.startAt : fresh.startAt };
  const from = Math.max(Math.min(stored.nextRunAt, now) - 1, stored.lastFiredAt ?? -Infinity);
  return { ...record, nextRunAt: nextOccurrence(record, from) ?? NEVER };
}

/**
 * Creates schedule `fresh.id` or replaces the one stored under it; answers the stored record
 * and whether it was new.
 */
export async function putSchedule(
  storage: ScheduleStore,
  fresh: ScheduleRecord,
  runAtGiven: boolean,
  now: number,
): Promise<{ schedule: ScheduleRecord; created: boolean }> {
  for (let i = 0; i < PUT_TRIES; i++) {
    const stored = await storage.getSchedule(fresh.id);
    const schedule = stored ? replacement(stored, fresh, runAtGiven, now) : fresh;
    const r = await storage.putSchedule({ schedule, replace: true, now });
    if (r.outcome === "stale") continue;
    const read = await storage.getSchedule(fresh.id);
    return { schedule: read ?? schedule, created: r.outcome === "created" };
  }
  throw new ConflictError(`Schedule "${fresh.id}" keeps changing; try again`);
}

/** The fields that make two schedules the same (a retried create answers the stored one). */
function cadenceAndTemplate(s: ScheduleRecord): string {
  const { kind, everyMs, cron, timezone, template, catchUp, skipIfRunning } = s;
  return JSON.stringify({ kind, everyMs, cron, timezone, template, catchUp, skipIfRunning });
}

/**
 * Creates a schedule from a submit (`POST /tasks` with `every` or `cron`): an id already a
 * schedule's is a conflict, unless that schedule is this one (a retried submit).
 */
export async function createSchedule(storage: ScheduleStore, s: ScheduleRecord, now: number) {
  try {
    await storage.putSchedule({ schedule: s, replace: false, now });
    return s;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const stored = await storage.getSchedule(s.id);
    if (!stored || cadenceAndTemplate(stored) !== cadenceAndTemplate(s)) throw error;
    return stored;
  }
}

/** Pauses or resumes schedule `id`; NotFoundError when unknown. */
export async function setPaused(
  storage: ScheduleStore,
  id: string,
  paused: boolean,
  clock: Clock,
): Promise<ScheduleRecord> {
  const s = await storage.setSchedulePaused({ id, paused, now: clock.now() });
  if (!s) throw new NotFoundError("Schedule", id);
  return s;
}

/** One run of schedule `id` now, outside its cadence; answers the run's id. */
export async function trigger(
  storage: ScheduleStore,
  id: string,
  clock: Clock,
): Promise<{ id: string }> {
  const s = await storage.getSchedule(id);
  if (!s) throw new NotFoundError("Schedule", id);
  const now = clock.now();
  const run = scheduleRun(s, now, now);
  if (!(await storage.triggerSchedule({ id, run, now }))) throw new NotFoundError("Schedule", id);
  return { id: run.id };
}
