/**
 * @module pool — one named worker pool: claims up to its free slots in one storage call
 * (per lane, see {@link Lane}), runs each attempt, and settles it (complete, retry or dead).
 *
 * A pool pumps when woken (new work announced, a slot freed, controls changed, the backstop
 * poll) and never polls in a tight loop. Its size and pause flag are cluster-wide controls
 * read from storage; the configured size is the default.
 */
import type { Clock } from "../core/clock.ts";
import { toErrorInfo } from "../core/errors.ts";
import type { AttemptRecord, TaskRecord } from "../core/task.ts";
import { backoffDelay, type BackoffFn } from "../core/backoff.ts";
import type { Storage, StorageEvent } from "../storage/storage.ts";
import { compose, type Handler, type Logger, type Middleware } from "./middleware.ts";
import { AbortReason, Attempt, runAttempt } from "./runner.ts";

/** Pools of this many slots or more claim through two lanes. */
const TWO_LANES_FROM = 16;

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
}

const newLane = (index: 0 | 1): Lane => ({ index, active: 0, pumping: false, again: false });

/** A registered handler and its per-type options. */
export interface HandlerEntry {
  handler: Handler;
  backoff?: BackoffFn;
  timeoutMs?: number;
}

/** What pools share: the scheduler passes one of these to each. */
export interface PoolDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  workerId: string;
  leaseMs: number;
  handlers: Map<string, HandlerEntry>;
  middleware: Middleware[];
  /** Every attempt running in this process, by task id (for cancel and lease renewal). */
  running: Map<string, Attempt>;
  /** Called with each finished attempt this process ran (only while `wantsAttempts()`). */
  onAttempt(record: AttemptRecord): void;
  /** False while nobody consumes results, so attempts build no record. */
  wantsAttempts(): boolean;
  /** Reacts locally to a change this pool made (e.g. arms the wheel for a retry). */
  notify(event: StorageEvent): void;
  /** Called when any slot frees, so the scheduler can drain or report. */
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
  readonly #active = new Set<string>();
  readonly #lanes: [Lane, Lane] = [newLane(0), newLane(1)];
  #stopped = true;

  constructor(name: string, size: number, deps: PoolDeps) {
    this.name = name;
    this.configuredSize = size;
    this.#deps = deps;
  }

  get size(): number {
    return this.sizeOverride ?? this.configuredSize;
  }

  /** Attempts running in this pool now. */
  get active(): number {
    return this.#active.size;
  }

  start(): void {
    this.#stopped = false;
    this.wake();
  }

  /** Stops claiming; running attempts carry on. */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Claims while there are free slots and work. The second lane follows the first (see
   * {@link Lane}); it is woken here only when the first has no slot to claim with.
   */
  wake(): void {
    if (this.#stopped || this.paused) return;
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
    if (this.#slots(second) - second.active <= 0 || second.pumping) return;
    setTimeout(() => this.#wakeLane(second), 0);
  }

  /** This lane's share of the pool's slots. */
  #slots(lane: Lane): number {
    const size = Math.max(0, this.size);
    if (size < TWO_LANES_FROM) return lane.index === 0 ? size : 0;
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
      }
    });
  }

  async #pump(lane: Lane): Promise<void> {
    const { storage, clock, workerId, leaseMs } = this.#deps;
    while (!this.#stopped && !this.paused) {
      const free = this.#slots(lane) - lane.active;
      if (free <= 0) return;
      const tasks = await storage.claim(this.name, free, { workerId, leaseMs }, clock.now());
      if (this.#stopped) {
        // Claimed while stopping: hand them straight back.
        await storage.release(tasks.map((t) => t.id), workerId, clock.now());
        return;
      }
      for (const task of tasks) this.#start(task, lane);
      if (tasks.length < free) return;
      if (lane.index === 0) this.#follow();
    }
  }

  #start(task: TaskRecord, lane: Lane): void {
    const attempt = new Attempt();
    this.#active.add(task.id);
    lane.active++;
    this.#deps.running.set(task.id, attempt);
    // The slot frees when the handler ends, before its outcome is stored: the next claim then
    // travels with the completion (one round trip per batch, not two). The attempt stays in
    // `running` (lease renewal, drain) until storage has its outcome.
    const freeSlot = () => {
      if (!this.#active.delete(task.id)) return;
      lane.active--;
      // Attempts of one claim batch end together, a microtask apart: waking on the next
      // microtask lets all of them free their slots first, so the lane claims them back in
      // one call instead of a claim of 1 and one of the rest, batch after batch.
      queueMicrotask(() => this.#wakeLane(lane));
    };
    this.#run(task, attempt, freeSlot).catch((error) => {
      this.#deps.logger.error("settling an attempt failed", {
        id: task.id,
        error: toErrorInfo(error).message,
      });
    }).finally(() => {
      freeSlot();
      this.#deps.running.delete(task.id);
      this.#deps.onIdle();
    });
  }

  #report(
    record: (status: AttemptRecord["status"], error: unknown) => AttemptRecord,
    status: AttemptRecord["status"],
    error: unknown,
  ): void {
    if (this.#deps.wantsAttempts()) this.#deps.onAttempt(record(status, error));
  }

  async #run(task: TaskRecord, attempt: Attempt, ended: () => void): Promise<void> {
    const { storage, clock, workerId, logger } = this.#deps;
    const entry = this.#deps.handlers.get(task.type);
    const handler: Handler = entry ? compose(this.#deps.middleware, entry.handler) : () => {
      throw new Error(`No handler registered for task type "${task.type}"`);
    };
    const outcome = await runAttempt({
      task,
      handler,
      attempt,
      timeoutMs: task.timeoutMs ?? entry?.timeoutMs ?? null,
      clock,
      logger,
      progress: async (pct) => {
        await storage.setProgress(task.id, workerId, pct);
      },
    });
    ended();
    const now = clock.now();
    const record = (status: AttemptRecord["status"], error: unknown): AttemptRecord => ({
      taskId: task.id,
      type: task.type,
      pool: task.pool,
      attempt: task.attempt,
      status,
      error: error === null ? null : toErrorInfo(error),
      startedAt: task.startedAt ?? now,
      finishedAt: now,
      durationMs: Math.max(0, now - (task.startedAt ?? now)),
      workerId,
    });
    if (outcome.ok) {
      if (await storage.complete(task.id, workerId, outcome.result, now)) {
        this.#report(record, "succeeded", null);
      }
      return;
    }
    const kind = outcome.aborted?.kind;
    if (kind === "cancelled" || kind === "lease-lost" || kind === "shutdown") {
      // Storage already decided (cancelled, recovered elsewhere, or handed back at shutdown).
      if (kind === "cancelled") this.#report(record, "cancelled", outcome.error);
      return;
    }
    const error = toErrorInfo(outcome.error);
    let retryAt: number | null = null;
    if (task.attempt < task.maxRetries + 1) {
      const delay = entry?.backoff
        ? entry.backoff(task.attempt, outcome.error)
        : backoffDelay(task.backoff, task.attempt);
      retryAt = now + Math.max(0, delay);
    }
    const status = await storage.fail(task.id, workerId, error, retryAt, now);
    if (status === "retrying") this.#deps.notify({ kind: "delayed", id: task.id, runAt: retryAt! });
    if (status) this.#report(record, status, outcome.error);
  }
}

export { AbortReason };
