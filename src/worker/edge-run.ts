/**
 * @module edge-run — one run of the edge deliverer: what a resident worker's duties and pools
 * do over minutes, done once, inside one bounded invocation (a Durable Object's alarm), then
 * told when to run next. Web-standard: scripts/entry/cloudflare-deliverer.ts runs it in
 * workerd over Redis REST; tests run it on any store.
 *
 * A run: the duties (promote due delayed work, expire, recover expired leases and continue
 * cascades, a heartbeat when asked) and a read of when timed work falls due next
 * (`nextDue`), issued in one tick with the pools' first claims, so over REST they leave as
 * one request in that order; due schedules fired; then the edge's pools (WorkerPool, as a
 * resident worker's) claim, deliver and settle until their queues are drained. A settle
 * wakes every edge pool, so callbacks and workflow children it queued there are claimed in
 * the same request as the next settle. Claims stop once the invocation's wall time
 * (`runMs`, which bounds its CPU time) or its subrequests run short; the run then answers
 * `next = now` and a fresh invocation carries on. No lease keeper: every attempt's timeout
 * is cut to the edge's, below the lease, so a delivery ends while its lease holds, and a
 * killed invocation's tasks come back through lease recovery (the alarm covers it).
 */
import type { Clock } from "../core/clock.ts";
import type { ClaimParams } from "../storage/params.ts";
import type {
  DueTimes,
  EventSource,
  InstanceRegistry,
  QueryStore,
  QueueStore,
  ScheduleStore,
} from "../storage/storage.ts";
import type { Claimed, NextDue, StorageEvent } from "../storage/types.ts";
import { EDGE_RESERVE, type EdgeConfig } from "./edge-config.ts";
import { expiryWork } from "./expirer.ts";
import { LogFlusher } from "./log-flusher.ts";
import type { Logger } from "./middleware.ts";
import { type HandlerEntry, WorkerPool } from "./pool.ts";
import { promoteWork } from "./promoter.ts";
import type { Attempt } from "./runner.ts";
import { fireOccurrence } from "./schedule-firer.ts";

/** The roles a run uses. */
export type EdgeStorage =
  & QueueStore
  & ScheduleStore
  & InstanceRegistry
  & DueTimes
  & Pick<EventSource, "subscribe">
  & Pick<QueryStore, "get">;

/** Schedules fired per round; more wait for the next round. */
const FIRE_BATCH = 100;
const RECOVER_BATCH = 1000;

export interface EdgeRunOptions {
  storage: EdgeStorage;
  clock: Clock;
  logger: Logger;
  /** The deliverer's instance id (leases, history, `GET /workers`). */
  workerId: string;
  host: string;
  config: EdgeConfig;
  /** Handlers by type: `http` and `callback`. */
  handlers: Map<string, HandlerEntry>;
  /** Subrequests this invocation made so far (REST requests and deliveries). */
  spent(): number;
  /** Register in the instance list on this run, for this long; null: not this run. */
  heartbeatTtlMs: number | null;
  /** When the deliverer started (its instance record). */
  startedAt: number;
}

export interface EdgeRunResult {
  /** Tasks this run claimed. */
  claimed: number;
  /** When the next run is due (`now` when this one left work), or null: nothing is due. */
  next: number | null;
  /** The store failed somewhere: run again after a back-off rather than at `next`. */
  failed: boolean;
}

export async function edgeRun(o: EdgeRunOptions): Promise<EdgeRunResult> {
  const { storage, clock, logger, config } = o;
  const deadline = clock.now() + config.runMs;
  let wake = Infinity;
  let claimed = 0;
  let left = false;
  let failed = false;
  // The events of this run's own writes: a retry's new runAt, a fired schedule's next time.
  const off = storage.subscribe((event: StorageEvent) => {
    if (event.kind === "delayed") wake = Math.min(wake, event.runAt);
    else if (event.kind === "expiry") wake = Math.min(wake, event.at);
    else if (event.kind === "schedule") wake = Math.min(wake, event.nextRunAt);
  });
  const running = new Map<string, Attempt>();
  const open = () => clock.now() < deadline && o.spent() + EDGE_RESERVE <= config.subrequests;
  let quiet: (() => void) | null = null;
  const onIdle = () => {
    if (running.size > 0 || pools.some((p) => p.claiming)) return;
    quiet?.();
    quiet = null;
  };
  const drained = () => new Promise<void>((resolve) => (quiet = resolve, onIdle()));
  const wakeAll = () => queueMicrotask(() => pools.forEach((p) => p.wake()));
  const gate = gated(storage, {
    claim: async (p) => {
      if (!open()) {
        left = true;
        return [];
      }
      const tasks = await storage.claim(p).catch((error) => {
        failed = true;
        throw error;
      });
      claimed += tasks.length;
      // A delivery must end while its lease holds: every attempt's timeout is the edge's at most.
      for (const t of tasks) {
        t.timeoutMs = Math.min(t.timeoutMs ?? config.timeoutMs, config.timeoutMs);
      }
      return tasks;
    },
    settled: wakeAll,
  });
  const logs = new LogFlusher(gate, clock, running, logger);
  const pools: WorkerPool[] = [...config.pools].map(([name, size]) =>
    new WorkerPool(name, size, {
      storage: gate,
      clock,
      logger,
      workerId: o.workerId,
      leaseMs: config.leaseMs,
      handlers: o.handlers,
      middleware: [],
      running,
      logs,
      onAttempt: () => {},
      wantsAttempts: () => false,
      onIdle,
    })
  );
  let due: NextDue = { delayed: null, lease: null, schedule: null, expiry: null };
  try {
    for (let round = 0;; round++) {
      const now = clock.now();
      const duties = runDuties(o, now, round === 0);
      for (const pool of pools) {
        if (round === 0) pool.start();
        else pool.wake();
      }
      const done = await duties.catch((error) => {
        logger.warn("edge duties failed", { error: (error as Error)?.message ?? error });
        failed = true;
        return null;
      });
      let more = false;
      if (done) {
        due = done.due;
        more = done.more;
        if (due.schedule !== null && due.schedule <= now) {
          const fired = await fireDue(o, now);
          more ||= fired.more;
          failed ||= fired.failed;
        }
        if (more) { for (const pool of pools) pool.wake(); }
      }
      await drained();
      if (failed || !open()) break;
      const later = earliest(due, wake, pools);
      if (!more && (later === null || later > clock.now())) break;
    }
  } finally {
    for (const pool of pools) pool.stop();
    off();
  }
  const next = left || !open() ? clock.now() : earliest(due, wake, pools);
  return { claimed, next, failed };
}

/** The duties of one round and the read of what falls due next, issued in one tick. */
async function runDuties(
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
async function fireDue(
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
function earliest(due: NextDue, wake: number, pools: WorkerPool[]): number | null {
  // recoverExpired takes a lease once `now` has passed it.
  const lease = due.lease === null ? null : due.lease + 1;
  const times = [due.delayed, lease, due.schedule, due.expiry, wake, ...pools.map((p) => p.wakesAt)]
    .filter((t): t is number => t !== null && Number.isFinite(t));
  return times.length ? Math.min(...times) : null;
}

/**
 * `storage` with its claims passed through `claim` (the run's budget and timeout cut), and
 * `settled` called when a settle is issued: the other pools' claims then join its request.
 * A Proxy, since the pools take the whole QueueStore and only these change.
 */
function gated(
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
