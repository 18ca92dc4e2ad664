/**
 * @module partitioned-storage — one deployment split into partitions: the Storage contract
 * over N stores of the same kind (on Redis, one hash tag each, so a Redis Cluster spreads
 * them over its masters), each a whole store whose scripts stay single-slot.
 *
 * - Writes go to one partition: a submit where its tasks are tied (placement.ts), a task's
 *   transitions where its id says (`~<k>`, src/core/partitions.ts) or, for a custom id,
 *   where a read of every partition at once finds it; a running attempt's settles where its
 *   claim token says (`<token>@<k>`); a schedule (and its runs) and a rate-limit key where
 *   their name hashes.
 * - Claims visit every partition in turn (claims.ts); the duties visit one partition per
 *   call (`part`), or all without it; events carry the partition they came from.
 * - Reads merge (merge.ts, task-events.ts). Instances live in partition 0; pool controls are
 *   written to every partition, a pool-wide limit as shares that sum to it.
 *
 * What holds across partitions and what does not: docs/PARTITIONS.md.
 */
import { ValidationError } from "../../core/errors.ts";
import { hashPartition, limitShare, partitionOfId, withPartition } from "../../core/partitions.ts";
import type { AttemptRecord, NewTask, ScheduleRecord, TaskRecord } from "../../core/task.ts";
import type * as P from "../params.ts";
import type { Storage } from "../storage.ts";
import type {
  Claimed,
  Expiry,
  FireResult,
  HistoryFilter,
  InstanceInfo,
  LogFilter,
  LogPage,
  NextDue,
  Page,
  PageRequest,
  PoolControl,
  PutScheduleResult,
  RateLimitResult,
  Recovery,
  StorageEvent,
  StorageStats,
  TaskEventListener,
  TaskEventPage,
  TaskEventSubscription,
  TaskFilter,
} from "../types.ts";
import { ClaimRouter } from "./claims.ts";
import { mergeDue, mergePages, mergePoolControls, mergeSchedules, mergeStats } from "./merge.ts";
import { PartitionWrites } from "./writes.ts";
import type { StatsWithSamples } from "../stats.ts";
import { type EventPart, MergedTaskEvents } from "./task-events.ts";

/**
 * A partition: a whole store, which can also say how far its task events go and hand over
 * the duration samples behind its statistics (both stores of this package can).
 */
export type PartStore = Storage & EventPart & {
  statsWithSamples(): Promise<StatsWithSamples>;
};

export interface PartitionedStorageOptions {
  /** The partitions, partition 0 first (it also holds the instance registry). */
  parts: PartStore[];
  /**
   * How often one quiet partition is claimed from although no event said it has work
   * (default 5 s, the workers' backstop poll): a lost event costs at most N times this.
   */
  backstopMs?: number;
  /** Runs after every partition closed (e.g. closes the transport they share). */
  afterClose?: () => Promise<void>;
}

/**
 * Storage over partitions.
 *
 * @example
 * const storage = new PartitionedStorage({ parts: [new MemoryStorage(), new MemoryStorage()] });
 */
export class PartitionedStorage extends PartitionWrites implements Storage {
  readonly name: string;
  readonly partitions: number;
  readonly #claims: ClaimRouter;
  readonly #events: MergedTaskEvents;
  readonly #listeners = new Set<(event: StorageEvent) => void>();
  readonly #offs: (() => void)[];
  readonly #pools = new Set<string>();
  readonly #parts: PartStore[];
  /** The partition each record this store answered came from (see partitionOfRecord). */
  readonly #origin = new WeakMap<object, number>();
  readonly #afterClose: (() => Promise<void>) | undefined;

  constructor(options: PartitionedStorageOptions) {
    super(options.parts);
    this.name = options.parts[0].name;
    this.partitions = options.parts.length;
    this.#parts = options.parts;
    this.#afterClose = options.afterClose;
    this.#claims = new ClaimRouter(
      this.partitions,
      async (k, p) => wrapTokens(await this.parts[k].claim(p), k),
      options.backstopMs ?? 5_000,
    );
    this.#events = new MergedTaskEvents(options.parts);
    this.#offs = options.parts.map((part, k) => part.subscribe((e) => this.#onEvent(k, e)));
  }

  /** An event of partition `k`: counted for the claims first, then passed on with its part. */
  #onEvent(k: number, event: StorageEvent): void {
    if (event.kind === "ready") this.#claims.ready(k, event.pool);
    if (event.kind === "control") {
      this.#claims.control();
      // Every control write goes to every partition: one event per change is enough.
      if (k !== 0) return;
    }
    const out: StorageEvent = event.kind === "cancel" || event.kind === "cascade" ||
        event.kind === "control"
      ? event
      : { ...event, part: k };
    for (const listener of this.#listeners) listener(out);
  }

  /** Partition `k`'s own store (for checks of the backend, e.g. Redis's persistence). */
  partition(k: number): Storage {
    return this.parts[k];
  }

  // Lifecycle and events.

  async init(): Promise<void> {
    // Partition 0 first: it tells a node started with another count before anything else.
    await this.parts[0].init();
    await Promise.all(this.parts.slice(1).map((p) => p.init()));
  }

  async close(): Promise<void> {
    for (const off of this.#offs) off();
    this.#listeners.clear();
    await Promise.all(this.parts.map((p) => p.close()));
    await this.#afterClose?.();
  }

  async ping(): Promise<boolean> {
    return (await Promise.all(this.parts.map((p) => p.ping()))).every(Boolean);
  }

  subscribe(listener: (event: StorageEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  subscribeTaskEvents(listener: TaskEventListener): TaskEventSubscription {
    return this.#events.subscribe(listener);
  }

  taskEventsAfter(after: string, limit: number): Promise<TaskEventPage> {
    return this.#events.after(after, Math.max(1, Math.min(1000, Math.floor(limit))));
  }

  // Claims and duties.

  claim(p: P.ClaimParams): Promise<Claimed> {
    if (!this.#pools.has(p.pool)) {
      this.#pools.add(p.pool);
      // Each partition learns the pool (where its promotions may land) without a command.
      for (const part of this.parts) void part.claim({ ...p, max: 0 }).catch(() => {});
    }
    return this.#claims.claim(p);
  }

  async releaseClaim(p: P.ReleaseClaimParams): Promise<number> {
    return sum(await this.#each((part) => part.releaseClaim(p)));
  }

  async dueDelayed(p: P.DueParams): Promise<{ id: string; runAt: number }[]> {
    return mergeDue(await this.#duty(p, (part) => part.dueDelayed(p)), (d) => d.runAt, p.limit);
  }

  async promoteDue(p: P.StepParams): Promise<number> {
    return sum(await this.#duty(p, (part) => part.promoteDue(p)));
  }

  async dueExpiries(p: P.DueParams): Promise<{ id: string; expiresAt: number }[]> {
    const all = await this.#duty(p, (part) => part.dueExpiries(p));
    return mergeDue(all, (d) => d.expiresAt, p.limit);
  }

  async expireDue(p: P.StepParams): Promise<Expiry> {
    const all = await this.#duty(p, (part) => part.expireDue(p));
    return { expired: sum(all.map((e) => e.expired)), more: all.some((e) => e.more) };
  }

  /** The earliest due time of each kind over every partition. */
  async nextDue(): Promise<NextDue> {
    const all = await this.#each((part) => part.nextDue());
    const first = (pick: (d: NextDue) => number | null) =>
      all.map(pick).reduce<number | null>(
        (a, b) => (b === null || (a !== null && a <= b) ? a : b),
        null,
      );
    return {
      delayed: first((d) => d.delayed),
      lease: first((d) => d.lease),
      schedule: first((d) => d.schedule),
      expiry: first((d) => d.expiry),
    };
  }

  async recoverExpired(p: P.StepParams): Promise<Recovery> {
    const all = await this.#duty(p, (part) => part.recoverExpired(p));
    return {
      recovered: sum(all.map((r) => r.recovered)),
      cascadesPending: all.some((r) => r.cascadesPending),
    };
  }

  /** A duty's call: on partition `p.part` only, or on every partition. */
  #duty<T>(p: { part?: number }, call: (part: Storage) => Promise<T>): Promise<T[]> {
    if (p.part === undefined) return this.#each(call);
    const part = this.parts[p.part];
    if (!part) throw new RangeError(`No partition ${p.part}: the store has ${this.partitions}`);
    return call(part).then((r) => [r]);
  }

  #each<T>(call: (part: Storage, k: number) => Promise<T>): Promise<T[]> {
    return Promise.all(this.parts.map(call));
  }

  // Queries.

  /** Remembers where records came from, for {@link partitionOfRecord}. */
  #from<T extends TaskRecord | null>(k: number, records: T[]): T[] {
    for (const r of records) if (r) this.#origin.set(r, k);
    return records;
  }

  /**
   * The partition (its own store) that holds a task this store answered: where its pool's
   * state (running tasks against its share of a limit) is read (client/pool-waits.ts).
   */
  async partitionOfRecord(record: TaskRecord): Promise<Storage | null> {
    const k = this.#origin.get(record) ?? await this.locate(record.id);
    return k === null ? null : this.parts[k];
  }

  async get(id: string): Promise<TaskRecord | null> {
    const k = partitionOfId(id, this.partitions);
    if (k !== null) return this.#from(k, [await this.parts[k].get(id)])[0];
    const found = await this.#each((part) => part.get(id));
    const at = found.findIndex((t) => t !== null);
    return at < 0 ? null : this.#from(at, [found[at]])[0];
  }

  list(filter: TaskFilter): Promise<Page<TaskRecord>> {
    return mergePages(
      this.partitions,
      filter,
      async (k, cursor, limit) => {
        const page = await this.parts[k].list({ ...filter, cursor, limit });
        return { ...page, items: this.#from(k, page.items) };
      },
      (t) => t.createdAt,
    );
  }

  async children(id: string, page: PageRequest = {}): Promise<Page<TaskRecord>> {
    const k = await this.locate(id);
    if (k === null) return { items: [], next: null };
    const found = await this.parts[k].children(id, page);
    return { ...found, items: this.#from(k, found.items) };
  }

  async history(filter: HistoryFilter): Promise<Page<AttemptRecord>> {
    if (filter.taskId !== undefined) {
      const k = await this.locate(filter.taskId);
      return k === null ? { items: [], next: null } : await this.parts[k].history(filter);
    }
    return await mergePages(
      this.partitions,
      filter,
      (k, cursor, limit) => this.parts[k].history({ ...filter, cursor, limit }),
      (a) => a.finishedAt,
    );
  }

  async taskLogs(id: string, filter: LogFilter = {}): Promise<LogPage | null> {
    const k = await this.locate(id);
    return k === null ? null : await this.parts[k].taskLogs(id, filter);
  }

  async stats(): Promise<StorageStats> {
    return mergeStats(await Promise.all(this.#parts.map((part) => part.statsWithSamples())));
  }

  async poolRunning(pool: string): Promise<number> {
    return sum(await this.#each((part) => part.poolRunning(pool)));
  }

  // Schedules: each lives (and its runs are stored) where its id hashes.

  #scheduleOf(id: string): Storage {
    return this.parts[hashPartition(id, this.partitions)];
  }

  async putSchedule(p: P.PutScheduleParams): Promise<PutScheduleResult> {
    // The namespace is shared with tasks: a task of that id may live in any partition.
    const k = hashPartition(p.schedule.id, this.partitions);
    await this.assertNoTask(p.schedule.id, k, `Id "${p.schedule.id}" is already in use by a task`);
    return await this.parts[k].putSchedule(p);
  }

  getSchedule(id: string): Promise<ScheduleRecord | null> {
    return this.#scheduleOf(id).getSchedule(id);
  }

  setSchedulePaused(p: P.PauseScheduleParams): Promise<ScheduleRecord | null> {
    return this.#scheduleOf(p.id).setSchedulePaused(p);
  }

  triggerSchedule(p: P.TriggerParams): Promise<boolean> {
    return this.#scheduleOf(p.id).triggerSchedule({ ...p, run: this.#runOf(p.id, p.run) });
  }

  removeSchedule(id: string): Promise<boolean> {
    return this.#scheduleOf(id).removeSchedule(id);
  }

  async listSchedules(): Promise<ScheduleRecord[]> {
    return mergeSchedules(await this.#each((part) => part.listSchedules()));
  }

  async dueSchedules(p: P.DueParams): Promise<{ id: string; nextRunAt: number }[]> {
    const all = await this.#duty(p, (part) => part.dueSchedules(p));
    return mergeDue(all, (d) => d.nextRunAt, p.limit);
  }

  fireSchedule(p: P.FireParams): Promise<FireResult> {
    const run = p.run && this.#runOf(p.id, p.run);
    return this.#scheduleOf(p.id).fireSchedule({ ...p, run });
  }

  /** A schedule's run, its generated id given its partition's tail (in place: FireParams). */
  #runOf(scheduleId: string, run: NewTask): NewTask {
    if (run.generatedId) {
      run.id = withPartition(run.id, hashPartition(scheduleId, this.partitions));
    }
    return run;
  }

  // Instances (partition 0), pool controls (every partition), rate limits (by key).

  heartbeat(p: P.HeartbeatParams): Promise<void> {
    return this.parts[0].heartbeat(p);
  }

  listInstances(now: number): Promise<InstanceInfo[]> {
    return this.parts[0].listInstances(now);
  }

  removeInstance(id: string): Promise<void> {
    return this.parts[0].removeInstance(id);
  }

  async setPoolSize(p: P.PoolSizeParams): Promise<void> {
    await this.#each((part) => part.setPoolSize(p));
  }

  async setPaused(p: P.PauseParams): Promise<void> {
    await this.#each((part) => part.setPaused(p));
  }

  /**
   * Each partition enforces a share of a pool-wide limit; the shares sum to it, so the
   * deployment never exceeds it. A limit below the partition count would leave a partition
   * no share (its tasks would never start): refused.
   */
  async setPoolLimits(p: P.PoolLimitsParams): Promise<void> {
    const n = this.partitions;
    const { globalConcurrency: g, rateLimit: r } = p.limits;
    const issues = [];
    if (typeof g === "number" && g < n) {
      issues.push({ path: "globalConcurrency", message: belowPartitions(g, n, "parallelism") });
    }
    if (r && r.max < n) {
      issues.push({ path: "rateLimit.max", message: belowPartitions(r.max, n, "rate") });
    }
    if (issues.length) throw new ValidationError(issues, "pool limits");
    await this.#each((part, k) =>
      part.setPoolLimits({
        ...p,
        limits: {
          ...(g === undefined
            ? {}
            : { globalConcurrency: g === null ? null : limitShare(g, k, n) }),
          ...(r === undefined ? {} : { rateLimit: r && { ...r, max: limitShare(r.max, k, n) } }),
        },
      })
    );
  }

  async poolStarts(p: P.PoolStartsParams): Promise<number> {
    return sum(await this.#each((part) => part.poolStarts(p)));
  }

  async poolControls(): Promise<PoolControl[]> {
    return mergePoolControls(await this.#each((part) => part.poolControls()));
  }

  hitRateLimit(p: P.RateLimitParams): Promise<RateLimitResult> {
    return this.parts[hashPartition(p.key, this.partitions)].hitRateLimit(p);
  }
}

function belowPartitions(limit: number, n: number, flow: string): string {
  return `${limit} is below the deployment's ${n} partitions: each partition enforces a ` +
    `share of a pool's limit, at least 1; use ${n} or more, or a flowControl key with ` +
    `${flow} ${limit} (one key lives in one partition, so its limits hold exactly)`;
}

/** A partition's claim with tokens that say where to settle: `<token>@<k>`. */
function wrapTokens(tasks: Claimed, k: number): Claimed {
  const out: Claimed = tasks.map((t) => ({ ...t, token: `${t.token}@${k}` }));
  if (tasks.heldUntil !== undefined) out.heldUntil = tasks.heldUntil;
  return out;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
