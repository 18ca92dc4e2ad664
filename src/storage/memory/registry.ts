/**
 * @module registry — the embedded store's live instances and the cluster-wide controls of
 * their pools (sizes, pause flags), as lua/setPaused-1.lua, setPoolSize-1.lua and
 * heartbeat-1.lua keep them in Redis.
 */
import type { Listeners } from "../listeners.ts";
import type { HeartbeatParams, PauseParams, PoolSizeParams } from "../params.ts";
import type { InstanceRegistry } from "../storage.ts";
import type { InstanceInfo, PoolControl } from "../types.ts";

export class InstanceTable implements InstanceRegistry {
  readonly #events: Listeners;
  readonly #pools = new Map<string, PoolControl>();
  readonly #instances = new Map<string, { info: InstanceInfo; expiresAt: number }>();

  constructor(events: Listeners) {
    this.#events = events;
  }

  /** Whether `pool` is paused, by its own flag or the global one. */
  isPaused(pool: string): boolean {
    return (this.#pools.get("*")?.paused ?? false) || (this.#pools.get(pool)?.paused ?? false);
  }

  #pool(pool: string): PoolControl {
    let c = this.#pools.get(pool);
    if (!c) this.#pools.set(pool, c = { pool, size: null, paused: false });
    return c;
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
    return Promise.resolve([...this.#pools.values()].map((c) => ({ ...c })));
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
