/**
 * @module pool — one named worker pool: claims up to its free slots in one storage call
 * (per lane, see {@link Lane}), runs each attempt, and settles it (complete, retry or dead).
 *
 * A pool pumps when woken (new work announced, a slot freed, controls changed, the backstop
 * poll, the time its rate limit allows the next start) and never polls in a tight loop. Its
 * size and pause flag are cluster-wide controls read from storage; the configured size is
 * the default. Cluster-wide limits are the store's: a claim takes only what they allow.
 */
import type { Clock } from "../core/clock.ts";
import { isStorageFault, toErrorInfo } from "../core/errors.ts";
import type { AttemptRecord } from "../core/task.ts";
import type { BackoffFn } from "../core/backoff.ts";
import type { Claimed, ClaimedTask, QueryStore, QueueStore } from "../storage/storage.ts";
import { readParents } from "./parents.ts";
import { traced } from "./tracing.ts";
import { compose, type Handler, type Logger, type Middleware } from "./middleware.ts";
import { attemptRecord, type OutcomeDeps, storeOutcome } from "./outcome.ts";
import type { LogFlusher } from "./log-flusher.ts";
import { withRetries } from "./retry.ts";
import { AbortReason, Attempt, type AttemptHost, runAttempt } from "./runner.ts";

/** Pools of this many slots or more claim through two lanes (unless QueueStore.claimLoops is 1). */
const TWO_LANES_FROM = 16;

/** Back-off of a pool's claims while the store cannot answer. */
const CLAIM_RETRY_MIN_MS = 100;
const CLAIM_RETRY_MAX_MS = 5_000;

/**
 * A share of a pool's slots with its own claim loop. A lane claims again when its own
 * attempts end, so while one lane's claim (and its completions) are in Redis, the other's
 * attempts run here: store and worker work at the same time instead of taking turns (1.23x
 * the drain rate of one loop, `npm run bench:e2e`). Two lanes claiming in one tick would
 * share a script call and stay in step, hence the second lane's start a macrotask after the
 * first lane's claim came back full.
 */
interface Lane {
  readonly index: 0 | 1;
  /** Attempts of this lane running now. */
  active: number;
  pumping: boolean;
  again: boolean;
  /** A wake of this lane is queued on a microtask (see WorkerPool.#free). */
  wakeQueued: boolean;
}

const newLane = (index: 0 | 1): Lane => ({
  index,
  active: 0,
  pumping: false,
  again: false,
  wakeQueued: false,
});

/** A registered handler and its per-type options. */
export interface HandlerEntry {
  handler: Handler;
  backoff?: BackoffFn;
  timeoutMs?: number;
  /** Share of succeeded attempts filed in history, 0..1 (default 1: all). */
  historyShare?: number;
}

/** What pools share: the scheduler passes one of these to each. */
export interface PoolDeps {
  /** Transitions, and reads of other tasks (a child's parents). */
  storage: QueueStore & Pick<QueryStore, "get">;
  clock: Clock;
  logger: Logger;
  workerId: string;
  leaseMs: number;
  handlers: Map<string, HandlerEntry>;
  middleware: Middleware[];
  /** Every attempt running in this process, by task id (for cancel and lease renewal). */
  running: Map<string, Attempt>;
  /** Keeps and writes the attempts' `ctx.log` lines. */
  logs: LogFlusher;
  /** Called with each finished attempt this process ran (only while `wantsAttempts(status)`). */
  onAttempt(record: AttemptRecord): void;
  /** False while nobody consumes results of `status`, so such attempts build no record. */
  wantsAttempts(status: AttemptRecord["status"]): boolean;
  /** Called when any slot frees or a claim loop ends, so the scheduler can drain or report. */
  onIdle(): void;
}

export class WorkerPool {
  readonly name: string;
  /** The size this instance was configured with. */
  readonly configuredSize: number;
  /** Cluster-wide override from storage, or null. */
  sizeOverride: number | null = null;
  paused = false;
  readonly #deps: PoolDeps;
  /** Attempts of this pool running now (their slots not freed yet). */
  #active = 0;
  /** Per lane, its queued wake: one function each, not a closure per freed slot. */
  readonly #laneWakes: [() => void, () => void];
  /** What a running attempt's context calls back into (progress, log lines, parents). */
  readonly #host: AttemptHost;
  readonly #lanes: [Lane, Lane] = [newLane(0), newLane(1)];
  #stopped = true;
  /** The wait before the next claim after failed ones; 0 while claims succeed. */
  #claimRetryMs = 0;
  #claimRetry: unknown;
  /** The wake-up armed for when the rate limit allows the next start (Infinity: none). */
  #heldUntil = Infinity;
  #heldTimer: unknown;
  /** The earliest wake-up asked for past the armed one: armed when that one fires. */
  #heldLater = Infinity;
  readonly #outcomes: OutcomeDeps;
  /** Who claims: the same for every claim of this pool. */
  readonly #owner: { workerId: string; leaseMs: number };

  constructor(name: string, size: number, deps: PoolDeps) {
    this.name = name;
    this.configuredSize = size;
    this.#deps = deps;
    this.#outcomes = {
      ...deps,
      report: (task, attempt, status, error, endedAt) => {
        if (!deps.wantsAttempts(status)) return;
        deps.onAttempt(attemptRecord(task, attempt, status, error, endedAt));
      },
    };
    const wakeLater = (lane: Lane) => () => {
      lane.wakeQueued = false;
      this.#wakeLane(lane);
    };
    this.#laneWakes = [wakeLater(this.#lanes[0]), wakeLater(this.#lanes[1])];
    this.#host = attemptHost(deps);
    this.#owner = { workerId: deps.workerId, leaseMs: deps.leaseMs };
  }

  get size(): number {
    return this.sizeOverride ?? this.configuredSize;
  }

  /** Attempts running in this pool now. */
  get active(): number {
    return this.#active;
  }

  /** True while a claim loop runs (a claim may be in flight). */
  get claiming(): boolean {
    return this.#lanes[0].pumping || this.#lanes[1].pumping;
  }

  /** When the pool's armed rate-limit wake-up fires (Infinity: none armed). */
  get wakesAt(): number {
    return this.#heldUntil;
  }

  start(): void {
    this.#stopped = false;
    this.wake();
  }

  /** Stops claiming; running attempts carry on. */
  stop(): void {
    this.#stopped = true;
    if (this.#claimRetry !== undefined) this.#deps.clock.clearTimer(this.#claimRetry);
    this.#claimRetry = undefined;
    if (this.#heldTimer !== undefined) this.#deps.clock.clearTimer(this.#heldTimer);
    this.#heldTimer = undefined;
    this.#heldUntil = Infinity;
    this.#heldLater = Infinity;
  }

  /**
   * Wakes the pool at `at`, when its rate limit (or a flow key's) allows the next start: no
   * event announces that moment. One timer per pool; a later time asked for meanwhile is
   * kept and armed when it fires, since the earlier wake's claim may not answer it again
   * (another claim drew the tokens it was for).
   */
  #wakeAt(at: number): void {
    const { clock } = this.#deps;
    if (this.#stopped || at === this.#heldUntil) return;
    if (at > this.#heldUntil) {
      this.#heldLater = Math.min(this.#heldLater, at);
      return;
    }
    if (this.#heldTimer !== undefined) {
      clock.clearTimer(this.#heldTimer);
      this.#heldLater = Math.min(this.#heldLater, this.#heldUntil);
    }
    this.#heldUntil = at;
    this.#heldTimer = clock.setTimer(() => {
      this.#heldTimer = undefined;
      this.#heldUntil = Infinity;
      const later = this.#heldLater;
      this.#heldLater = Infinity;
      if (later !== Infinity) this.#wakeAt(later);
      this.wake();
    }, Math.max(0, at - clock.now()));
  }

  /**
   * Claims while there are free slots and work. The second lane follows the first (see
   * {@link Lane}); it is woken here only when the first has no slot to claim with.
   */
  wake(): void {
    if (this.#stopped || this.paused || this.#claimRetry !== undefined) return;
    const first = this.#lanes[0];
    if (this.#slots(first) - first.active > 0) this.#wakeLane(first);
    else this.#follow();
  }

  /**
   * Wakes the second lane a macrotask from now, so its claim never shares a round trip with
   * the first lane's. Called when the first lane found more work than it could take: an
   * empty queue (an idle poll) costs one claim, not one per lane.
   */
  #follow(): void {
    const second = this.#lanes[1];
    if (this.#slots(second) - second.active <= 0) return;
    // A claim in flight may have been read before the work this wake announces: once more.
    if (second.pumping) second.again = true;
    else setTimeout(() => this.#wakeLane(second), 0);
  }

  /** This lane's share of the pool's slots. */
  #slots(lane: Lane): number {
    const size = Math.max(0, this.size);
    if (size < TWO_LANES_FROM || this.#deps.storage.claimLoops === 1) {
      return lane.index === 0 ? size : 0;
    }
    return lane.index === 0 ? Math.ceil(size / 2) : Math.floor(size / 2);
  }

  /** Runs the lane's claim loop unless it is running; then it runs once more after. */
  #wakeLane(lane: Lane): void {
    if (this.#stopped || this.paused) return;
    if (lane.pumping) {
      lane.again = true;
      return;
    }
    lane.pumping = true;
    this.#pump(lane).catch((error) => {
      this.#deps.logger.error("claim failed", {
        pool: this.name,
        error: toErrorInfo(error).message,
      });
    }).finally(() => {
      lane.pumping = false;
      if (lane.again) {
        lane.again = false;
        this.#wakeLane(lane);
      } else this.#deps.onIdle();
    });
  }

  async #pump(lane: Lane): Promise<void> {
    const { storage, clock, workerId } = this.#deps;
    const owner = this.#owner;
    while (!this.#stopped && !this.paused) {
      const free = this.#slots(lane) - lane.active;
      if (free <= 0) return;
      const claimedAt = clock.now();
      let tasks: Claimed;
      try {
        tasks = await storage.claim({ pool: this.name, max: free, owner, now: claimedAt });
      } catch (error) {
        this.#claimFailed(error, claimedAt);
        return;
      }
      if (this.#claimRetryMs > 0) {
        this.#claimRetryMs = 0;
        this.#deps.logger.info("claims work again", { pool: this.name });
      }
      if (this.#stopped) {
        // Claimed while stopping: hand them straight back.
        const leases = tasks.map((t) => ({ id: t.id, workerId, token: t.token }));
        await storage.release({ leases, now: clock.now() }).catch(() => {});
        return;
      }
      for (const task of tasks) this.#start(task, lane, claimedAt);
      if (tasks.heldUntil !== undefined) this.#wakeAt(tasks.heldUntil);
      if (tasks.length < free) return;
      if (lane.index === 0) this.#follow();
    }
  }

  /**
   * A claim the store did not answer may still have run (its reply lost): hand back what it
   * took, once the store answers again, and claim again after a back-off.
   */
  #claimFailed(error: unknown, claimedAt: number): void {
    const { storage, clock, logger, workerId, leaseMs } = this.#deps;
    const first = this.#claimRetryMs === 0;
    this.#claimRetryMs = first
      ? CLAIM_RETRY_MIN_MS
      : Math.min(CLAIM_RETRY_MAX_MS, this.#claimRetryMs * 2);
    if (first) logger.error("claim failed", { pool: this.name, error: toErrorInfo(error).message });
    if (isStorageFault(error)) {
      withRetries(
        () =>
          storage.releaseClaim({
            pool: this.name,
            owner: { workerId, leaseMs },
            claimedAt,
            keep: [...this.#deps.running.keys()],
            now: clock.now(),
          }),
        {
          clock,
          logger,
          what: `handing back a lost claim of pool ${this.name}`,
          until: () => claimedAt + leaseMs,
        },
      ).catch((e) =>
        logger.error("handing back a lost claim failed", { error: toErrorInfo(e).message })
      );
    }
    if (this.#stopped || this.#claimRetry !== undefined) return;
    this.#claimRetry = clock.setTimer(() => {
      this.#claimRetry = undefined;
      this.wake();
    }, this.#claimRetryMs);
  }

  #start(task: ClaimedTask, lane: Lane, claimedAt: number): void {
    const { workerId, leaseMs, running } = this.#deps;
    const attempt = new Attempt({ id: task.id, workerId, token: task.token }, claimedAt + leaseMs);
    this.#active++;
    lane.active++;
    // An older attempt of this task still running here lost its lease: this claim owns it now.
    running.get(task.id)?.abort(new AbortReason("lease-lost", "claimed again"));
    running.set(task.id, attempt);
    void this.#run(task, attempt, lane);
  }

  /**
   * Frees the attempt's slot (once): when its handler ends, before its outcome is stored, so
   * the next claim travels with the completion (one round trip per batch, not two). The
   * attempt stays in `running` (lease renewal, drain) until storage has its outcome.
   */
  #free(attempt: Attempt, lane: Lane): void {
    if (attempt.slotFreed) return;
    attempt.slotFreed = true;
    this.#active--;
    lane.active--;
    // Attempts of one claim batch end together, a microtask apart: waking on a microtask lets
    // all of them free their slots first, so the lane claims them back in one call instead
    // of a claim of 1 and one of the rest, batch after batch. One wake queued per lane.
    if (lane.wakeQueued) return;
    lane.wakeQueued = true;
    queueMicrotask(this.#laneWakes[lane.index]);
  }

  async #run(task: ClaimedTask, attempt: Attempt, lane: Lane): Promise<void> {
    const { clock, logger, running } = this.#deps;
    try {
      const entry = this.#deps.handlers.get(task.type);
      const middleware = this.#deps.middleware;
      const handler: Handler = traced(
        task,
        !entry
          ? () => {
            throw new Error(`No handler registered for task type "${task.type}"`);
          }
          : middleware.length
          ? compose(middleware, entry.handler)
          : entry.handler,
      );
      const outcome = await runAttempt({
        task,
        handler,
        attempt,
        timeoutMs: task.timeoutMs ?? entry?.timeoutMs ?? null,
        clock,
        logger,
        host: this.#host,
      });
      attempt.ended = true;
      this.#free(attempt, lane);
      await storeOutcome(this.#outcomes, task, attempt, outcome, entry, clock.now());
    } catch (error) {
      logger.error("settling an attempt failed", {
        id: task.id,
        error: toErrorInfo(error).message,
      });
    } finally {
      this.#free(attempt, lane);
      // A newer claim of the same task (after this one's lease was lost) keeps its entry.
      if (running.get(task.id) === attempt) running.delete(task.id);
      this.#deps.onIdle();
    }
  }
}

/** How an attempt's context reaches the store and the log flusher: one object per pool. */
function attemptHost(deps: PoolDeps): AttemptHost {
  const { storage, clock, logger } = deps;
  return {
    // Progress is best effort: kept trying while the lease holds, never failing the handler.
    async progress(attempt, task, pct) {
      await withRetries(
        () => storage.setProgress({ lease: attempt.lease, progress: pct, now: clock.now() }),
        { clock, logger, what: `progress of task ${task.id}`, until: () => attempt.leaseUntil },
      );
    },
    log: (attempt, task, message, fields) => deps.logs.log(attempt, task.attempt, message, fields),
    // A store that cannot answer is retried while the lease holds, as for progress.
    async parents(attempt, task) {
      const read = () => readParents(task, (id) => storage.get(id));
      const found = await withRetries(read, {
        clock,
        logger,
        what: `parents of task ${task.id}`,
        until: () => attempt.leaseUntil,
      });
      if (!found) throw new Error(`could not read the parents of task ${task.id}`);
      return found;
    },
  };
}

export { AbortReason };
