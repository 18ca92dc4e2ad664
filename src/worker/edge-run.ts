/**
 * @module edge-run — one run of the edge deliverer: what a resident worker's duties and pools
 * do over minutes, done once, inside one bounded invocation (a Durable Object's alarm), then
 * told when to run next. Web-standard: scripts/entry/cloudflare-deliverer.ts runs it in
 * workerd over Redis REST; tests run it on any store.
 *
 * A run is made of rounds. A round: the duties (promote due delayed work, expire, recover
 * expired leases and continue cascades, a heartbeat on the first) and a read of when timed
 * work falls due next (`nextDue`), issued in one tick with the pools' claims, so over REST
 * they leave as one request in that order (edge-duties.ts); due schedules fired. The edge's
 * pools (WorkerPool, as a resident worker's) claim, deliver and settle until their queues
 * are drained; a settle wakes every edge pool, so callbacks and workflow children it queued
 * there are claimed in the same request as the next settle. While deliveries are in flight,
 * a timer starts the next round when the next work falls due, so a task due during a slow
 * delivery is not held up by it; once drained, the run ends and answers when the next run is
 * due (the alarm), unless something is due already. Claims stop once the invocation's wall time
 * (`runMs`, which bounds its CPU time) or its subrequests run short; the run then answers
 * `next = now` and a fresh invocation carries on. No lease keeper: every attempt's timeout
 * is cut to the edge's, below the lease, so a delivery ends while its lease holds, and a
 * killed invocation's tasks come back through lease recovery (the alarm covers it).
 */
import type { Clock } from "../core/clock.ts";
import type {
  DueTimes,
  EventSource,
  InstanceRegistry,
  QueryStore,
  QueueStore,
  ScheduleStore,
} from "../storage/storage.ts";
import type { NextDue, StorageEvent } from "../storage/types.ts";
import { EDGE_RESERVE, type EdgeConfig } from "./edge-config.ts";
import { earliest, fireDue, gated, runDuties } from "./edge-duties.ts";
import { LogFlusher } from "./log-flusher.ts";
import type { Logger } from "./middleware.ts";
import { type HandlerEntry, WorkerPool } from "./pool.ts";
import type { Attempt } from "./runner.ts";

/** The roles a run uses. */
export type EdgeStorage =
  & QueueStore
  & ScheduleStore
  & InstanceRegistry
  & DueTimes
  & Pick<EventSource, "subscribe">
  & Pick<QueryStore, "get">;

/** Rounds one run starts at most: a bound should something stay due that no round clears. */
const MAX_ROUNDS = 1000;

export interface EdgeRunOptions {
  /**
   * Its calls must leave in the order they are issued, as over one pipelined connection: a
   * claim issued after a settle then sees the callbacks and children the settle queued
   * (RedisStorage: call `prepare()` first, so no script waits to be hashed).
   */
  storage: EdgeStorage;
  /**
   * How many script calls the store had to send again in full so far (NOSCRIPT, then EVAL:
   * RedisStorage's `scriptReloads()`); a change makes the run claim once more before it ends.
   */
  reloads?(): number;
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
  /**
   * When the work this run was woken for falls due, if it was woken early (an alarm armed a
   * little ahead, so its own dispatch and set-up do not make the delivery late): the first
   * round waits for it.
   */
  firstAt?: number;
}

export interface EdgeRunResult {
  /** Tasks this run claimed. */
  claimed: number;
  /** When the next run is due (`now` when this one left work), or null: nothing is due. */
  next: number | null;
  /** The store failed somewhere: run again after a back-off rather than at `next`. */
  failed: boolean;
}

export function edgeRun(o: EdgeRunOptions): Promise<EdgeRunResult> {
  return new EdgeRun(o).run();
}

class EdgeRun {
  readonly #o: EdgeRunOptions;
  readonly #deadline: number;
  readonly #running = new Map<string, Attempt>();
  readonly #pools: WorkerPool[];
  #due: NextDue = { delayed: null, lease: null, schedule: null, expiry: null };
  /** The earliest time this run's own writes made due (a retry's runAt, a schedule's next). */
  #wake = Infinity;
  #claimed = 0;
  /** A claim was refused for the budget: a fresh invocation goes on at once. */
  #left = false;
  #failed = false;
  #rounds = 0;
  #busy = false;
  #again = false;
  #timer: unknown;
  /** The run has ended: nothing starts a round or a timer any more. */
  #done = false;
  #finish: () => void = () => {};
  /** The store's script reloads when the run last claimed for them (see `reloads`). */
  #reloads = 0;

  constructor(o: EdgeRunOptions) {
    this.#o = o;
    this.#reloads = o.reloads?.() ?? 0;
    this.#deadline = o.clock.now() + o.config.runMs;
    const gate = gated(o.storage, {
      claim: async (p) => {
        if (!this.#open()) {
          this.#left = true;
          return [];
        }
        const tasks = await o.storage.claim(p).catch((error) => {
          this.#failed = true;
          throw error;
        });
        this.#claimed += tasks.length;
        // A delivery must end while its lease holds: each attempt's timeout is the edge's at most.
        const cut = o.config.timeoutMs;
        for (const t of tasks) t.timeoutMs = Math.min(t.timeoutMs ?? cut, cut);
        return tasks;
      },
      settled: () => {
        // A pool with a claim in flight needs no wake: its claim was issued after the settle.
        queueMicrotask(() => this.#pools.forEach((p) => p.claiming || p.wake()));
      },
    });
    const logs = new LogFlusher(gate, o.clock, this.#running, o.logger);
    this.#pools = [...o.config.pools].map(([name, size]) =>
      new WorkerPool(name, size, {
        storage: gate,
        clock: o.clock,
        logger: o.logger,
        workerId: o.workerId,
        leaseMs: o.config.leaseMs,
        handlers: o.handlers,
        middleware: [],
        running: this.#running,
        logs,
        onAttempt: () => {},
        wantsAttempts: () => false,
        onIdle: () => this.#settle(),
      })
    );
  }

  async run(): Promise<EdgeRunResult> {
    const { storage, clock } = this.#o;
    // The events of this run's own writes: a retry's new runAt, a fired schedule's next time.
    const off = storage.subscribe((event: StorageEvent) => {
      const at = event.kind === "delayed"
        ? event.runAt
        : event.kind === "expiry"
        ? event.at
        : event.kind === "schedule"
        ? event.nextRunAt
        : Infinity;
      if (at < this.#wake) {
        this.#wake = at;
        this.#arm();
      }
    });
    const finished = new Promise<void>((resolve) => {
      this.#finish = () => {
        this.#done = true;
        resolve();
      };
    });
    const wait = (this.#o.firstAt ?? 0) - clock.now();
    if (wait > 0) {
      this.#timer = clock.setTimer(() => {
        this.#timer = undefined;
        this.#round();
      }, wait);
    } else this.#round();
    try {
      await finished;
    } finally {
      if (this.#timer !== undefined) clock.clearTimer(this.#timer);
      for (const pool of this.#pools) pool.stop();
      off();
    }
    const next = this.#left || !this.#open() || this.#rounds >= MAX_ROUNDS
      ? clock.now()
      : this.#next();
    return { claimed: this.#claimed, next, failed: this.#failed };
  }

  #open(): boolean {
    const { clock, config, spent } = this.#o;
    return !this.#failed && clock.now() < this.#deadline &&
      spent() + EDGE_RESERVE <= config.subrequests;
  }

  #next(): number | null {
    return earliest(this.#due, this.#wake, this.#pools);
  }

  /** Starts a round (or one more after the one in progress). */
  #round(): void {
    if (this.#done) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    const { clock, logger } = this.#o;
    const first = this.#rounds++ === 0;
    this.#busy = true;
    this.#again = false;
    const now = clock.now();
    const duties = runDuties(this.#o, now, first);
    for (const pool of this.#pools) {
      if (first) pool.start();
      else pool.wake();
    }
    duties.then(async ({ due, more }) => {
      this.#due = due;
      if (due.schedule !== null && due.schedule <= now) {
        const fired = await fireDue(this.#o, now);
        more ||= fired.more;
        this.#failed ||= fired.failed;
      }
      if (more) this.#again = true;
    }, (error) => {
      logger.warn("edge duties failed", { error: (error as Error)?.message ?? error });
      this.#failed = true;
    }).finally(() => {
      this.#busy = false;
      if (this.#again && this.#open() && this.#rounds < MAX_ROUNDS) this.#round();
      else {
        this.#arm();
        this.#settle();
      }
    });
  }

  /** While deliveries are in flight, a round starts when the next work falls due. */
  #arm(): void {
    const { clock } = this.#o;
    if (this.#timer !== undefined) clock.clearTimer(this.#timer);
    this.#timer = undefined;
    const at = this.#next();
    if (this.#done || at === null || at >= this.#deadline || !this.#open()) return;
    this.#timer = clock.setTimer(() => {
      this.#timer = undefined;
      this.#round();
    }, Math.max(0, at - clock.now()));
  }

  /** Called whenever a slot frees or a claim loop ends: ends the run once all is drained. */
  #settle(): void {
    if (this.#done || this.#busy || this.#running.size > 0 || this.#pools.some((p) => p.claiming)) {
      return;
    }
    // A call the store had to send again in full (NOSCRIPT, then EVAL) ran after the calls
    // issued behind it: a settle may have queued work that the claims after it missed.
    const reloads = this.#o.reloads?.() ?? 0;
    if (reloads !== this.#reloads && this.#open()) {
      this.#reloads = reloads;
      for (const pool of this.#pools) pool.wake();
      return;
    }
    const at = this.#next();
    if (at !== null && at <= this.#o.clock.now() && this.#open() && this.#rounds < MAX_ROUNDS) {
      this.#round();
      return;
    }
    this.#finish();
  }
}
