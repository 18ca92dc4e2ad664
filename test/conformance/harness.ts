/**
 * @module harness — a Scheduler on a manual clock over any storage, for the behaviour suite.
 */
import { ManualClock } from "../../src/core/clock.ts";
import { Scheduler, type SchedulerOptions } from "../../src/scheduler.ts";
import type { Storage } from "../../src/storage/storage.ts";
import type { TaskRecord, TaskStatus } from "../../src/core/task.ts";
import { silentLogger } from "../../src/worker/middleware.ts";
import { eventually } from "../helpers/wait.ts";

/** Makes a fresh, empty storage (own key prefix) and later disposes of it. */
export type StorageFactory = (
  options?: { maxUnfinished?: number; history?: { maxAgeMs?: number; maxCount?: number } },
) => Promise<{ storage: Storage; dispose(): Promise<void> }>;

/** 2026-01-05 08:00:00 UTC, a Monday. */
export const T0 = Date.UTC(2026, 0, 5, 8, 0, 0);

export interface Harness {
  s: Scheduler;
  clock: ManualClock;
  storage: Storage;
  /** Waits (real time, with a deadline) until task `id` has `status`. */
  until(id: string, status: TaskStatus | TaskStatus[], timeoutMs?: number): Promise<TaskRecord>;
  close(): Promise<void>;
}

export async function harness(
  factory: StorageFactory,
  options: Partial<SchedulerOptions> & {
    start?: boolean;
    startAt?: number;
    storageOptions?: Parameters<StorageFactory>[0];
  } = {},
): Promise<Harness> {
  const { storage, dispose } = await factory(options.storageOptions);
  const clock = new ManualClock(options.startAt ?? T0);
  const s = new Scheduler({
    storage,
    clock,
    logger: silentLogger,
    pools: { default: 4 },
    ...options,
  });
  if (options.start !== false) await s.start();
  return {
    s,
    clock,
    storage,
    until: (id, status, timeoutMs = 5_000) => {
      const want = Array.isArray(status) ? status : [status];
      return eventually(
        async () => {
          await clock.advance(0); // fire timers already due, e.g. a zero back-off
          const t = await s.get(id);
          return t && want.includes(t.status) ? t : null;
        },
        `task ${id} to be ${want.join("|")}`,
        timeoutMs,
      );
    },
    close: async () => {
      await s.shutdown({ timeoutMs: 0 });
      await dispose();
    },
  };
}
