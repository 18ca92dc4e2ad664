/**
 * @module registry — the embedded store's live instances and the cluster-wide controls of
 * their pools (sizes, pause flags, limits and the rate limits' start logs), as
 * lua/setPaused-1.lua, setPoolSize-1.lua, setPoolLimits-1.lua, claim-1.lua and
 * heartbeat-1.lua keep them in Redis.
 */
import type { Listeners } from "../listeners.ts";
import type {
  HeartbeatParams,
  PauseParams,
  PoolLimitsParams,
  PoolSizeParams,
  PoolStartsParams,
} from "../params.ts";
import type { InstanceRegistry } from "../storage.ts";
import type { InstanceInfo, PoolControl } from "../types.ts";
import { logCount, logNextAt, logStarts, logTokens } from "./start-log.ts";

export class InstanceTable implements InstanceRegistry {
  readonly #events: Listeners;
  readonly #pools = new Map<string, PoolControl>();
  readonly #instances = new Map<string, { info: InstanceInfo; expiresAt: number }>();
  /** Per rate-limited pool, its recent start times ascending (lua: the starts:<pool> zset). */
  readonly #starts = new Map<string, number[]>();

  constructor(events: Listeners) {
    this.#events = events;
  }

  /** Whether `pool` is paused, by its own flag or the global one. */
  isPaused(pool: string): boolean {
    return (this.#pools.get("*")?.paused ?? false) || (this.#pools.get(pool)?.paused ?? false);
  }

  #pool(pool: string): PoolControl {
    let c = this.#pools.get(pool);
    if (!c) {
      c = { pool, size: null, paused: false, globalConcurrency: null, rateLimit: null };
      this.#pools.set(pool, c);
    }
    return c;
  }

  /** The pool's global limit, or null. */
  globalLimit(pool: string): number | null {
    return this.#pools.get(pool)?.globalConcurrency ?? null;
  }

  /** Starts the rate limit allows now (Infinity: none); see start-log.ts. */
  rateTokens(pool: string, now: number): number {
    const rate = this.#pools.get(pool)?.rateLimit;
    if (!rate) return Infinity;
    return logTokens(this.#starts.get(pool) ?? [], rate.max, rate.perMs, now);
  }

  /** Logs `n` starts at `now` (rate-limited pools only). */
  logStarts(pool: string, n: number, now: number): void {
    if (!this.#pools.get(pool)?.rateLimit || n <= 0) return;
    let log = this.#starts.get(pool);
    if (!log) this.#starts.set(pool, log = []);
    logStarts(log, n, now);
  }

  /** When the next start is allowed while the window is full at `now` (see logNextAt). */
  nextStartAt(pool: string, now: number): number | undefined {
    const rate = this.#pools.get(pool)?.rateLimit;
    const log = this.#starts.get(pool);
    if (!rate || !log || logCount(log, rate.perMs, now) < rate.max) return undefined;
    return logNextAt(log, rate.perMs, now);
  }

  setPoolLimits({ pool, limits, ifAbsent }: PoolLimitsParams): Promise<void> {
    const c = this.#pool(pool);
    const { globalConcurrency: g, rateLimit: r } = limits;
    if (g !== undefined && !(ifAbsent && c.globalConcurrency !== null)) c.globalConcurrency = g;
    if (r !== undefined && !(ifAbsent && c.rateLimit !== null)) {
      c.rateLimit = r && { ...r };
      if (r === null) this.#starts.delete(pool);
    }
    this.#events.emit({ kind: "control" });
    this.#events.emit({ kind: "ready", pool });
    return Promise.resolve();
  }

  poolStarts({ pool, perMs, now }: PoolStartsParams): Promise<number> {
    const log = this.#starts.get(pool) ?? [];
    return Promise.resolve(log.filter((at) => at > now - perMs && at <= now).length);
  }

  setPoolSize({ pool, size }: PoolSizeParams): Promise<void> {
    this.#pool(pool).size = size;
    this.#events.emit({ kind: "control" });
    return Promise.resolve();
  }

  setPaused({ pool, paused }: PauseParams): Promise<void> {
    if (pool === null && !paused) { for (const c of this.#pools.values()) c.paused = false; }
    else this.#pool(pool ?? "*").paused = paused;
    this.#events.emit({ kind: "control" });
    if (!paused) {
      for (const c of this.#pools.values()) this.#events.emit({ kind: "ready", pool: c.pool });
    }
    return Promise.resolve();
  }

  poolControls(): Promise<PoolControl[]> {
    return Promise.resolve(
      [...this.#pools.values()].map((c) => ({
        ...c,
        rateLimit: c.rateLimit && { ...c.rateLimit },
      })),
    );
  }

  heartbeat({ info, ttlMs, now }: HeartbeatParams): Promise<void> {
    this.#instances.set(info.id, { info: { ...info, lastSeen: now }, expiresAt: now + ttlMs });
    return Promise.resolve();
  }

  listInstances(now: number): Promise<InstanceInfo[]> {
    const live: InstanceInfo[] = [];
    for (const [id, entry] of this.#instances) {
      if (entry.expiresAt < now) this.#instances.delete(id);
      else live.push({ ...entry.info });
    }
    return Promise.resolve(live);
  }

  removeInstance(id: string): Promise<void> {
    this.#instances.delete(id);
    return Promise.resolve();
  }
}
