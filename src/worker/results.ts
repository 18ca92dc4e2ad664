/**
 * @module results — the stream of finished attempts this process ran, as listeners and as
 * async iterators. Each iterator buffers independently; a slow consumer never blocks
 * dispatch (its buffer is bounded and the oldest records are dropped past the bound).
 */
import type { AttemptRecord } from "../core/task.ts";

type Status = AttemptRecord["status"];

interface Listener {
  call: (record: AttemptRecord) => void;
  /** The statuses it wants; null: every one. */
  statuses: ReadonlySet<Status> | null;
}

export class ResultStream {
  readonly #listeners = new Set<Listener>();

  /** True while someone listens for attempts ending with `status`: only then is one built. */
  wants(status: Status): boolean {
    for (const l of this.#listeners) if (!l.statuses || l.statuses.has(status)) return true;
    return false;
  }

  /**
   * Calls `listener` with every finished attempt, or with those ending in one of `statuses`;
   * returns the unsubscribe function.
   */
  on(listener: (record: AttemptRecord) => void, statuses?: readonly Status[]): () => void {
    const entry: Listener = { call: listener, statuses: statuses ? new Set(statuses) : null };
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }

  publish(record: AttemptRecord): void {
    for (const listener of this.#listeners) {
      if (listener.statuses && !listener.statuses.has(record.status)) continue;
      try {
        listener.call(record);
      } catch { /* a listener's bug must not break dispatch */ }
    }
  }

  /** An async iterator over attempts finished from now on, until `signal` aborts. */
  async *iterate(signal?: AbortSignal, bound = 10_000): AsyncGenerator<AttemptRecord> {
    const buffer: AttemptRecord[] = [];
    let wake: (() => void) | null = null;
    const off = this.on((record) => {
      buffer.push(record);
      if (buffer.length > bound) buffer.shift();
      wake?.();
    });
    const onAbort = () => wake?.();
    signal?.addEventListener("abort", onAbort);
    try {
      while (!signal?.aborted) {
        if (buffer.length) {
          yield buffer.shift()!;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      off();
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
