/**
 * @module scheduler — the public `Scheduler`: submit and manage work, run pools of handlers.
 *
 * One instance per process. It owns the hot path (pools, the timing wheel, handlers); the
 * storage owns every fact two instances could disagree about. Without `start()` it is a
 * client only (submit, cancel, inspect), which is what an API-only node uses.
 */
import {
  openTaskEventFeed,
  type TaskEventFeed,
  type TaskEventFeedOptions,
} from "./client/task-event-feed.ts";
import type * as v from "valibot";
import { type Clock, systemClock } from "./core/clock.ts";
import { type FieldIssue, NotFoundError, ValidationError } from "./core/errors.ts";
import { newId, requireName } from "./core/ids.ts";
import { normalise, scheduleSpecIssues, type TaskSpec } from "./core/task-schema.ts";
import type {
  AttemptRecord,
  ResubmittableStatus,
  ScheduleRecord,
  TaskRecord,
} from "./core/task.ts";
import { TimingWheel } from "./core/timing-wheel.ts";
import type { BackoffFn } from "./core/backoff.ts";
import { type Duration, durationMs } from "./core/duration.ts";
import { DEFAULT_MIN_INTERVAL_MS } from "./core/bounds.ts";
import { DEFAULT_CALLBACK_POOL } from "./core/callback.ts";
import type { OutboundPolicy } from "./core/outbound-policy.ts";
import {
  parsePoolLimits,
  type PoolLimits,
  type PoolLimitsSpec,
  type RateLimit,
} from "./core/pool-limits.ts";
import { MemoryStorage } from "./storage/memory/memory-storage.ts";
import type {
  HistoryFilter,
  InstanceInfo,
  LogFilter,
  LogPage,
  Page,
  PageRequest,
  Storage,
  StorageStats,
  TaskFilter,
} from "./storage/storage.ts";
import { consoleLogger, type Handler, type Logger, type Middleware } from "./worker/middleware.ts";
import type { HandlerEntry, WorkerPool } from "./worker/pool.ts";
import { Instance } from "./worker/instance.ts";
import { toSchedule } from "./core/submission.ts";
import { poolExists } from "./client/store-checks.ts";
import { putSchedule, setPaused, trigger } from "./client/schedules.ts";
import { withPoolWaits } from "./client/pool-waits.ts";
import { TypeDirectory } from "./client/type-directory.ts";
import { MAX_SUBMIT_BATCH, type Submitted, Submitter } from "./client/submitter.ts";

export { MAX_SUBMIT_BATCH, type Submitted };

export interface SchedulerOptions {
  /** Where tasks live; defaults to a new embedded {@link MemoryStorage}. */
  storage?: Storage;
  /**
   * Pool name → concurrency on this instance, or {@link PoolOptions} with cluster-wide
   * limits as well. Default `{ default: 10 }`.
   */
  pools?: Record<string, number | PoolOptions>;
  clock?: Clock;
  logger?: Logger;
  /** Lease of a running attempt; renewed every third of it. Default 30 s. */
  leaseMs?: number;
  /** Timing wheel tick. Default 10 ms. */
  tickMs?: number;
  /** How far ahead delayed tasks and schedules are armed on the wheel. Default 60 s. */
  lookAheadMs?: number;
  /**
   * Start a delayed task (and expire one) at its due time rather than at the end of the wheel
   * tick it falls in (up to `tickMs` later): the wheel still holds the far future, a timer
   * takes the last tick. `true` is to the millisecond, a number rounds due times up to a grid
   * of that many ms (1 to `tickMs`), `false` waits for the tick. It costs a promotion pass per
   * grid step with work due instead of per tick, and smaller claim batches: cheap in process,
   * but on a shared store every instance makes those calls (docs/BENCHMARKS.md: about twice
   * Redis's CPU per delayed task at 2,500 due a second). Default `true` (a partitioned store
   * uses the tick).
   */
  exactDue?: boolean | number;
  /**
   * Backstop claim poll, for wake-ups lost while the pub/sub connection was down. Default
   * 5 s: pub/sub wakes pools within milliseconds, and an idle worker should cost about one
   * Redis command a second at most (one poll claims for every pool in one script call).
   */
  pollMs?: number;
  /**
   * How often expired leases of dead peers are recovered, so a dead peer's tasks run again
   * within lease + this. Default a third of the lease, between 1 s and 10 s.
   */
  recoverMs?: number;
  /** Instance heartbeat interval; an instance is listed until 3 missed beats. Default 10 s. */
  heartbeatMs?: number;
  /** This instance's id; default `<host>-<random>`. */
  workerId?: string;
  /**
   * Least `every`, and least gap between two cron occurrences, a submit may ask for; shorter
   * ones are refused (400 naming `every` or `cron`). Default 1 s (`SKEDULR_MIN_INTERVAL`).
   */
  minIntervalMs?: number;
  /**
   * Refuse a submit of a task type no live worker handles (`UnknownTypeError`, HTTP 422
   * `unknown_type`) instead of storing it with a warning. Default false
   * (`SKEDULR_STRICT_TYPES=1`). With no live worker at all, submits are still accepted.
   */
  strictTypes?: boolean;
  /** How old the cached list of the types live workers handle may grow. Default 5 s. */
  typeCacheMs?: number;
  /**
   * The pool the callback tasks of tasks submitted here run in (stored with each task's
   * `callback`). Default `callbacks` (`SKEDULR_CALLBACK_POOL`).
   */
  callbackPool?: string;
  /**
   * What a spec's `callback.url` may call, checked at submit as `http` tasks' URLs are (use
   * the policy of `httpTaskPayloadSchema` and `callbackTaskHandler`). Default: public
   * addresses only (`SKEDULR_HTTP_ALLOW` opens more).
   */
  outboundPolicy?: OutboundPolicy;
  /**
   * A deployment's own rules on specs, checked at submit after the spec's and its payload's
   * own: the issues of a valid spec (paths prefixed `at`), none when it passes. The Worker
   * uses it for the edge deliverer's pools, which run `http` tasks only (SKEDULR_EDGE_POOLS).
   */
  specRules?: (spec: TaskSpec, at: string) => FieldIssue[];
  /**
   * Per task type, the share of its succeeded attempts filed in history (`GET /history` and
   * the task's attempts), 0..1: `{ ping: 0 }` files none, `{ ping: 0.01 }` one in a hundred.
   * For very high-volume types: each entry costs Redis memory and time. Durations (stats),
   * totals and every other attempt (retrying, dead, cancelled, stalled, expired) are always
   * filed. Default 1 for every type (`SKEDULR_HISTORY`, e.g. `ping=0,emails=0.1`).
   */
  history?: Record<string, number>;
  host?: string;
  pid?: number;
}

/**
 * A pool's options: its concurrency on this instance, and cluster-wide limits stored at
 * start only where none is stored yet for the pool (a later `setPoolLimits` survives
 * restarts).
 */
export interface PoolOptions {
  concurrency: number;
  /** Most of the pool's tasks running at once across every instance. */
  globalConcurrency?: number;
  /** Most starts per `per` across every instance, over any window of that length. */
  rateLimit?: { max: number; per: Duration };
}

/** Per-type handler options. */
export interface RegisterOptions {
  /** A back-off computed in code (overrides the task's stored policy). */
  backoff?: BackoffFn;
  /** Default timeout for this type when the task sets none. */
  timeout?: Duration;
  /** A valibot schema the payload must pass at submit (issues are reported as `payload.*`). */
  payloadSchema?: v.GenericSchema;
  /**
   * Share of this type's succeeded attempts filed in history, 0..1 (default: the scheduler's
   * `history` for the type, else 1). See {@link SchedulerOptions.history}.
   */
  history?: number;
}

/** Pool figures in `stats()`. */
export interface PoolStats {
  size: number;
  /** Running across every instance. */
  running: number;
  queued: number;
  /** Of `queued`, those held back by their flow key's limit. */
  parked: number;
  paused: boolean;
  /** The cluster-wide limit on `running`, or null. */
  globalConcurrency: number | null;
  /** The cluster-wide start rate limit, or null. */
  rateLimit: RateLimit | null;
  /** Starts inside the rate limit's current window (0 without one). */
  startsInWindow: number;
}

export interface SchedulerStats extends Omit<StorageStats, "byPool"> {
  pools: Record<string, PoolStats>;
}

/**
 * The scheduler.
 *
 * @example
 * const s = new Scheduler({ pools: { default: 10, critical: 4 } });
 * s.register("send_email", async (payload, ctx) => { await send(payload, ctx.signal); });
 * await s.start();
 * await s.submit({ type: "send_email", payload: { to: "a@b.c" }, pool: "critical", maxRetries: 3 });
 */
export class Scheduler {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly workerId: string;
  readonly #handlers = new Map<string, HandlerEntry>();
  readonly #middleware: Middleware[] = [];
  readonly #payloadSchemas = new Map<string, v.GenericSchema>();
  /** The `history` option: per type, the share of succeeded attempts filed. */
  readonly #historyShares = new Map<string, number>();
  readonly #ownsStorage: boolean;
  readonly #instance: Instance;
  readonly #callbackPool: string;
  readonly #submitter: Submitter;
  #started = false;

  constructor(options: SchedulerOptions = {}) {
    const { sizes, limits } = poolSettings(options.pools ?? { default: 10 });
    const minIntervalMs = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
    if (!(minIntervalMs >= 0)) {
      throw new RangeError(`minIntervalMs: expected 0 ms or more, got ${options.minIntervalMs}`);
    }
    for (const [type, share] of Object.entries(options.history ?? {})) {
      this.#historyShares.set(type, historyShare(share, `history.${type}`));
    }
    this.#ownsStorage = !options.storage;
    this.storage = options.storage ?? new MemoryStorage();
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? consoleLogger();
    const host = options.host ?? "local";
    this.workerId = options.workerId ?? newId(`${host}-`);
    const leaseMs = options.leaseMs ?? 30_000;
    const tickMs = options.tickMs ?? 10;
    this.#instance = new Instance({
      storage: this.storage,
      clock: this.clock,
      logger: this.logger,
      workerId: this.workerId,
      host,
      pid: options.pid ?? 0,
      leaseMs,
      lookAheadMs: options.lookAheadMs ?? 60_000,
      exactGridMs: exactGrid(options.exactDue, tickMs),
      pollMs: options.pollMs ?? 5_000,
      recoverMs: options.recoverMs ?? Math.min(10_000, Math.max(1_000, Math.round(leaseMs / 3))),
      heartbeatMs: options.heartbeatMs ?? 10_000,
      pools: sizes,
      poolLimits: limits,
      handlers: this.#handlers,
      middleware: this.#middleware,
      wheel: new TimingWheel({ tickMs, clock: this.clock, unref: true }),
      tickMs,
    });
    this.#callbackPool = requireName(
      options.callbackPool ?? DEFAULT_CALLBACK_POOL,
      "callbackPool",
      "callback pool",
    );
    this.#submitter = new Submitter({
      storage: this.storage,
      clock: this.clock,
      types: new TypeDirectory({
        storage: this.storage,
        clock: this.clock,
        logger: this.logger,
        // Handlers count without a read only while this instance's pools run them.
        isLocal: (type) => this.#started && this.#handlers.has(type),
        refreshMs: options.typeCacheMs,
      }),
      strictTypes: options.strictTypes ?? false,
      callbackPool: this.#callbackPool,
      minIntervalMs,
      outboundPolicy: options.outboundPolicy,
      payloadSchemas: this.#payloadSchemas,
      specRules: options.specRules,
    });
  }

  /** Registers the handler for a task type (replacing any earlier one). */
  register<P = any>(type: string, handler: Handler<P>, options: RegisterOptions = {}): this {
    this.#handlers.set(type, {
      handler: handler as Handler,
      backoff: options.backoff,
      timeoutMs: options.timeout !== undefined ? durationMs(options.timeout, "timeout") : undefined,
      historyShare: options.history === undefined
        ? this.#historyShares.get(type)
        : historyShare(options.history, "history"),
    });
    if (options.payloadSchema) this.#payloadSchemas.set(type, options.payloadSchema);
    return this;
  }

  /** Adds middleware; the first added is the outermost. */
  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  /**
   * Entries this instance holds on its timing wheel: delayed work and schedule occurrences it
   * armed. Always 0 for a scheduler that only submits (never started).
   */
  get pendingTimers(): number {
    return this.#instance.timers;
  }

  /** Task types with a registered handler. */
  get types(): string[] {
    return [...this.#handlers.keys()];
  }

  /** Starts the pools, the wheel and the background duties. */
  async start(): Promise<void> {
    await this.storage.init();
    await this.#instance.start();
    this.#started = true;
  }

  /**
   * Stops claiming, lets running handlers finish for up to `timeoutMs` (default 30 s), then
   * aborts their signals and hands their tasks back to the queue. Nothing queued is lost.
   */
  async shutdown(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#started = false;
    await this.#instance.shutdown(options.timeoutMs ?? 30_000);
    if (this.#ownsStorage) await this.storage.close();
  }

  /** Submits one task (or creates a schedule for `every`/`cron`); returns its id. */
  async submit(spec: TaskSpec): Promise<string> {
    return (await this.submitMany([spec]))[0].id;
  }

  /**
   * Submits a batch: every spec is validated first (issues are prefixed `[i].`) and the
   * tasks are stored all or none. Parents may be other tasks of the same batch.
   *
   * Retrying is safe: when every spec has a custom id and every id already holds a task with
   * the same spec (a first try stored them, but its answer was lost), the stored tasks are
   * answered with `existing: true` instead of a ConflictError.
   *
   * A spec whose type no live worker handles is stored with `warnings` (see
   * `type-directory.ts`), or refused with an `UnknownTypeError` under `strictTypes`.
   */
  submitMany(specs: unknown[], options: { batch?: boolean } = {}): Promise<Submitted[]> {
    return this.#submitter.submitMany(specs, options);
  }

  /** Submits `spec` to run at `at` (a Date, epoch ms or ISO string). */
  scheduleOnce(spec: TaskSpec, at: Date | number | string): Promise<string> {
    return this.submit({ ...spec, runAt: at instanceof Date ? at.getTime() : at });
  }

  /** Runs `spec` every `every` (e.g. `"30s"`), anchored to the first firing; returns the schedule id. */
  scheduleRecurring(spec: TaskSpec, every: Duration): Promise<string> {
    return this.submit({ ...spec, every });
  }

  /** Runs `spec` on a cron expression, optionally in an IANA time zone; returns the schedule id. */
  scheduleCron(spec: TaskSpec, cron: string, options: { timezone?: string } = {}): Promise<string> {
    return this.submit({
      ...spec,
      cron,
      ...(options.timezone ? { timezone: options.timezone } : {}),
    });
  }

  /**
   * Cancels a task (it never runs; if running, its signal aborts and it ends `cancelled`) or
   * a schedule (no further firings). Throws NotFoundError for an unknown id and
   * ConflictError for a finished task.
   */
  async cancel(
    id: string,
    reason = "cancelled by request",
  ): Promise<{ id: string; status: "cancelled" }> {
    try {
      await this.storage.cancel({ id, reason, now: this.clock.now() });
    } catch (error) {
      if (!(error instanceof NotFoundError) || !(await this.storage.removeSchedule(id))) {
        throw error;
      }
    }
    return { id, status: "cancelled" };
  }

  /** Removes a recurring or cron schedule so it never fires again; false when unknown. */
  removeSchedule(id: string): Promise<boolean> {
    return this.storage.removeSchedule(id);
  }

  /**
   * Queues a dead, cancelled or expired task again under the same id, attempts reset (and
   * its expiry dropped).
   */
  resubmit(id: string): Promise<TaskRecord> {
    return this.storage.resubmit({ id, now: this.clock.now() });
  }

  /** Resubmits every dead (cancelled, expired) task matching the filter; returns how many. */
  resubmitMatching(
    filter: { status: ResubmittableStatus; type?: string; pool?: string },
  ): Promise<number> {
    return this.storage.resubmitMatching({ filter, now: this.clock.now() });
  }

  async get(id: string): Promise<TaskRecord | null> {
    const task = await this.storage.get(id);
    return task && (await withPoolWaits(this.storage, [task], this.clock.now()))[0];
  }

  async list(filter: TaskFilter = {}): Promise<Page<TaskRecord>> {
    const page = await this.storage.list(filter);
    return { ...page, items: await withPoolWaits(this.storage, page.items, this.clock.now()) };
  }

  /**
   * Finished attempts, newest first, filterable by status, type, pool and text; with
   * `taskId`, the attempts of that one task.
   */
  history(filter: HistoryFilter = {}): Promise<Page<AttemptRecord>> {
    return this.storage.history(filter);
  }

  /**
   * A page of task `id`'s `ctx.log` lines, oldest first (`attempt`: only that attempt's),
   * with how many of its lines were dropped (`QueryStore.taskLogs`); null for an unknown id.
   */
  taskLogs(id: string, filter: LogFilter = {}): Promise<LogPage | null> {
    return this.storage.taskLogs(id, filter);
  }

  /**
   * The workflow children of task `id` (the tasks that waited on it), oldest first, a page
   * at a time (`QueryStore.children` in src/storage/storage.ts).
   */
  async children(id: string, page: PageRequest = {}): Promise<Page<TaskRecord>> {
    const found = await this.storage.children(id, page);
    return { ...found, items: await withPoolWaits(this.storage, found.items, this.clock.now()) };
  }

  /** The dead-letter list: dead tasks with their last error. */
  deadLetters(filter: Omit<TaskFilter, "status"> = {}): Promise<Page<TaskRecord>> {
    return this.storage.list({ ...filter, status: "dead" });
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    return this.storage.getSchedule(id);
  }

  /**
   * Creates schedule `id` from a spec with `every` or `cron`, or replaces the one stored
   * under it (`PUT /schedules/:id`): its runs, pause and history stay; an interval schedule
   * given no `runAt` keeps its slots, and no occurrence already fired fires again. Throws
   * ValidationError for a bad spec and ConflictError for an id a task holds.
   */
  async putSchedule(
    id: string,
    spec: unknown,
  ): Promise<{ schedule: ScheduleRecord; created: boolean }> {
    const now = this.clock.now();
    const issues = scheduleSpecIssues(id, spec);
    if (issues.length) throw new ValidationError(issues);
    const withId = { ...(spec as TaskSpec), id };
    const found = this.#submitter.specIssues(withId, "", now);
    if (found.length) throw new ValidationError(found);
    const fresh = toSchedule(normalise(withId, now), now, this.#callbackPool);
    return putSchedule(this.storage, fresh, withId.runAt !== undefined, now);
  }

  /** Pauses schedule `id`: nothing fires until {@link resumeSchedule}. NotFoundError when unknown. */
  pauseSchedule(id: string): Promise<ScheduleRecord> {
    return setPaused(this.storage, id, true, this.clock);
  }

  /**
   * Resumes schedule `id`: occurrences missed while it was paused follow its `catchUp`
   * (none, last: one run, all: each, at most 100). NotFoundError when unknown.
   */
  resumeSchedule(id: string): Promise<ScheduleRecord> {
    return setPaused(this.storage, id, false, this.clock);
  }

  /** Runs schedule `id` once now, outside its cadence; answers the run's task id. */
  triggerSchedule(id: string): Promise<{ id: string }> {
    return trigger(this.storage, id, this.clock);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return this.storage.listSchedules();
  }

  /** Live instances sharing this storage. */
  workers(): Promise<InstanceInfo[]> {
    return this.storage.listInstances(this.clock.now());
  }

  /** Counts by status, per pool, totals and per-type durations. */
  async stats(): Promise<SchedulerStats> {
    const { byPool, ...rest } = await this.storage.stats();
    const controls = await this.storage.poolControls();
    // Maps, not plain objects: pool names are the user's (`constructor` is a fine one).
    const counts = new Map(Object.entries(byPool));
    const pools = new Map<string, PoolStats>();
    const names = new Set([...counts.keys(), ...this.#instance.pools.keys()]);
    for (const c of controls) if (c.pool !== "*") names.add(c.pool);
    const globalPause = controls.find((c) => c.pool === "*")?.paused ?? false;
    const now = this.clock.now();
    for (const name of names) {
      const control = controls.find((c) => c.pool === name);
      const local: WorkerPool | undefined = this.#instance.pools.get(name);
      const rateLimit = control?.rateLimit ?? null;
      pools.set(name, {
        size: control?.size ?? local?.configuredSize ?? 0,
        running: counts.get(name)?.running ?? 0,
        queued: counts.get(name)?.queued ?? 0,
        parked: counts.get(name)?.parked ?? 0,
        paused: globalPause || (control?.paused ?? false),
        globalConcurrency: control?.globalConcurrency ?? null,
        rateLimit,
        startsInWindow: rateLimit
          ? await this.storage.poolStarts({ pool: name, perMs: rateLimit.perMs, now })
          : 0,
      });
    }
    return { ...rest, pools: Object.fromEntries(pools) };
  }

  /** Pauses one pool, or all, across every instance: running work finishes, nothing new starts. */
  pause(pool?: string): Promise<void> {
    return this.#instance.setPaused(pool ?? null, true);
  }

  resume(pool?: string): Promise<void> {
    return this.#instance.setPaused(pool ?? null, false);
  }

  /**
   * Sets a pool's concurrency on every instance, live (shrinking lets running work finish).
   * Pools are made by configuration: a pool no instance runs is a NotFoundError.
   */
  async scalePool(pool: string, size: number): Promise<void> {
    requireName(pool, "pool", "pool size");
    if (!Number.isInteger(size) || size < 0 || size > 10_000) {
      throw new ValidationError([{
        path: "concurrency",
        message: `must be an integer 0..10000, got ${size}`,
      }], "pool size");
    }
    if (!(await poolExists(this.storage, this.#instance.pools, pool, this.clock.now()))) {
      throw new NotFoundError("Pool", pool);
    }
    return this.#instance.scalePool(pool, size);
  }

  /**
   * Sets or removes (null) a pool's cluster-wide limits, live, for every instance:
   * `globalConcurrency` (most running at once) and `rateLimit` (`{ max, per }`: most starts
   * in any window of `per`). A field left out is unchanged. A pool no instance runs is a
   * NotFoundError; a bad value a ValidationError naming the field.
   */
  async setPoolLimits(pool: string, spec: PoolLimitsSpec): Promise<void> {
    requireName(pool, "pool", "pool limits");
    const parsed = parsePoolLimits(spec);
    if ("issues" in parsed) throw new ValidationError(parsed.issues, "pool limits");
    if (!(await poolExists(this.storage, this.#instance.pools, pool, this.clock.now()))) {
      throw new NotFoundError("Pool", pool);
    }
    await this.#instance.setPoolLimits(pool, parsed.limits);
  }

  /**
   * Calls `listener` with every attempt this instance finishes, or with those that end in one
   * of `options.statuses` (attempts no listener wants build no record); returns the
   * unsubscribe function.
   *
   * @example
   * const off = s.onResult((r) => console.warn(r.taskId, r.error), { statuses: ["dead"] });
   */
  onResult(
    listener: (record: AttemptRecord) => void,
    options: { statuses?: readonly AttemptRecord["status"][] } = {},
  ): () => void {
    return this.#instance.results.on(listener, options.statuses);
  }

  /** Finished attempts of this instance as an async iterator, until `signal` aborts. */
  results(signal?: AbortSignal): AsyncGenerator<AttemptRecord> {
    return this.#instance.results.iterate(signal);
  }

  /**
   * Task events of every process (created, started, progress, retrying, stalled, requeued,
   * succeeded, dead, cancelled, expired, resubmitted), in order, each once: after
   * `options.after` (an event id) from the store's buffer first, then live.
   *
   * @example
   * const feed = scheduler.taskEvents({
   *   filter: { kinds: ["dead"] },
   *   onEvents: (events) => events.forEach((e) => console.log(e.id, "died")),
   * });
   * // later: feed.close();
   */
  taskEvents(options: TaskEventFeedOptions): TaskEventFeed {
    return openTaskEventFeed(this.storage, options);
  }
}

/** The `exactDue` option as a grid in ms (0: at the wheel's tick), checked. */
function exactGrid(option: boolean | number | undefined, tickMs: number): number {
  if (option === undefined) return 1;
  if (typeof option === "boolean") return option ? 1 : 0;
  if (!Number.isInteger(option) || option < 1 || option > tickMs) {
    throw new RangeError(
      `exactDue: expected true, false or whole ms from 1 to ${tickMs}, got ${option}`,
    );
  }
  return option;
}

/** A share of attempts filed in history, checked: a number from 0 to 1. */
function historyShare(share: number, field: string): number {
  if (typeof share !== "number" || !(share >= 0 && share <= 1)) {
    throw new RangeError(`${field}: expected a number from 0 to 1, got ${share}`);
  }
  return share;
}

/** The `pools` option as sizes and the cluster-wide limits to store at start. */
function poolSettings(
  pools: Record<string, number | PoolOptions>,
): { sizes: Record<string, number>; limits: Map<string, PoolLimits> } {
  // Pairs, then fromEntries: pool names are the user's, never keys assigned to an object.
  const sizes: [string, number][] = [];
  const limits = new Map<string, PoolLimits>();
  for (const [pool, option] of Object.entries(pools)) {
    requireName(pool, `pools.${pool}`, "pools");
    if (typeof option === "number") {
      sizes.push([pool, option]);
      continue;
    }
    const { concurrency, ...spec } = option;
    sizes.push([pool, concurrency]);
    const parsed = parsePoolLimits(spec);
    if ("issues" in parsed) {
      throw new ValidationError(
        parsed.issues.map((i) => ({ ...i, path: `pools.${pool}.${i.path}` })),
        "pools",
      );
    }
    if (Object.keys(parsed.limits).length) limits.set(pool, parsed.limits);
  }
  return { sizes: Object.fromEntries(sizes), limits };
}
