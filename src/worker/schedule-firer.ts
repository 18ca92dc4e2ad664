/**
 * @module schedule-firer — fires recurring and cron occurrences through the timing wheel.
 *
 * Every instance arms the wheel for schedules due within the look-ahead; when it fires,
 * the instance computes the following occurrence and asks storage to fire this one with a
 * compare-and-set on `nextRunAt`, so each occurrence runs exactly once across instances
 * and keeps firing when the instance that created the schedule is gone. Occurrences missed
 * while the schedule was paused or no instance ran follow its `catchUp`
 * (core/catch-up.ts).
 */
import type { Clock } from "../core/clock.ts";
import { firingPlan, NEVER } from "../core/catch-up.ts";
import { scheduleRun } from "../core/submission.ts";
import type { TimingWheel } from "../core/timing-wheel.ts";
import type { ScheduleStore } from "../storage/storage.ts";
import type { Logger } from "./middleware.ts";
import { Periodic } from "./periodic.ts";

export interface ScheduleFirerOptions {
  storage: ScheduleStore;
  clock: Clock;
  wheel: TimingWheel;
  logger: Logger;
  lookAheadMs: number;
  /** The store's partitions (Storage.partitions; default 1): one is scanned at a time. */
  parts?: number;
}

/** A firing the store could not take is tried again this much later (not at the next scan). */
const RETRY_FIRE_MS = 1_000;

export class ScheduleFirer {
  readonly #o: ScheduleFirerOptions;
  readonly #scan: Periodic;
  readonly #parts: number;
  /** How far ahead a scan arms: one partition's scans are `parts` intervals apart. */
  readonly #horizonMs: number;
  #nextScan = 0;

  constructor(options: ScheduleFirerOptions) {
    this.#o = options;
    const interval = Math.max(10, Math.floor(options.lookAheadMs / 2));
    this.#parts = Math.max(1, options.parts ?? 1);
    this.#horizonMs = options.lookAheadMs + (this.#parts - 1) * interval;
    this.#scan = new Periodic(
      "schedule scan",
      interval,
      () => this.step(),
      options.clock,
      options.logger,
    );
  }

  start(): void {
    this.#scan.start();
  }

  stop(): void {
    this.#scan.stop();
  }

  /** Arms the wheel for every schedule (of the next partition) due within the look-ahead. */
  async step(): Promise<void> {
    const { storage, clock } = this.#o;
    const part = this.#parts > 1 ? this.#nextScan++ % this.#parts : undefined;
    const until = clock.now() + this.#horizonMs;
    const due = await storage.dueSchedules({ until, limit: 10_000, part });
    for (const { id, nextRunAt } of due) this.arm(id, nextRunAt);
  }

  /** Arms (or re-arms) the wheel for occurrence `at` of schedule `id`. */
  arm(id: string, at: number): void {
    const { wheel, clock } = this.#o;
    if (at >= NEVER || at > clock.now() + this.#horizonMs) return;
    if (wheel.dueAt(`schedule:${id}`) === at) return;
    this.#armAt(id, at, at);
  }

  /** Fires occurrence `occurrenceAt` of `id` at `when`; again a second later if that fails. */
  #armAt(id: string, occurrenceAt: number, when: number): void {
    this.#o.wheel.schedule(`schedule:${id}`, when, () => {
      this.#fire(id, occurrenceAt).catch((error) => {
        this.#o.logger.warn("schedule firing failed; trying again", {
          id,
          error: (error as Error)?.message,
        });
        // Unless a newer occurrence was armed meanwhile: the compare-and-set keeps it once.
        if (!this.#o.wheel.has(`schedule:${id}`)) {
          this.#armAt(id, occurrenceAt, this.#o.clock.now() + RETRY_FIRE_MS);
        }
      });
    });
  }

  async #fire(id: string, occurrenceAt: number): Promise<void> {
    const next = await fireOccurrence(this.#o.storage, this.#o.clock, id, occurrenceAt);
    if (next !== null) this.arm(id, next);
  }
}

/**
 * Fires occurrence `occurrenceAt` of schedule `id` (its catchUp decides what runs) unless
 * it was paused, removed or fired meanwhile; returns the next occurrence when this call
 * fired it, else null. The store's compare-and-set makes it once across instances.
 */
export async function fireOccurrence(
  storage: Pick<ScheduleStore, "getSchedule" | "fireSchedule">,
  clock: Clock,
  id: string,
  occurrenceAt: number,
): Promise<number | null> {
  const schedule = await storage.getSchedule(id);
  if (!schedule || schedule.paused || schedule.nextRunAt !== occurrenceAt) return null;
  const now = clock.now();
  const plan = firingPlan(schedule, occurrenceAt, now);
  const run = plan.runAt === null ? null : scheduleRun(schedule, plan.runAt, now);
  const result = await storage.fireSchedule({
    id,
    occurrenceAt,
    nextRunAt: plan.nextRunAt,
    firedAt: plan.firedAt,
    run,
    now,
  });
  return result.fired ? plan.nextRunAt : null;
}
