/**
 * @module listeners — a store's local subscribers. Events are delivered on a microtask, one
 * per burst: queued while a write runs, they reach every listener before the write's
 * caller resumes, and a promotion of 1000 tasks is one delivery, not 1000.
 */
import type { StorageEvent } from "./types.ts";

export class Listeners {
  readonly #set = new Set<(event: StorageEvent) => void>();
  #outbox: StorageEvent[] = [];
  /**
   * Pools with a `ready` in the outbox: one per pool and burst is enough (a promotion of 1000
   * tasks of one pool used to deliver 1000), since reactions to events are idempotent.
   */
  #readyPools = new Set<string>();

  add(listener: (event: StorageEvent) => void): () => void {
    this.#set.add(listener);
    return () => {
      this.#set.delete(listener);
    };
  }

  emit(event: StorageEvent): void {
    if (this.#set.size === 0) return;
    if (event.kind === "ready") {
      if (this.#readyPools.has(event.pool)) return;
      this.#readyPools.add(event.pool);
    }
    if (this.#outbox.push(event) === 1) queueMicrotask(this.#deliver);
  }

  clear(): void {
    this.#set.clear();
  }

  readonly #deliver = () => {
    const events = this.#outbox;
    this.#outbox = [];
    if (this.#readyPools.size > 0) this.#readyPools.clear();
    for (const event of events) for (const listener of this.#set) listener(event);
  };
}
