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
import type { DueParams, FireParams } from "../params.ts";
import type { ScheduleStore } from "../storage.ts";
import type { FireResult } from "../types.ts";
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

  addSchedule(schedule: ScheduleRecord): Promise<void> {
    if (this.#schedules.has(schedule.id)) {
      return Promise.reject(new ConflictError(`Schedule id "${schedule.id}" is already in use`));
    }
    this.#schedules.set(schedule.id, structuredClone(schedule));
    this.#events.emit({ kind: "schedule", id: schedule.id, nextRunAt: schedule.nextRunAt });
    return Promise.resolve();
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    const s = this.#schedules.get(id);
    return Promise.resolve(s ? scheduleRecord(s) : null);
  }

  removeSchedule(id: string): Promise<boolean> {
    return Promise.resolve(this.#schedules.delete(id));
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return Promise.resolve([...this.#schedules.values()].map(scheduleRecord));
  }

  dueSchedules({ until, limit }: DueParams): Promise<{ id: string; nextRunAt: number }[]> {
    const due = [...this.#schedules.values()]
      .filter((s) => s.nextRunAt <= until)
      .sort((a, b) => a.nextRunAt - b.nextRunAt)
      .slice(0, limit)
      .map((s) => ({ id: s.id, nextRunAt: s.nextRunAt }));
    return Promise.resolve(due);
  }

  fireSchedule({ id, occurrenceAt, nextRunAt, run, now }: FireParams): Promise<FireResult> {
    const s = this.#schedules.get(id);
    if (!s || s.nextRunAt !== occurrenceAt) return Promise.resolve({ fired: false, taskId: null });
    s.nextRunAt = nextRunAt;
    this.#events.emit({ kind: "schedule", id, nextRunAt });
    const last = s.lastRunId ? this.#runs.status(s.lastRunId) : undefined;
    if (s.skipIfRunning && last && !FINAL_STATUSES.has(last)) {
      return Promise.resolve({ fired: true, taskId: null });
    }
    this.#runs.insert(run, now);
    s.lastRunId = run.id;
    s.lastRunAt = occurrenceAt;
    return Promise.resolve({ fired: true, taskId: run.id });
  }
}
