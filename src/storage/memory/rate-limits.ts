/**
 * @module rate-limits — the embedded store's sliding-window limits
 * ({@link Storage.hitRateLimit}), the same decision as lua/hitRateLimit-1.lua.
 */
import type { RateLimitResult } from "../storage.ts";
import { checkRateLimit, decide } from "../rate-limit.ts";

interface Entry {
  /** Counted hits, most recent first, at most `limit` kept. */
  hits: number[];
  /** When the entry may be forgotten: its last hit plus its window. */
  until: number;
}

/** Limits by key; forgotten keys are swept when the table doubles, so memory stays bounded. */
export class RateLimits {
  readonly #entries = new Map<string, Entry>();
  #sweepAt = 1024;

  hit(key: string, limit: number, windowMs: number, now: number): Promise<RateLimitResult> {
    try {
      checkRateLimit(key, limit, windowMs, now);
    } catch (error) {
      return Promise.reject(error);
    }
    const entry = this.#entries.get(key);
    const kept = entry ? entry.hits.slice(0, limit) : [];
    const result = decide(kept, limit, windowMs, now);
    if (result.allowed) {
      kept.unshift(now);
      kept.length = Math.min(kept.length, limit);
      this.#entries.set(key, { hits: kept, until: now + windowMs });
      if (this.#entries.size >= this.#sweepAt) this.#sweep(now);
    }
    return Promise.resolve(result);
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.until <= now) this.#entries.delete(key);
    this.#sweepAt = Math.max(1024, this.#entries.size * 2);
  }
}
