/**
 * @module results — the stream of finished attempts this process ran, as listeners and as
 * async iterators. Each iterator buffers independently; a slow consumer never blocks
 * dispatch (its buffer is bounded and the oldest records are dropped past the bound).
 */
import type { AttemptRecord } from "../core/task.ts";

export class ResultStream {
  readonly #listeners = new Set<(record: AttemptRecord) => void>();

  /** True while someone listens or iterates. */
  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  /** Calls `listener` with every finished attempt; returns the unsubscribe function. */
  on(listener: (record: AttemptRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(record: AttemptRecord): void {
    for (const listener of this.#listeners) {
      try {
        listener(record);
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
