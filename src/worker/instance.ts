/**
 * @module instance — the running half of a Scheduler: pools, wheel, promoter, expirer,
 * schedule firer, lease keeper, recoverer, heartbeat and the backstop poll, wired to storage
 * events.
 */
import type { Clock } from "../core/clock.ts";
import type { TimingWheel } from "../core/timing-wheel.ts";
import type { PoolLimits } from "../core/pool-limits.ts";
import type { Storage, StorageEvent } from "../storage/storage.ts";
import { LeaseKeeper } from "./lease-keeper.ts";
import { LogFlusher } from "./log-flusher.ts";
import type { Logger, Middleware } from "./middleware.ts";
import { Periodic } from "./periodic.ts";
import { type HandlerEntry, WorkerPool } from "./pool.ts";
import { promoter } from "./promoter.ts";
import { expirer } from "./expirer.ts";
import type { DueDuty } from "./due-duty.ts";
import { ResultStream } from "./results.ts";
import { AbortReason, type Attempt } from "./runner.ts";
import { ScheduleFirer } from "./schedule-firer.ts";

export interface InstanceOptions {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  workerId: string;
  host: string;
  pid: number;
  leaseMs: number;
  tickMs: number;
  lookAheadMs: number;
  /** Promote and expire at each due time itself, not at the tick after it (due-duty.ts). */
  /** Due times to this grid, ms (0: at the wheel's tick); see DueDutyOptions.exactGridMs. */
  exactGridMs: number;
  pollMs: number;
  recoverMs: number;
  heartbeatMs: number;
  pools: Record<string, number>;
  /** Cluster-wide limits to store at start where none is stored yet for the pool. */
  poolLimits: Map<string, PoolLimits>;
  handlers: Map<string, HandlerEntry>;
  middleware: Middleware[];
  wheel: TimingWheel;
}

export class Instance {
  readonly pools = new Map<string, WorkerPool>();
  readonly results = new ResultStream();
  readonly running = new Map<string, Attempt>();
  readonly #o: InstanceOptions;
  readonly #promoter: DueDuty;
  readonly #expirer: DueDuty;
  readonly #firer: ScheduleFirer;
  readonly #leases: LeaseKeeper;
  readonly #logs: LogFlusher;
  readonly #duties: Periodic[];
  readonly #recovery: Periodic;
  #unsubscribe: (() => void) | null = null;
  #startedAt = 0;
  /** Between start() and shutdown(): only then may anything arm a timer. */
  #idleWaiters: (() => void)[] = [];

  constructor(o: InstanceOptions) {
    this.#o = o;
    const { storage, clock, logger, wheel } = o;
    // A partitioned store's duties visit one partition per call (due-duty.ts).
    const parts = storage.partitions ?? 1;
    const due = {
      clock,
      wheel,
      logger,
      tickMs: o.tickMs,
      lookAheadMs: o.lookAheadMs,
      parts,
      exactGridMs: o.exactGridMs,
    };
    this.#promoter = promoter(storage, due);
    this.#expirer = expirer(storage, due);
    this.#firer = new ScheduleFirer({
      storage,
      clock,
      wheel,
      logger,
      lookAheadMs: o.lookAheadMs,
      parts,
    });
    this.#leases = new LeaseKeeper(storage, clock, this.running, o.leaseMs, logger);
    this.#logs = new LogFlusher(storage, clock, this.running, logger);
    this.#recovery = new Periodic(
      "lease recovery",
      o.recoverMs,
      () => this.#recover(),
      clock,
      logger,
    );
    this.#duties = [
      new Periodic("claim poll", o.pollMs, async () => this.#wakeAll(), clock, logger),
      this.#recovery,
      new Periodic("heartbeat", o.heartbeatMs, () => this.#heartbeat(), clock, logger),
    ];
    for (const [name, size] of Object.entries(o.pools)) this.#pool(name, size);
  }

  async start(): Promise<void> {
    const { storage, clock, wheel } = this.#o;
    this.#startedAt = clock.now();
    this.#unsubscribe = storage.subscribe((event) => this.#onEvent(event));
    // Set-if-absent: a limit an operator changed since (API) survives this restart.
    for (const [pool, limits] of this.#o.poolLimits) {
      await storage.setPoolLimits({ pool, limits, ifAbsent: true });
    }
    await this.#refreshControls();
    wheel.start();
    this.#promoter.start();
    this.#expirer.start();
    this.#firer.start();
    this.#leases.start();
    this.#logs.start();
    for (const duty of this.#duties) duty.start();
    for (const pool of this.pools.values()) pool.start();
  }

  async shutdown(timeoutMs: number): Promise<void> {
    const { storage, clock, wheel, workerId } = this.#o;
    for (const pool of this.pools.values()) pool.stop();
    this.#promoter.stop();
    this.#expirer.stop();
    this.#firer.stop();
    for (const duty of this.#duties) duty.stop();
    if (this.running.size > 0 && timeoutMs > 0) await this.#drain(timeoutMs);
    if (this.running.size > 0) {
      // Out of time: stop the handlers and hand their tasks back, attempt not counted.
      const attempts = [...this.running.values()];
      for (const attempt of attempts) {
        attempt.abort(new AbortReason("shutdown", "worker shutting down"));
      }
      // The lines their handlers logged are kept with the tasks.
      const leases = attempts.map((a) => ({ ...a.lease, logs: a.log?.batch() }));
      await storage.release({ leases, now: clock.now() }).catch((error) => {
        // Unreachable store: the leases expire and peers put the tasks back (no retry spent).
        this.#o.logger.error("handing back running tasks at shutdown failed", {
          error: (error as Error)?.message,
        });
      });
    }
    this.#leases.stop();
    this.#logs.stop();
    wheel.stop();
    this.#unsubscribe?.();
    await storage.removeInstance(workerId).catch(() => {});
  }

  /** Resolves when nothing runs, or after `timeoutMs`. */
  #drain(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#o.clock.setTimer(resolve, timeoutMs);
      this.#idleWaiters.push(() => {
        this.#o.clock.clearTimer(timer);
        resolve();
      });
    });
  }

  async setPaused(pool: string | null, paused: boolean): Promise<void> {
    await this.#o.storage.setPaused({ pool, paused });
    await this.#refreshControls();
  }

  async scalePool(pool: string, size: number): Promise<void> {
    await this.#o.storage.setPoolSize({ pool, size });
    await this.#refreshControls();
  }

  async setPoolLimits(pool: string, limits: PoolLimits): Promise<void> {
    await this.#o.storage.setPoolLimits({ pool, limits });
  }

  #pool(name: string, size: number): WorkerPool {
    const pool = new WorkerPool(name, size, {
      ...this.#o,
      running: this.running,
      logs: this.#logs,
      onAttempt: (record) => this.results.publish(record),
      wantsAttempts: (status) => this.results.wants(status),
      onIdle: () => {
        if (this.running.size > 0) return;
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      },
    });
    this.pools.set(name, pool);
    return pool;
  }

  /** Entries on this instance's timing wheel (delayed work and schedules it armed). */
  get timers(): number {
    return this.#o.wheel.size;
  }

  #onEvent(event: StorageEvent): void {
    switch (event.kind) {
      case "ready":
        this.pools.get(event.pool)?.wake();
        break;
      case "delayed":
        this.#promoter.arm(event.runAt, event.part);
        break;
      case "expiry":
        this.#expirer.arm(event.at, event.part);
        break;
      case "schedule":
        this.#firer.arm(event.id, event.nextRunAt);
        break;
      case "cancel":
        this.running.get(event.id)?.abort(new AbortReason("cancelled", "task cancelled"));
        break;
      case "cascade":
        this.#recovery.runNow();
        break;
      case "control":
        this.#refreshControls().catch((error) => {
          this.#o.logger.warn("reading pool controls failed", { error: (error as Error)?.message });
        });
        break;
    }
  }

  /** Applies cluster-wide sizes and pause flags; a pool scaled elsewhere starts here too. */
  async #refreshControls(): Promise<void> {
    const controls = await this.#o.storage.poolControls();
    const globalPause = controls.find((c) => c.pool === "*")?.paused ?? false;
    for (const c of controls) {
      if (c.pool !== "*" && !this.pools.has(c.pool) && c.size !== null) {
        const pool = this.#pool(c.pool, 0);
        if (this.#startedAt) pool.start();
      }
    }
    for (const pool of this.pools.values()) {
      const c = controls.find((x) => x.pool === pool.name);
      pool.sizeOverride = c?.size ?? null;
      pool.paused = globalPause || (c?.paused ?? false);
      pool.wake();
    }
  }

  /** Recovers expired leases; runs again at once while workflow cascades are unfinished. */
  async #recover(): Promise<void> {
    const { storage, clock } = this.#o;
    const { cascadesPending } = await storage.recoverExpired({ now: clock.now(), limit: 1000 });
    if (cascadesPending) clock.setTimer(() => this.#recovery.runNow(), 0);
  }

  #wakeAll(): void {
    for (const pool of this.pools.values()) pool.wake();
  }

  #heartbeat(): Promise<void> {
    const { storage, clock, workerId, host, pid, heartbeatMs } = this.#o;
    const pools: Record<string, number> = {};
    for (const [name, pool] of this.pools) pools[name] = pool.size;
    const now = clock.now();
    return storage.heartbeat({
      info: {
        id: workerId,
        host,
        pid,
        pools,
        // Advertised so submitting nodes can flag a type no live worker handles.
        types: [...this.#o.handlers.keys()],
        running: this.running.size,
        startedAt: this.#startedAt,
        lastSeen: now,
      },
      ttlMs: heartbeatMs * 3,
      now,
    });
  }
}
