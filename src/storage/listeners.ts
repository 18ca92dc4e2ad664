/**
 * @module listeners — a store's local subscribers. Events are delivered on a microtask, one
 * per burst: queued while a write runs, they reach every listener before the write's
 * caller resumes, and a promotion of 1000 tasks is one delivery, not 1000.
 */
import type { StorageEvent } from "./types.ts";

export class Listeners {
  readonly #set = new Set<(event: StorageEvent) => void>();
  #outbox: StorageEvent[] = [];

  add(listener: (event: StorageEvent) => void): () => void {
    this.#set.add(listener);
    return () => {
      this.#set.delete(listener);
    };
  }

  emit(event: StorageEvent): void {
    if (this.#set.size === 0) return;
    if (this.#outbox.push(event) === 1) queueMicrotask(this.#deliver);
  }

  clear(): void {
    this.#set.clear();
  }

  readonly #deliver = () => {
    const events = this.#outbox;
    this.#outbox = [];
    for (const event of events) for (const listener of this.#set) listener(event);
  };
}
