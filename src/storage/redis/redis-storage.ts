/**
 * @module redis-storage — the Storage contract on Redis: every transition one Lua script.
 *
 * Any number of instances share one Redis; no lock is ever held from TypeScript. The
 * behaviour mirrors the embedded store (src/storage/memory/) transition for transition, and
 * the conformance suite runs against both. Claims are batched (one script call claims up to
 * the free slots); claims, completions and failures issued in the same tick share one script
 * call each.
 */
import { NotFoundError } from "../../core/errors.ts";
import {
  type AttemptRecord,
  DEFAULT_MAX_STALLS,
  type NewTask,
  type ScheduleRecord,
  type TaskError,
  type TaskRecord,
  type TaskStatus,
} from "../../core/task.ts";
import type {
  ClaimedTask,
  FireResult,
  HistoryRetention,
  InstanceInfo,
  Lease,
  LeaseOwner,
  Page,
  PoolControl,
  RateLimitResult,
  Recovery,
  Storage,
  StorageEvent,
  StorageStats,
  TaskFilter,
} from "../storage.ts";
import type { Batcher } from "./batcher.ts";
import {
  completeBatcher,
  type CompleteItem,
  failBatcher,
  type FailItem,
  resubmitMatching,
} from "./endings.ts";
import { claimBatcher, type ClaimItem } from "./claims.ts";
import { checkReply } from "./codes.ts";
import { decodeTask, encodeTask, newRecord } from "./codec.ts";
import { countArg, RedisContext } from "./context.ts";
import { EventHub } from "./events.ts";
import { keyPrefix, keys } from "./keys.ts";
import { listHistory, listTasks, readStats } from "./queries.ts";
import * as registry from "./registry.ts";
import { hitRateLimit } from "./rate-limit.ts";
import { SCRIPTS } from "./scripts.generated.ts";
import { checkEvictionPolicy } from "./eviction.ts";
import type { RedisReply, RedisTransport } from "./transport.ts";
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
  /** Close the transport in `close()` (default true). */
  closeTransport?: boolean;
}

const DEFAULT_RETENTION: HistoryRetention = { maxAgeMs: 7 * 86_400_000, maxCount: 10_000 };

/** Claimed attempts remembered for their history entries (about 1 KB each). */
const CLAIMED_CACHE_MAX = 10_000;

/**
 * Storage on Redis.
 *
 * @example
 * const storage = new RedisStorage({ transport: connectRedisTcp("redis://127.0.0.1:6379") });
 * await storage.init(); // refuses unless maxmemory-policy is noeviction
 */
export class RedisStorage implements Storage {
  /** `redis`, or `redis-rest` over a REST transport: what the transport says it speaks. */
  readonly name: "redis" | "redis-rest";
  readonly #ctx: RedisContext;
  readonly #options: RedisStorageOptions;
  readonly #events: EventHub;
  readonly #completes: Batcher<CompleteItem, boolean>;
  readonly #fails: Batcher<FailItem, "retrying" | "dead" | null>;
  readonly #claims: Batcher<ClaimItem, ClaimedTask[]>;
  /** Attempts this store claimed and has not ended, by task id (see complete()). */
  readonly #claimed = new Map<string, ClaimedTask>();

  constructor(options: RedisStorageOptions) {
    this.#options = options;
    this.name = options.transport.protocol ?? "redis";
    const prefix = keyPrefix(options.prefix, options.tag);
    const retention = { ...DEFAULT_RETENTION, ...options.history };
    this.#ctx = new RedisContext(options.transport, prefix, retention, options.maxUnfinished);
    this.#events = new EventHub(options.transport, keys.events(prefix));
    this.#completes = completeBatcher(this.#ctx);
    this.#fails = failBatcher(this.#ctx);
    this.#claims = claimBatcher(this.#ctx);
  }

  /** The key prefix of this store, e.g. `skedulr:{default}:`. */
  get prefix(): string {
    return this.#ctx.prefix;
  }

  async init(): Promise<void> {
    if (this.#options.checkEvictionPolicy !== false) await checkEvictionPolicy(this.#ctx.transport);
    // Warm the script cache so the first calls skip the NOSCRIPT round trip; best effort.
    await this.#ctx.transport.pipeline(
      Object.values(SCRIPTS).map((s) => ["SCRIPT", "LOAD", this.#ctx.runner.source(s)]),
    ).catch(() => {});
    await this.#events.start();
  }

  async close(): Promise<void> {
    await this.#events.stop();
    if (this.#options.closeTransport !== false) await this.#ctx.transport.close();
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.#ctx.transport.send(["PING"])) === "PONG";
    } catch {
      return false;
    }
  }

  async enqueue(tasks: NewTask[], now: number): Promise<TaskRecord[]> {
    if (tasks.length === 0) return [];
    const args = [
      String(now),
      this.#ctx.maxUnfinished === undefined ? "" : String(this.#ctx.maxUnfinished),
      String(tasks.length),
    ];
    for (const t of tasks) args.push(...encodeTask(t));
    const d = checkReply(await this.#ctx.run("enqueue", args), "enqueue");
    return tasks.map((t, i) =>
      newRecord(t, d[2 * i] as TaskStatus, (d[2 * i + 1] as string) || null, now)
    );
  }

  async get(id: string): Promise<TaskRecord | null> {
    return decodeTask(await this.#ctx.transport.send(["HGETALL", keys.task(this.#ctx.prefix, id)]))
      ?.record ?? null;
  }

  list(filter: TaskFilter): Promise<Page<TaskRecord>> {
    return listTasks(this.#ctx, filter);
  }

  async claim(pool: string, max: number, owner: LeaseOwner, now: number): Promise<ClaimedTask[]> {
    const n = countArg(max, "loop");
    if (n === 0) return [];
    const tasks = await this.#claims.add({ pool, max: n, owner, now });
    // A cache, never the truth: a miss (lease lost, cancelled, bound reached) only means
    // the complete script builds the history entry itself.
    if (this.#claimed.size + tasks.length > CLAIMED_CACHE_MAX) this.#claimed.clear();
    for (const task of tasks) this.#claimed.set(task.id, task);
    return tasks;
  }

  async releaseClaim(
    pool: string,
    owner: LeaseOwner,
    claimedAt: number,
    keep: string[],
    now: number,
  ): Promise<number> {
    const args = [String(now), pool, owner.workerId, String(claimedAt), String(owner.leaseMs)];
    return Number(await this.#ctx.run("releaseClaim", [...args, ...keep]));
  }

  async renewLeases(leases: Lease[], leaseMs: number, now: number): Promise<string[]> {
    if (leases.length === 0) return [];
    const args = [String(now), leases[0].workerId, String(leaseMs)];
    for (const lease of leases) args.push(lease.id, lease.token);
    return (await this.#ctx.run("renewLeases", args) as RedisReply[]).map(String);
  }

  complete(lease: Lease, result: unknown, now: number): Promise<boolean> {
    const claimed = this.#claimed.get(lease.id);
    this.#claimed.delete(lease.id);
    return this.#completes.add({
      lease,
      now,
      result,
      claimed: claimed?.token === lease.token ? claimed : undefined,
    });
  }

  fail(
    lease: Lease,
    error: TaskError,
    retryAt: number | null,
    now: number,
  ): Promise<"retrying" | "dead" | null> {
    this.#claimed.delete(lease.id);
    return this.#fails.add({ lease, now, error, retryAt });
  }

  async release(leases: Lease[], now: number): Promise<number> {
    if (leases.length === 0) return 0;
    const args = [String(now), leases[0].workerId];
    for (const lease of leases) {
      this.#claimed.delete(lease.id);
      args.push(lease.id, lease.token);
    }
    return Number(await this.#ctx.run("release", args));
  }

  async setProgress(lease: Lease, progress: number): Promise<boolean> {
    const clamped = String(Math.max(0, Math.min(100, progress)));
    const args = [lease.id, lease.workerId, lease.token, clamped];
    return (await this.#ctx.run("setProgress", args)) === 1;
  }

  async cancel(id: string, reason: string, now: number): Promise<TaskRecord> {
    const reply = await this.#ctx.run("cancel", [
      String(now),
      id,
      reason,
      ...this.#ctx.retentionArgs(),
    ]);
    return decodeTask(checkReply(reply, "cancel", id)[0])!.record;
  }

  async resubmit(id: string, now: number): Promise<TaskRecord> {
    const reply = await this.#ctx.run("resubmit", [String(now), id]);
    const row = decodeTask(checkReply(reply, "resubmit", id)[0]);
    if (!row) throw new NotFoundError("Task", id);
    return row.record;
  }

  resubmitMatching(
    filter: { status: "dead" | "cancelled"; type?: string; pool?: string },
    now: number,
  ): Promise<number> {
    return resubmitMatching(this.#ctx, filter, now);
  }

  async dueDelayed(until: number, limit: number): Promise<{ id: string; runAt: number }[]> {
    const due = await registry.dueMembers(this.#ctx, keys.delayed(this.#ctx.prefix), until, limit);
    return due.map((d) => ({ id: d.id, runAt: d.at }));
  }

  async promoteDue(now: number, limit: number): Promise<number> {
    const n = countArg(limit, "loop");
    if (n === 0) return 0;
    return Number(await this.#ctx.run("promoteDue", [String(now), String(n)]));
  }

  async recoverExpired(now: number, limit: number): Promise<Recovery> {
    const n = countArg(limit, "slice");
    const args = [String(now), String(n), ...this.#ctx.retentionArgs(), String(DEFAULT_MAX_STALLS)];
    const [recovered, pending] = await this.#ctx.run("recoverExpired", args) as number[];
    return { recovered: Number(recovered), cascadesPending: pending === 1 };
  }

  addSchedule(schedule: ScheduleRecord): Promise<void> {
    return registry.addSchedule(this.#ctx, schedule);
  }

  async getSchedule(id: string): Promise<ScheduleRecord | null> {
    return (await registry.getSchedules(this.#ctx, [id]))[0] ?? null;
  }

  removeSchedule(id: string): Promise<boolean> {
    return registry.removeSchedule(this.#ctx, id);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return registry.getSchedules(this.#ctx, []);
  }

  async dueSchedules(until: number, limit: number): Promise<{ id: string; nextRunAt: number }[]> {
    const due = await registry.dueMembers(
      this.#ctx,
      keys.schedules(this.#ctx.prefix),
      until,
      limit,
    );
    return due.map((d) => ({ id: d.id, nextRunAt: d.at }));
  }

  fireSchedule(
    id: string,
    occurrenceAt: number,
    nextRunAt: number,
    run: NewTask,
    now: number,
  ): Promise<FireResult> {
    return registry.fireSchedule(this.#ctx, id, occurrenceAt, nextRunAt, run, now);
  }

  async setPoolSize(pool: string, size: number | null): Promise<void> {
    await this.#ctx.run("setPoolSize", [pool, size === null ? "" : String(size)]);
  }

  async setPaused(pool: string | null, paused: boolean): Promise<void> {
    await this.#ctx.run("setPaused", [pool ?? "", paused ? "1" : "0"]);
  }

  poolControls(): Promise<PoolControl[]> {
    return registry.poolControls(this.#ctx);
  }

  stats(): Promise<StorageStats> {
    return readStats(this.#ctx);
  }

  history(filter: TaskFilter): Promise<Page<AttemptRecord>> {
    return listHistory(this.#ctx, filter);
  }

  heartbeat(info: InstanceInfo, ttlMs: number, now: number): Promise<void> {
    return registry.heartbeat(this.#ctx, info, ttlMs, now);
  }

  listInstances(now: number): Promise<InstanceInfo[]> {
    return registry.listInstances(this.#ctx, now);
  }

  async removeInstance(id: string): Promise<void> {
    await this.#ctx.run("removeInstance", [id]);
  }

  hitRateLimit(
    key: string,
    limit: number,
    windowMs: number,
    now: number,
  ): Promise<RateLimitResult> {
    return hitRateLimit(this.#ctx, key, limit, windowMs, now);
  }

  subscribe(listener: (event: StorageEvent) => void): () => void {
    return this.#events.add(listener);
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
