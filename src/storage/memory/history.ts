/**
 * @module history — the embedded store's record of finished attempts: history with its
 * retention, duration samples per type, and the all-time totals (as lua/includes/finish.lua
 * keeps them in Redis).
 */
import type { AttemptRecord, TaskError } from "../../core/task.ts";
import { attemptMatcher, pageLimit } from "../filter.ts";
import { type DurationSamples, durationStats, SampleRing } from "../stats.ts";
import type { HistoryFilter, HistoryRetention, Page, StorageStats } from "../types.ts";
import type { Row } from "./task-table.ts";

/** The first this many types by first use are reported, as the Redis store reports them. */
const STATS_NAMES_MAX = 1000;

export class AttemptLog {
  /** `stalled`: attempts lost with their worker. Bumped by the transitions that count. */
  readonly totals: StorageStats["totals"] = {
    succeeded: 0,
    failedAttempts: 0,
    dead: 0,
    stalled: 0,
    expired: 0,
  };
  readonly #retention: HistoryRetention;
  readonly #entries: (AttemptRecord & { n: number })[] = [];
  #seq = 0;
  readonly #durations = new Map<string, SampleRing>();

  constructor(retention: HistoryRetention) {
    this.#retention = retention;
  }

  /** The seq of the latest attempt: a task created now has all its attempts after it. */
  mark(): number {
    return this.#seq;
  }

  /** Files the attempt `row` just ended in `status` (its duration joins the type's samples). */
  record(
    row: Row,
    status: AttemptRecord["status"],
    now: number,
    error: TaskError | null = row.error,
  ): void {
    const durationMs = this.sample(row, now);
    this.#entries.push({
      n: ++this.#seq,
      taskId: row.id,
      type: row.type,
      pool: row.pool,
      attempt: row.attempt,
      status,
      error: status === "succeeded" ? null : error && { ...error },
      startedAt: row.startedAt ?? now,
      finishedAt: now,
      durationMs,
      workerId: row.workerId ?? "",
    });
  }

  /** Adds the duration of the attempt `row` just ended to its type's samples; returns it. */
  sample(row: Row, now: number): number {
    const durationMs = Math.max(0, now - (row.startedAt ?? now));
    let ring = this.#durations.get(row.type);
    if (!ring) this.#durations.set(row.type, ring = new SampleRing());
    ring.add(durationMs);
    return durationMs;
  }

  /** Drops attempts beyond retention. */
  prune(now: number): void {
    const { maxAgeMs, maxCount } = this.#retention;
    const h = this.#entries;
    let drop = Math.max(0, h.length - maxCount);
    while (drop < h.length && now - h[drop].finishedAt > maxAgeMs) drop++;
    // Splice in chunks so pruning stays amortised O(1) per attempt.
    if (drop > 0 && (drop >= 1024 || h.length - drop < 1024)) h.splice(0, drop);
  }

  /**
   * A page of attempts matching `filter`, newest first, read back no further than seq
   * `after` (see {@link mark}): the attempts of a task come after its creation.
   */
  list(filter: HistoryFilter, after = 0): Page<AttemptRecord> {
    const match = attemptMatcher(filter);
    const limit = pageLimit(filter);
    const before = filter.cursor ? Number(filter.cursor) : Infinity;
    const h = this.#entries;
    const items: AttemptRecord[] = [];
    let next: string | null = null;
    const oldest = Math.max(0, h.length - this.#retention.maxCount);
    for (let i = h.length - 1; i >= oldest && h[i].n > after; i--) {
      const { n, ...attempt } = h[i];
      if (n >= before || !match(attempt)) continue;
      if (items.length === limit) {
        next = String(h[i + 1]?.n ?? n);
        break;
      }
      items.push(attempt);
      next = null;
    }
    return { items, next: items.length === limit ? next : null };
  }

  /** The samples per type the figures are computed from. */
  samples(): DurationSamples {
    return Object.fromEntries(
      [...this.#durations].slice(0, STATS_NAMES_MAX).map(([type, r]) => [type, r.values()]),
    );
  }

  /** Duration figures per type. */
  durations(): StorageStats["durations"] {
    // Built with fromEntries, which defines each name as an own key whatever it is.
    return Object.fromEntries(
      [...this.#durations].slice(0, STATS_NAMES_MAX)
        .map(([type, r]) => [type, durationStats(r.values())]),
    );
  }
}
