/**
 * @module harness — a Scheduler on a manual clock over any storage, for the behaviour suite.
 */
import { ManualClock, settle } from "../../src/core/clock.ts";
import { Scheduler, type SchedulerOptions } from "../../src/scheduler.ts";
import type { Storage } from "../../src/storage/storage.ts";
import type { TaskRecord, TaskStatus } from "../../src/core/task.ts";
import { silentLogger } from "../../src/worker/middleware.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { type Faults, faultyStorage } from "../helpers/faulty-storage.ts";

/** Makes a fresh, empty storage (own key prefix) and later disposes of it. */
export type StorageFactory = (
  options?: {
    maxUnfinished?: number;
    history?: { maxAgeMs?: number; maxCount?: number };
    taskEvents?: boolean;
  },
) => Promise<{ storage: Storage; dispose(): Promise<void> }>;

/**
 * A spec field that keeps related tasks in one partition of a partitioned store, where
 * their relative order, retention and workflow ties are exact across submits (the remedy
 * docs/PARTITIONS.md gives users); a store of one partition accepts and ignores it. Tests
 * of those promises give it to every task they compare.
 */
export const TOGETHER = { partitionKey: "suite" } as const;

/** How many partitions the harness's store has (1 unless it is partitioned). */
export function partitionsOf(h: { storage: Storage }): number {
  return h.storage.partitions ?? 1;
}

/** Event-loop turns a storage call may stay in flight before the harness gives up. */
const QUIESCE_TURNS = 10_000;

/** 2026-01-05 08:00:00 UTC, a Monday. */
export const T0 = Date.UTC(2026, 0, 5, 8, 0, 0);

export interface Harness {
  s: Scheduler;
  clock: ManualClock;
  storage: Storage;
  /**
   * Polls `check` (real time, with a deadline), firing manual-clock timers that are already
   * due before each poll: with an async backend, a pub/sub message can arm the wheel for a
   * time the manual clock has already reached.
   */
  eventually<T>(check: () => T | Promise<T>, message?: string): Promise<NonNullable<T>>;
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
    /** Faults injected between the scheduler and the store (`h.storage` bypasses them). */
    faults?: Faults;
    /** A store made earlier (by another harness): share it instead of making one. */
    shared?: Storage;
  } = {},
): Promise<Harness> {
  const made = options.shared
    ? { storage: options.shared, dispose: () => Promise.resolve() }
    : await factory(options.storageOptions);
  const { dispose } = made;
  const { storage, inFlight } = tracked(made.storage);
  const clock = new ManualClock(options.startAt ?? T0);
  // Time moves only once the system has finished reacting to the last timer, whatever the
  // backend's latency: no storage call in flight across two macrotask turns.
  clock.quiesce = async () => {
    let quiet = 0;
    for (let turns = 0; quiet < 2; turns++) {
      // A call that never settles would let time move on under it: fail instead.
      if (turns === QUIESCE_TURNS) {
        throw new Error(
          `harness: a storage call is still in flight after ${QUIESCE_TURNS} event-loop turns; ` +
            "time cannot move on while the system is still reacting",
        );
      }
      await settle();
      quiet = inFlight() === 0 ? quiet + 1 : 0;
    }
  };
  const s = new Scheduler({
    storage: options.faults ? faultyStorage(storage, options.faults) : storage,
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
    eventually: (check, message) =>
      eventually(async () => {
        await clock.advance(0);
        return await check();
      }, message),
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

/** Wraps a storage so the harness can tell when none of its calls is in flight. */
function tracked(inner: Storage): { storage: Storage; inFlight: () => number } {
  let pending = 0;
  const storage = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function" || prop === "subscribe") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        pending++;
        return result.finally(() => pending--);
      };
    },
  });
  return { storage, inFlight: () => pending };
}
