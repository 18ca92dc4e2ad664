/**
 * @module stats — duration statistics over the most recent samples per task type, shared
 * by every backend (each keeps raw samples; this turns them into figures), so no backend
 * imports another.
 */
import type { DurationStats, StorageStats } from "./types.ts";

/** Each task type's recent duration samples (ms), as a store keeps them. */
export type DurationSamples = Record<string, readonly number[]>;

/** A store's statistics and the samples its durations were computed from (to merge them). */
export interface StatsWithSamples {
  stats: StorageStats;
  samples: DurationSamples;
}

/** How many recent samples per type the stats are computed over. */
export const DURATION_SAMPLES = 1000;

/** count/mean/median/min/max, plus p95/p99 once there are at least 100 samples. */
export function durationStats(samples: readonly number[]): DurationStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { count: 0, meanMs: 0, medianMs: 0, minMs: 0, maxMs: 0 };
  const pick = (q: number) => sorted[Math.min(n - 1, Math.ceil(q * n) - 1)];
  const mid = n >> 1;
  const stats: DurationStats = {
    count: n,
    meanMs: round(sorted.reduce((a, b) => a + b, 0) / n),
    medianMs: n % 2 ? sorted[mid] : round((sorted[mid - 1] + sorted[mid]) / 2),
    minMs: sorted[0],
    maxMs: sorted[n - 1],
  };
  if (n >= 100) {
    stats.p95Ms = pick(0.95);
    stats.p99Ms = pick(0.99);
  }
  return stats;
}

const round = (x: number) => Math.round(x * 100) / 100;

/** A fixed-size ring of the latest samples. */
export class SampleRing {
  #buf: number[] = [];
  #pos = 0;
  readonly #cap: number;

  constructor(capacity = DURATION_SAMPLES) {
    this.#cap = capacity;
  }

  add(x: number): void {
    if (this.#buf.length < this.#cap) this.#buf.push(x);
    else {
      this.#buf[this.#pos] = x;
      this.#pos = (this.#pos + 1) % this.#cap;
    }
  }

  values(): readonly number[] {
    return this.#buf;
  }
}
