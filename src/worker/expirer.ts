/**
 * @module expirer — the expiry duty: ends tasks not started by their `expiresAt` (queued in
 * a paused or busy pool, scheduled past it, retrying, waiting on parents), on time, through
 * the timing wheel (due-duty.ts).
 *
 * The store's expiry index is the truth; wheel entries are armed by `expiry` events (whoever
 * submitted or retried the task) and the look-ahead scan. A claim never starts an expired
 * task either, so the duty only matters for tasks no claim reaches in time. Cheap when
 * nothing expires: one indexed range read per scan.
 */
import type { QueueStore } from "../storage/storage.ts";
import { DueDuty, type DueDutyOptions, type DueWork } from "./due-duty.ts";

/** Index entries read per storage call. */
const EXPIRE_BATCH = 1000;

export function expirer(storage: QueueStore, options: DueDutyOptions): DueDuty {
  return new DueDuty(options, expiryWork(storage));
}

/** The expiry duty's work: also run on its own by the edge deliverer (edge-run.ts). */
export function expiryWork(storage: QueueStore): DueWork {
  return {
    name: "expiry",
    scanName: "expiry scan",
    due: async (until, limit, part) =>
      (await storage.dueExpiries({ until, limit, part })).map(({ expiresAt }) => expiresAt),
    pass: async (now, part) => (await storage.expireDue({ now, limit: EXPIRE_BATCH, part })).more,
  };
}
