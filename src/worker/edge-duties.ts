/**
 * @module edge-duties — the steps of an edge run (edge-run.ts): the duties a resident worker
 * spreads over minutes (promotion, expiry, lease recovery and cascades, a heartbeat, due
 * schedules), each one bounded pass, issued together with the read of when timed work falls
 * due next; and the store as the run's pools see it (claims within its budget).
 */
import type { ClaimParams } from "../storage/params.ts";
import type { Claimed, NextDue } from "../storage/types.ts";
import type { EdgeRunOptions, EdgeStorage } from "./edge-run.ts";
import { expiryWork } from "./expirer.ts";
import type { WorkerPool } from "./pool.ts";
import { promoteWork } from "./promoter.ts";
import { fireOccurrence } from "./schedule-firer.ts";

/** Schedules fired per round; more wait for the next round. */
const FIRE_BATCH = 100;
const RECOVER_BATCH = 1000;

/** The duties of one round and the read of what falls due next, issued in one tick. */
export async function runDuties(
  o: EdgeRunOptions,
  now: number,
  first: boolean,
): Promise<{ due: NextDue; more: boolean }> {
  const { storage } = o;
  const beat = first && o.heartbeatTtlMs !== null ? heartbeat(o, now) : null;
  const [promoted, expired, recovery, due] = await Promise.all([
    promoteWork(storage).pass(now),
    expiryWork(storage).pass(now),
    storage.recoverExpired({ now, limit: RECOVER_BATCH }),
    storage.nextDue(),
    beat,
  ]);
  return { due, more: promoted || expired || recovery.cascadesPending };
}

function heartbeat(o: EdgeRunOptions, now: number): Promise<void> {
  const pools: Record<string, number> = {};
  for (const [name, size] of o.config.pools) pools[name] = size;
  return o.storage.heartbeat({
    info: {
      id: o.workerId,
      host: o.host,
      pid: 0,
      pools,
      types: [...o.handlers.keys()],
      running: 0,
      startedAt: o.startedAt,
      lastSeen: now,
    },
    ttlMs: o.heartbeatTtlMs!,
    now,
  });
}

/**
 * Fires the schedules due at `now` (a batch): `more` when their runs may wait in the pools
 * (or more are due), `failed` when the store refused a firing (the next run tries again).
 */
export async function fireDue(
  o: EdgeRunOptions,
  now: number,
): Promise<{ more: boolean; failed: boolean }> {
  let failed = false;
  const due = await o.storage.dueSchedules({ until: now, limit: FIRE_BATCH }).catch(() => {
    failed = true;
    return [];
  });
  await Promise.all(
    due.map(({ id, nextRunAt }) =>
      fireOccurrence(o.storage, o.clock, id, nextRunAt).catch((error) => {
        failed = true;
        o.logger.warn("schedule firing failed; the next run tries again", {
          id,
          error: (error as Error)?.message,
        });
      })
    ),
  );
  return { more: due.length > 0, failed };
}

/** The earliest of what the store said falls due, this run's own wake-ups and rate limits. */
export function earliest(due: NextDue, wake: number, pools: WorkerPool[]): number | null {
  // recoverExpired takes a lease once `now` has passed it.
  const lease = due.lease === null ? null : due.lease + 1;
  const times = [due.delayed, lease, due.schedule, due.expiry, wake, ...pools.map((p) => p.wakesAt)]
    .filter((t): t is number => t !== null && Number.isFinite(t));
  return times.length ? Math.min(...times) : null;
}

/**
 * `storage` with its claims passed through `claim` (the run's budget and timeout cut), and
 * `settled` called as each settle is issued: the other pools' claims then join its request.
 * A Proxy, since the pools take the whole QueueStore and only these change.
 */
export function gated(
  storage: EdgeStorage,
  hooks: { claim(p: ClaimParams): Promise<Claimed>; settled(): void },
): EdgeStorage {
  const settle = (name: "complete" | "fail") => (p: never) => {
    const result = (storage[name] as (p: never) => Promise<unknown>).call(storage, p);
    hooks.settled();
    return result;
  };
  const wrapped: Record<string, unknown> = {
    claim: hooks.claim,
    complete: settle("complete"),
    fail: settle("fail"),
  };
  return new Proxy(storage, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && prop in wrapped) return wrapped[prop];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
