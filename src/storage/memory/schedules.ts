/**
 * @module schedules — the embedded store's recurring and cron schedules, fired with the
 * same compare-and-set on `nextRunAt` as lua/fireSchedule-1.lua.
 */
import { ConflictError } from "../../core/errors.ts";
import {
  FINAL_STATUSES,
  type NewTask,
  type ScheduleRecord,
  type TaskStatus,
} from "../../core/task.ts";
import type { Listeners } from "../listeners.ts";
import type {
  DueParams,
  FireParams,
  PauseScheduleParams,
  PutScheduleParams,
  TriggerParams,
} from "../params.ts";
import type { ScheduleStore } from "../storage.ts";
import type { FireResult, PutScheduleResult } from "../types.ts";
import { scheduleRecord } from "./records.ts";

/** What firing needs from the task side: the last run's status, and inserting a run. */
export interface ScheduleRuns {
  status(id: string): TaskStatus | undefined;
  insert(run: NewTask, now: number): void;
}

export class ScheduleTable implements ScheduleStore {
  readonly #events: Listeners;
  readonly #runs: ScheduleRuns;
  readonly #schedules = new Map<string, ScheduleRecord>();

  constructor(events: Listeners, runs: ScheduleRuns) {
    this.#events = events;
    this.#runs = runs;
  }

  /** Whether `id` names a schedule (task ids may not). */
  has(id: string): boolean {
    return this.#schedules.has(id);
  }

  putSchedule({ schedule, replace }: PutScheduleParams): Promise<PutScheduleResult> {
    const { id } = schedule;
    if (this.#runs.status(id) !== undefined) {
      return Promise.reject(new ConflictError(`Id "${id}" is already in use by a task`));
    }
    const stored = this.#schedules.get(id);
    if (stored && !replace) {
      return Promise.reject(new ConflictError(`Schedule id "${id}" is already in use`));
    }
    if (stored?.lastFiredAt != null && schedule.nextRunAt <= stored.lastFiredAt) {
      return Promise.resolve({ outcome: "stale", lastFiredAt: stored.lastFiredAt });
    }
    const next = structuredClone(schedule);
    if (stored) {
      // The runs' history and the pause are the stored schedule's (lua/putSchedule-1.lua).
      next.lastRunId = stored.lastRunId;
      next.lastRunAt = stored.lastRunAt;
      next.lastFiredAt = stored.lastFiredAt;
      next.paused = stored.paused;
      next.createdAt = stored.createdAt;
    }
    // A replaced schedule keeps its place in listings (Map order), as Redis's schedule-ids.
    this.#schedules.set(id, next);
    if (!next.paused) this.#events.emit({ kind: "schedule", id, nextRunAt: next.nextRunAt });
    return Promise.resolve({ outcome: stored ? "replaced" : "created" });
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    const s = this.#schedules.get(id);
    return Promise.resolve(s ? scheduleRecord(s) : null);
  }

  setSchedulePaused({ id, paused }: PauseScheduleParams): Promise<ScheduleRecord | null> {
    const s = this.#schedules.get(id);
    if (!s) return Promise.resolve(null);
    const resumed = s.paused && !paused;
    s.paused = paused;
    if (resumed) this.#events.emit({ kind: "schedule", id, nextRunAt: s.nextRunAt });
    return Promise.resolve(scheduleRecord(s));
  }

  triggerSchedule({ id, run, now }: TriggerParams): Promise<boolean> {
    const s = this.#schedules.get(id);
    if (!s) return Promise.resolve(false);
    this.#runs.insert(run, now);
    s.lastRunId = run.id;
    s.lastRunAt = now;
    return Promise.resolve(true);
  }

  removeSchedule(id: string): Promise<boolean> {
    return Promise.resolve(this.#schedules.delete(id));
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return Promise.resolve([...this.#schedules.values()].map(scheduleRecord));
  }

  dueSchedules({ until, limit }: DueParams): Promise<{ id: string; nextRunAt: number }[]> {
    const due = [...this.#schedules.values()]
      .filter((s) => !s.paused && s.nextRunAt <= until)
      .sort((a, b) => a.nextRunAt - b.nextRunAt)
      .slice(0, limit)
      .map((s) => ({ id: s.id, nextRunAt: s.nextRunAt }));
    return Promise.resolve(due);
  }

  fireSchedule(
    { id, occurrenceAt, nextRunAt, firedAt, run, now }: FireParams,
  ): Promise<FireResult> {
    const s = this.#schedules.get(id);
    if (!s || s.paused || s.nextRunAt !== occurrenceAt) {
      return Promise.resolve({ fired: false, taskId: null });
    }
    s.nextRunAt = nextRunAt;
    s.lastFiredAt = firedAt;
    this.#events.emit({ kind: "schedule", id, nextRunAt });
    const last = s.lastRunId ? this.#runs.status(s.lastRunId) : undefined;
    if (!run || (s.skipIfRunning && last && !FINAL_STATUSES.has(last))) {
      return Promise.resolve({ fired: true, taskId: null });
    }
    this.#runs.insert(run, now);
    s.lastRunId = run.id;
    s.lastRunAt = firedAt;
    return Promise.resolve({ fired: true, taskId: run.id });
  }
}
