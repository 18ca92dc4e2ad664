/**
 * @module redis-storage — the Storage contract on Redis: every transition one Lua script.
 *
 * Any number of instances share one Redis; no lock is ever held from TypeScript. The
 * behaviour mirrors the embedded store (src/storage/memory/) transition for transition, and
 * the conformance suite runs against both. Claims are batched (one script call claims up to
 * the free slots); claims, completions and failures issued in the same tick share one script
 * call each.
 *
 * Events: a write delivers its own events to this store's listeners at once (queue.ts says
 * which); the events of other instances arrive over pub/sub (events.ts).
 */
import type { AttemptRecord, ScheduleRecord, TaskRecord } from "../../core/task.ts";
import type * as P from "../params.ts";
import { QueueForwarder } from "../queue-forwarder.ts";
import type { StatsWithSamples } from "../stats.ts";
import type { Storage } from "../storage.ts";
import type {
  FireResult,
  HistoryFilter,
  HistoryRetention,
  InstanceInfo,
  LogFilter,
  LogPage,
  NextDue,
  Page,
  PageRequest,
  PoolControl,
  PutScheduleResult,
  RateLimitResult,
  StorageEvent,
  StorageStats,
  TaskEventListener,
  TaskEventPage,
  TaskEventSubscription,
  TaskFilter,
} from "../types.ts";
import { decodeTask } from "./codec.ts";
import { RedisContext } from "./context.ts";
import { EventHub } from "./events.ts";
import { EVENTS_OFF_FIELD, TaskEventHub } from "./task-events.ts";
import { keyPrefix, keys } from "./keys.ts";
import { checkLayout, ensureLayout } from "./migrations.ts";
import { listChildren, listHistory, listTasks, readStats } from "./queries.ts";
import { RedisQueue } from "./queue.ts";
import * as registry from "./registry.ts";
import { hitRateLimit } from "./rate-limit.ts";
import { type ScriptName, SCRIPTS } from "./scripts.generated.ts";
import { readTaskLogs } from "./task-logs.ts";
import { StorageLayoutError } from "./layout.ts";
import { ensurePartitionCount } from "./partition-count.ts";

export { StorageLayoutError };
import { checkEvictionPolicy } from "./eviction.ts";
import type { RedisTransport } from "./transport.ts";
import { pairsToObject, RedisCommandError } from "./transport.ts";

export interface RedisStorageOptions {
  /** The connection (see `connectRedisTcp` in src/adapters/redis-tcp.ts). */
  transport: RedisTransport;
  /** Key prefix (default `skedulr`). */
  prefix?: string;
  /** Hash tag: every key of this store lives in its Redis Cluster slot (default `default`). */
  tag?: string;
  /** Reject `enqueue` once this many tasks are unfinished (back-pressure). */
  maxUnfinished?: number;
  /** Retention of finished attempts and finished task rows (default 7 days, 10k). */
  history?: Partial<HistoryRetention>;
  /** Refuse to start unless `maxmemory-policy` is `noeviction` (default true). */
  checkEvictionPolicy?: boolean;
  /**
   * Listen on the store's pub/sub channel for the events of other processes (default true).
   * False: listeners get this store's own writes' events only, and nothing is subscribed:
   * for a store that lives one request or one alarm (a Worker, the edge deliverer).
   */
  subscribeEvents?: boolean;
  /** Close the transport in `close()` (default true). */
  closeTransport?: boolean;
  /**
   * Record task events for the event stream (default true). A deployment-wide setting kept
   * in Redis: `init()` writes it, so give every node the same.
   */
  taskEvents?: boolean;
  /**
   * How many partitions the deployment this store belongs to has (default 1: the store is
   * the whole deployment). `init()` stamps it and refuses a store stamped with another
   * (partition-count.ts).
   */
  partitions?: number;
}

const DEFAULT_RETENTION: HistoryRetention = { maxAgeMs: 7 * 86_400_000, maxCount: 10_000 };

/**
 * Storage on Redis.
 *
 * @example
 * const storage = new RedisStorage({ transport: connectRedisTcp("redis://127.0.0.1:6379") });
 * await storage.init(); // refuses unless maxmemory-policy is noeviction
 */
export class RedisStorage extends QueueForwarder implements Storage {
  /** `redis`, or `redis-rest` over a REST transport: what the transport says it speaks. */
  readonly name: "redis" | "redis-rest";
  readonly #ctx: RedisContext;
  readonly #options: RedisStorageOptions;
  readonly #events: EventHub;
  readonly #taskEvents: TaskEventHub;
  protected readonly queue: RedisQueue;

  constructor(options: RedisStorageOptions) {
    super();
    this.#options = options;
    this.name = options.transport.protocol ?? "redis";
    const prefix = keyPrefix(options.prefix, options.tag);
    const retention = { ...DEFAULT_RETENTION, ...options.history };
    this.#ctx = new RedisContext(options.transport, prefix, retention, options.maxUnfinished);
    this.#events = new EventHub(
      options.transport,
      keys.events(prefix),
      options.subscribeEvents !== false,
    );
    this.#taskEvents = new TaskEventHub(options.transport, prefix);
    this.queue = new RedisQueue(this.#ctx, this.#events);
  }

  /** The key prefix of this store, e.g. `skedulr:{default}:`. */
  get prefix(): string {
    return this.#ctx.prefix;
  }

  async init(): Promise<void> {
    if (this.#options.checkEvictionPolicy !== false) await checkEvictionPolicy(this.#ctx.transport);
    // Load the function libraries (or warm the script cache) so the first calls skip a round
    // trip, and drop other releases' libraries; best effort.
    const scripts = Object.values(SCRIPTS);
    await this.#ctx.runner.warm(scripts).catch(() => {});
    await this.#ctx.runner.dropOtherLibraries(scripts).catch(() => {});
    // Migrates an older store and stamps the layout; refuses one this code cannot read.
    await ensureLayout(this.#ctx);
    await ensurePartitionCount(this.#ctx, this.#options.partitions ?? 1);
    // An endpoint that must prove its functions (REST) runs one that reads only, layout set.
    const probe = { script: SCRIPTS.nextDue, keys: [this.#ctx.prefix], args: [] };
    if (await this.#ctx.runner.prove(probe).catch(() => false)) {
      await this.#ctx.runner.dropOtherLibraries(scripts).catch(() => {});
    }
    const meta = keys.meta(this.#ctx.prefix);
    await this.#ctx.transport.send(
      this.#options.taskEvents === false
        ? ["HSET", meta, EVENTS_OFF_FIELD, "off"]
        : ["HDEL", meta, EVENTS_OFF_FIELD],
    );
    await this.#events.start();
  }

  /**
   * Hashes the scripts (Web Crypto) without touching Redis: a store made for one alarm (the
   * edge deliverer) then sends the calls it issues together in one batch.
   */
  prepare(): Promise<void> {
    return this.#ctx.runner.prepare(Object.values(SCRIPTS));
  }

  /** Whether a command is a call of script `name` as this store sends it (ScriptRunner). */
  isScriptCall(name: ScriptName): Promise<(cmd: string[]) => boolean> {
    return this.#ctx.runner.isCallOf(SCRIPTS[name]);
  }

  /** Script calls sent again in full after NOSCRIPT so far (ScriptRunner `reloads`). */
  scriptReloads(): number {
    return this.#ctx.runner.reloads;
  }

  async close(): Promise<void> {
    await this.#events.stop();
    await this.#taskEvents.stop();
    if (this.#options.closeTransport !== false) await this.#ctx.transport.close();
  }

  /**
   * Whether the store answers; throws the scripts' StorageLayoutError when it holds another
   * layout, so a health check takes a node of the wrong release out of rotation.
   */
  async ping(): Promise<boolean> {
    try {
      if ((await this.#ctx.transport.send(["PING"])) !== "PONG") return false;
    } catch {
      return false;
    }
    await checkLayout(this.#ctx).catch((error) => {
      if (error instanceof StorageLayoutError) throw error;
    });
    return true;
  }

  subscribe(listener: (event: StorageEvent) => void): () => void {
    return this.#events.add(listener);
  }

  subscribeTaskEvents(listener: TaskEventListener): TaskEventSubscription {
    return this.#taskEvents.subscribe(listener);
  }

  taskEventsAfter(after: string, limit: number): Promise<TaskEventPage> {
    return this.#taskEvents.after(after, Math.max(1, Math.min(1000, Math.floor(limit))));
  }

  /** The number of the last task event batch recorded (0: none yet). */
  taskEventTip(): Promise<number> {
    return this.#taskEvents.tip();
  }

  // Queries.

  async get(id: string): Promise<TaskRecord | null> {
    const reply = await this.#ctx.transport.send(["HGETALL", keys.task(this.#ctx.prefix, id)]);
    return decodeTask(reply, id)?.record ?? null;
  }

  list(filter: TaskFilter): Promise<Page<TaskRecord>> {
    return listTasks(this.#ctx, filter);
  }

  children(id: string, page: PageRequest = {}): Promise<Page<TaskRecord>> {
    return listChildren(this.#ctx, id, page);
  }

  history(filter: HistoryFilter): Promise<Page<AttemptRecord>> {
    return listHistory(this.#ctx, filter);
  }

  taskLogs(id: string, filter: LogFilter = {}): Promise<LogPage | null> {
    return readTaskLogs(this.#ctx, id, filter);
  }

  async stats(): Promise<StorageStats> {
    return (await readStats(this.#ctx)).stats;
  }

  /** stats(), and the duration samples behind them (a partitioned store merges those). */
  statsWithSamples(): Promise<StatsWithSamples> {
    return readStats(this.#ctx);
  }

  // Schedules (registry.ts).

  async putSchedule(p: P.PutScheduleParams): Promise<PutScheduleResult> {
    const { paused, ...result } = await registry.putSchedule(this.#ctx, p);
    if (result.outcome !== "stale" && !paused) {
      this.#events.local([{
        kind: "schedule",
        id: p.schedule.id,
        nextRunAt: p.schedule.nextRunAt,
      }]);
    }
    return result;
  }

  async setSchedulePaused(p: P.PauseScheduleParams): Promise<ScheduleRecord | null> {
    const s = await registry.setSchedulePaused(this.#ctx, p);
    // The script publishes on a resume; a repeated resume publishes nothing, which is harmless.
    if (s && !p.paused) {
      this.#events.local([{ kind: "schedule", id: s.id, nextRunAt: s.nextRunAt }]);
    }
    return s;
  }

  async triggerSchedule(p: P.TriggerParams): Promise<boolean> {
    const found = await registry.triggerSchedule(this.#ctx, p);
    if (found) this.#events.local(registry.runEvents(p.run, p.now));
    return found;
  }

  async getSchedule(id: string): Promise<ScheduleRecord | null> {
    return (await registry.getSchedules(this.#ctx, [id]))[0] ?? null;
  }

  removeSchedule(id: string): Promise<boolean> {
    return registry.removeSchedule(this.#ctx, id);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return registry.listSchedules(this.#ctx);
  }

  async dueSchedules({ until, limit }: P.DueParams): Promise<{ id: string; nextRunAt: number }[]> {
    const due = await registry.dueMembers(
      this.#ctx,
      keys.schedules(this.#ctx.prefix),
      until,
      limit,
    );
    return due.map((d) => ({ id: d.id, nextRunAt: d.at }));
  }

  async fireSchedule(p: P.FireParams): Promise<FireResult> {
    const result = await registry.fireSchedule(this.#ctx, p);
    if (result.fired) this.#events.local(registry.firedEvents(p, result));
    return result;
  }

  async nextDue(): Promise<NextDue> {
    const [delayed, lease, schedule, expiry] = (await this.#ctx.run("nextDue", []) as string[])
      .map((score) => (score === "" ? null : Number(score)));
    return { delayed, lease, schedule, expiry };
  }

  // Instances, pool controls, rate limits.

  heartbeat({ info, ttlMs, now }: P.HeartbeatParams): Promise<void> {
    return registry.heartbeat(this.#ctx, info, ttlMs, now);
  }

  listInstances(now: number): Promise<InstanceInfo[]> {
    return registry.listInstances(this.#ctx, now);
  }

  async removeInstance(id: string): Promise<void> {
    await this.#ctx.run("removeInstance", [id]);
  }

  async setPoolSize({ pool, size }: P.PoolSizeParams): Promise<void> {
    await this.#ctx.run("setPoolSize", [pool, size === null ? "" : String(size)]);
    this.#events.local([{ kind: "control" }]);
  }

  async setPaused({ pool, paused }: P.PauseParams): Promise<void> {
    await this.#ctx.run("setPaused", [pool ?? "", paused ? "1" : "0"]);
    // Resuming also publishes `ready` for every pool with a control entry; the `control`
    // event makes this instance re-read its controls and wake its pools anyway.
    this.#events.local([{ kind: "control" }]);
  }

  async setPoolLimits(p: P.PoolLimitsParams): Promise<void> {
    await registry.setPoolLimits(this.#ctx, p);
    this.#events.local([{ kind: "control" }, { kind: "ready", pool: p.pool }]);
  }

  poolStarts(p: P.PoolStartsParams): Promise<number> {
    return registry.poolStarts(this.#ctx, p);
  }

  poolRunning(pool: string): Promise<number> {
    return registry.poolRunning(this.#ctx, pool);
  }

  poolControls(): Promise<PoolControl[]> {
    return registry.poolControls(this.#ctx);
  }

  hitRateLimit({ key, limit, windowMs, now }: P.RateLimitParams): Promise<RateLimitResult> {
    return hitRateLimit(this.#ctx, key, limit, windowMs, now);
  }

  /**
   * Redis's persistence: AOF on, RDB `save` rules set; null when CONFIG is refused (managed
   * services). With neither, a Redis restart loses every task: boot warns about it.
   */
  async persistence(): Promise<{ appendonly: boolean; save: boolean } | null> {
    try {
      const [aof, rdb] = await Promise.all(
        ["appendonly", "save"].map(async (name) =>
          pairsToObject(await this.#ctx.transport.send(["CONFIG", "GET", name]))[name]
        ),
      );
      if (aof === undefined || rdb === undefined) return null;
      return { appendonly: aof === "yes", save: rdb.trim() !== "" };
    } catch (error) {
      if (error instanceof RedisCommandError) return null;
      throw error;
    }
  }
}
