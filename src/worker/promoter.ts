/**
 * @module promoter — moves due delayed tasks (delay, runAt, retry back-off, a rate-parked
 * flow key's wake) to their ready queues through the timing wheel (due-duty.ts).
 *
 * The delayed set in storage is the truth; the wheel is this process's hot cache of it,
 * one entry per due tick rather than per task: 100k tasks due within 10 s cost at most one
 * wheel entry per 10 ms tick. Entries come from `delayed` events (whoever submitted) and the
 * look-ahead scan. Promotion is one atomic storage call, so each task is promoted exactly
 * once however many instances fire for the same tick.
 */
import type { QueueStore } from "../storage/storage.ts";
import { DueDuty, type DueDutyOptions, type DueWork } from "./due-duty.ts";

const PROMOTE_BATCH = 1000;

export function promoter(storage: QueueStore, options: DueDutyOptions): DueDuty {
  return new DueDuty(options, promoteWork(storage));
}

/** The promoter's work: also run on its own by the edge deliverer (edge-run.ts). */
export function promoteWork(storage: QueueStore): DueWork {
  return {
    name: "promote",
    scanName: "look-ahead scan",
    due: async (until, limit, part) =>
      (await storage.dueDelayed({ until, limit, part })).map(({ runAt }) => runAt),
    pass: async (now, part) =>
      await storage.promoteDue({ now, limit: PROMOTE_BATCH, part }) === PROMOTE_BATCH,
  };
}
