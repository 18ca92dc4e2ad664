/**
 * @module events — the store's pub/sub channel, fanned out to in-process listeners.
 *
 * One subscription per store instance, opened by `init()` (or the first listener), so
 * events published by scripts on any instance reach every listener here. Delivery is on a
 * microtask, like the embedded store's, and best effort: a message published while the
 * subscriber reconnects is lost, which is why workers also poll at a slow pace.
 */
import type { StorageEvent } from "../storage.ts";
import { decodeEvent } from "./codec.ts";
import type { RedisTransport, Unsubscribe } from "./transport.ts";

export class EventHub {
  readonly #transport: RedisTransport;
  readonly #channel: string;
  readonly #listeners = new Set<(event: StorageEvent) => void>();
  #subscription: Promise<Unsubscribe> | null = null;

  constructor(transport: RedisTransport, channel: string) {
    this.#transport = transport;
    this.#channel = channel;
  }

  /** Subscribes to the channel once; later calls share the first subscription. */
  start(): Promise<void> {
    this.#subscription ??= this.#transport.subscribe(this.#channel, (message) => {
      const event = decodeEvent(message);
      if (!event || this.#listeners.size === 0) return;
      queueMicrotask(() => {
        for (const listener of this.#listeners) listener(event);
      });
    });
    return this.#subscription.then(() => {}, (error) => {
      this.#subscription = null;
      throw error;
    });
  }

  add(listener: (event: StorageEvent) => void): () => void {
    this.#listeners.add(listener);
    // A listener added before init() still gets a subscription; failures surface in init().
    this.start().catch(() => {});
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async stop(): Promise<void> {
    this.#listeners.clear();
    const sub = this.#subscription;
    this.#subscription = null;
    if (sub) await (await sub.catch(() => null))?.();
  }
}
