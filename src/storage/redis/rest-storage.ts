/**
 * @module rest-storage — RedisStorage for a resident worker that reaches Redis over REST.
 *
 * Over TCP an idle claim poll costs a round trip on a connection that is open anyway; over
 * REST every poll is a billed HTTP request (and a request a worker makes for nothing). So
 * this store claims only when there may be work: after the pool's last claim came back
 * short (its queue drained), further claims for that pool are answered here with nothing
 * until one of these says otherwise:
 * - a `ready` event for the pool or a `control` event: from another instance over the SSE
 *   stream (every script that queues a task publishes `ready`), or from this process's own
 *   writes (enqueue, release, resubmit, promote, recover, a pool's size or pause flag),
 *   which RedisStorage delivers to its own listeners at once (see redis-storage.ts),
 * - the event stream was re-opened after a drop (events may have been missed),
 * - `backstopMs` passed since that short claim (the slow backstop poll: covers an event
 *   lost in flight),
 * - the claim's `heldUntil` came (the pool's rate limit held queued work back until then).
 * Events that arrive while a claim is in flight count, so a task queued during the round
 * trip is never skipped.
 *
 * Claims travel in the transport's side lane (`claimLane`, default on): a claim goes while
 * the completions issued before it are in flight, instead of after their reply. Nothing of
 * a resident worker needs a claim to run after them: a task they queue announces itself
 * with `ready`, which lets the next claim through (above). Replies still come back in
 * issue order.
 */
import { SkedulrError } from "../../core/errors.ts";
import type { ClaimParams } from "../params.ts";
import type { Claimed } from "../types.ts";
import { readEvictionPolicy } from "./eviction.ts";
import { RedisStorage, type RedisStorageOptions } from "./redis-storage.ts";
import type { RestTransport } from "./rest-transport.ts";

export interface RestRedisStorageOptions extends RedisStorageOptions {
  transport: RestTransport;
  /** Longest a drained pool goes without a real claim when no event arrives (default 10 s). */
  backstopMs?: number;
  /** Claims in the transport's side lane, beside the other commands (default true). */
  claimLane?: boolean;
}

interface Quiet {
  /** The generations when the short claim was sent. */
  all: number;
  pool: number;
  /** `now` of that claim. */
  at: number;
  /** Claims pass again from then: the backstop, or sooner the rate limit's `heldUntil`. */
  until: number;
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
  /** With the claim lane, one claim loop per pool (storage.ts QueueStore.claimLoops). */
  readonly claimLoops: 1 | 2;
  readonly #checkEviction: boolean;
  readonly #claimLane: boolean;
  readonly #transport: RestTransport;
  /** Bumped by anything that may have queued work in any pool. */
  #all = 0;
  readonly #pools = new Map<string, number>();
  readonly #quiet = new Map<string, Quiet>();
  #stop: (() => void)[] = [];

  constructor(options: RestRedisStorageOptions) {
    // The eviction check runs in init() below, where an unreadable policy is only a warning.
    super({ ...options, checkEvictionPolicy: false });
    this.#checkEviction = options.checkEvictionPolicy !== false;
    this.#claimLane = options.claimLane !== false;
    this.claimLoops = this.#claimLane ? 1 : 2;
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
    if (this.#claimLane) this.#transport.sideLane(await this.isScriptCall("claim"));
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
    if (this.#claimLane) this.#transport.sideLane(null);
    for (const stop of this.#stop.splice(0)) stop();
    await super.close();
  }

  #poolGen(pool: string): number {
    return this.#pools.get(pool) ?? 0;
  }

  override async claim(p: ClaimParams): Promise<Claimed> {
    const { pool, max, now } = p;
    // The event that woke this pool reaches every listener in one synchronous loop; yield
    // once so the listener above has counted it before the check, whatever the order.
    await null;
    const quiet = this.#quiet.get(pool);
    const all = this.#all;
    const gen = this.#poolGen(pool);
    if (
      quiet && quiet.all === all && quiet.pool === gen && now >= quiet.at && now < quiet.until
    ) {
      return [];
    }
    const tasks = await super.claim(p);
    if (tasks.length < Math.ceil(max)) {
      const until = Math.min(now + this.backstopMs, tasks.heldUntil ?? Infinity);
      this.#quiet.set(pool, { all, pool: gen, at: now, until });
    } else this.#quiet.delete(pool);
    return tasks;
  }
}
