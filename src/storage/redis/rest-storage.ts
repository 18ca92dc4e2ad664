/**
 * @module rest-storage — RedisStorage for a resident worker that reaches Redis over REST.
 *
 * Over TCP an idle claim poll costs a round trip on a connection that is open anyway; over
 * REST every poll is a billed HTTP request (and a request a worker makes for nothing). So
 * this store claims only when there may be work: after the pool's last claim came back
 * short (its queue drained), further claims for that pool are answered here with nothing
 * until one of these says otherwise:
 * - a `ready` event for the pool or a `control` event arrives on the SSE stream (every
 *   script that queues a task publishes `ready`),
 * - this process queued work itself (enqueue, release, resubmit, promote, recover) or
 *   changed a pool's size or pause flag,
 * - the event stream was re-opened after a drop (events may have been missed),
 * - `backstopMs` passed since that short claim (the slow backstop poll: covers an event
 *   lost in flight).
 * Events that arrive while a claim is in flight count, so a task queued during the round
 * trip is never skipped.
 *
 * It also echoes the events of its own writes to its own listeners at once (a promotion's
 * `ready`, a delayed task's `delayed`, a cancel's `cancel`, ...), before the call returns.
 * The Scheduler has its own fast path for submits, but promotions, recoveries, releases and
 * schedule firings happen below it; over REST the SSE hop can take tens of milliseconds and
 * a process should not wait on it (or lose it to a dropped stream) to claim work it just
 * made ready. The same events still arrive over SSE, later; every reaction is idempotent.
 */
import type { NewTask, ScheduleRecord, TaskError, TaskRecord } from "../../core/task.ts";
import { SkedulrError } from "../../core/errors.ts";
import type {
  ClaimedTask,
  FireResult,
  Lease,
  LeaseOwner,
  Recovery,
  StorageEvent,
} from "../storage.ts";
import { readEvictionPolicy } from "./eviction.ts";
import { RedisStorage, type RedisStorageOptions } from "./redis-storage.ts";
import type { RestTransport } from "./rest-transport.ts";

export interface RestRedisStorageOptions extends RedisStorageOptions {
  transport: RestTransport;
  /** Longest a drained pool goes without a real claim when no event arrives (default 10 s). */
  backstopMs?: number;
}

interface Quiet {
  /** The generations when the short claim was sent. */
  all: number;
  pool: number;
  /** `now` of that claim. */
  at: number;
}

/**
 * Storage on Redis over REST for workers: event-driven claims with a slow backstop.
 *
 * @example
 * const transport = new RestTransport({ url, token });
 * const scheduler = new Scheduler({ storage: new RestRedisStorage({ transport }) });
 */
export class RestRedisStorage extends RedisStorage {
  readonly backstopMs: number;
  readonly #checkEviction: boolean;
  readonly #transport: RestTransport;
  /** Bumped by anything that may have queued work in any pool. */
  #all = 0;
  readonly #pools = new Map<string, number>();
  readonly #quiet = new Map<string, Quiet>();
  /** Pools this process claims from: where promoted, recovered or released work may land. */
  readonly #claimPools = new Set<string>();
  readonly #listeners = new Set<(event: StorageEvent) => void>();
  #stop: (() => void)[] = [];

  constructor(options: RestRedisStorageOptions) {
    // The eviction check runs in init() below, where an unreadable policy is only a warning.
    super({ ...options, checkEvictionPolicy: false });
    this.#checkEviction = options.checkEvictionPolicy !== false;
    this.#transport = options.transport;
    this.backstopMs = options.backstopMs ?? 10_000;
  }

  override async init(): Promise<void> {
    if (this.#checkEviction) await this.#checkEvictionPolicy();
    this.#stop.push(
      this.subscribe((event) => {
        if (event.kind === "ready") this.#pools.set(event.pool, this.#poolGen(event.pool) + 1);
        else if (event.kind === "control") this.#all++;
      }),
      this.#transport.onReconnect(() => this.#all++),
    );
    await super.init();
  }

  /**
   * Managed REST services often refuse both CONFIG and INFO; Upstash keeps eviction off
   * unless it is enabled in its console. So only a policy read and found wrong stops
   * start-up here; an unreadable one is reported.
   */
  async #checkEvictionPolicy(): Promise<void> {
    const policy = await readEvictionPolicy(this.#transport);
    if (policy === null) {
      console.warn(
        "skedulr: cannot read Redis's maxmemory-policy over REST; make sure eviction is " +
          "disabled for this database (Skedulr needs noeviction)",
      );
    } else if (policy !== "noeviction") {
      throw new SkedulrError(
        "storage",
        `Refusing to start: Redis maxmemory-policy is "${policy}", but Skedulr needs ` +
          '"noeviction" (with eviction, Redis silently deletes tasks and leases).',
      );
    }
  }

  override async close(): Promise<void> {
    for (const stop of this.#stop.splice(0)) stop();
    await super.close();
  }

  #poolGen(pool: string): number {
    return this.#pools.get(pool) ?? 0;
  }

  override async claim(
    pool: string,
    max: number,
    owner: LeaseOwner,
    now: number,
  ): Promise<ClaimedTask[]> {
    // The event that woke this pool reaches every listener in one synchronous loop; yield
    // once so the listener above has counted it before the check, whatever the order.
    await null;
    this.#claimPools.add(pool);
    const quiet = this.#quiet.get(pool);
    const all = this.#all;
    const gen = this.#poolGen(pool);
    if (
      quiet && quiet.all === all && quiet.pool === gen && now >= quiet.at &&
      now - quiet.at < this.backstopMs
    ) {
      return [];
    }
    const tasks = await super.claim(pool, max, owner, now);
    if (tasks.length < Math.ceil(max)) this.#quiet.set(pool, { all, pool: gen, at: now });
    else this.#quiet.delete(pool);
    return tasks;
  }

  override subscribe(listener: (event: StorageEvent) => void): () => void {
    this.#listeners.add(listener);
    const off = super.subscribe(listener);
    return () => {
      this.#listeners.delete(listener);
      off();
    };
  }

  /**
   * Delivers events caused by this process's own write to its listeners, on a microtask
   * queued before the write's caller resumes (the embedded store delivers the same way).
   */
  #echo(events: StorageEvent[]): void {
    if (events.length === 0) return;
    queueMicrotask(() => {
      for (const event of events) for (const listener of this.#listeners) listener(event);
    });
  }

  /** `ready` for every pool this process claims from (the pools are not in the reply). */
  #readyAll(): StorageEvent[] {
    return [...this.#claimPools].map((pool) => ({ kind: "ready", pool }));
  }

  override async enqueue(tasks: NewTask[], now: number): Promise<TaskRecord[]> {
    const records = await super.enqueue(tasks, now);
    const events: StorageEvent[] = [];
    for (const pool of new Set(records.filter((r) => r.status === "queued").map((r) => r.pool))) {
      events.push({ kind: "ready", pool });
    }
    for (const r of records) {
      if (r.status === "scheduled" && r.runAt !== null) {
        events.push({ kind: "delayed", id: r.id, runAt: r.runAt });
      }
    }
    this.#echo(events);
    return records;
  }

  override async fail(
    lease: Lease,
    error: TaskError,
    retryAt: number | null,
    now: number,
  ): Promise<"retrying" | "dead" | null> {
    const status = await super.fail(lease, error, retryAt, now);
    if (status === "retrying" && retryAt !== null) {
      this.#echo([{ kind: "delayed", id: lease.id, runAt: retryAt }]);
    }
    return status;
  }

  override async cancel(id: string, reason: string, now: number): Promise<TaskRecord> {
    const record = await super.cancel(id, reason, now);
    this.#echo([{ kind: "cancel", id }]);
    return record;
  }

  override async release(leases: Lease[], now: number): Promise<number> {
    const n = await super.release(leases, now);
    if (n > 0) this.#echo(this.#readyAll());
    return n;
  }

  override async releaseClaim(
    pool: string,
    owner: LeaseOwner,
    claimedAt: number,
    keep: string[],
    now: number,
  ): Promise<number> {
    const n = await super.releaseClaim(pool, owner, claimedAt, keep, now);
    if (n > 0) this.#echo([{ kind: "ready", pool }]);
    return n;
  }

  override async resubmit(id: string, now: number): Promise<TaskRecord> {
    const record = await super.resubmit(id, now);
    this.#echo([{ kind: "ready", pool: record.pool }]);
    return record;
  }

  override async resubmitMatching(
    filter: { status: "dead" | "cancelled"; type?: string; pool?: string },
    now: number,
  ): Promise<number> {
    const n = await super.resubmitMatching(filter, now);
    if (n > 0) this.#echo(filter.pool ? [{ kind: "ready", pool: filter.pool }] : this.#readyAll());
    return n;
  }

  override async promoteDue(now: number, limit: number): Promise<number> {
    const n = await super.promoteDue(now, limit);
    if (n > 0) this.#echo(this.#readyAll());
    return n;
  }

  override async recoverExpired(now: number, limit: number): Promise<Recovery> {
    const recovery = await super.recoverExpired(now, limit);
    // Children a cascade queued may be in any pool: every pool this process claims from.
    if (recovery.recovered > 0 || recovery.cascadesPending) this.#echo(this.#readyAll());
    return recovery;
  }

  override async addSchedule(schedule: ScheduleRecord): Promise<void> {
    await super.addSchedule(schedule);
    this.#echo([{ kind: "schedule", id: schedule.id, nextRunAt: schedule.nextRunAt }]);
  }

  override async fireSchedule(
    id: string,
    occurrenceAt: number,
    nextRunAt: number,
    run: NewTask,
    now: number,
  ): Promise<FireResult> {
    const result = await super.fireSchedule(id, occurrenceAt, nextRunAt, run, now);
    if (result.fired) {
      const events: StorageEvent[] = [{ kind: "schedule", id, nextRunAt }];
      if (result.taskId) events.push({ kind: "ready", pool: run.pool });
      this.#echo(events);
    }
    return result;
  }

  // A pause or size change is followed by the caller's own refresh of the controls, so no
  // echo here (it would refresh twice); only the claim gate learns that work may be ready.
  override async setPaused(pool: string | null, paused: boolean): Promise<void> {
    await super.setPaused(pool, paused);
    this.#all++;
  }

  override async setPoolSize(pool: string, size: number | null): Promise<void> {
    await super.setPoolSize(pool, size);
    this.#all++;
  }
}
