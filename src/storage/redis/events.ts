/**
 * @module events — a Redis store's one event path: the events of its own writes, derived
 * from script replies and delivered at once, and the store's pub/sub channel (events of
 * every instance), fanned out to the same in-process listeners.
 *
 * One subscription per store instance, opened by `init()` (or the first listener). Delivery
 * is on a microtask, like the embedded store's. Pub/sub is best effort: a message published
 * while the subscriber reconnects is lost, which is why workers also poll at a slow pace.
 * The pub/sub copy of an event this store already delivered arrives too, later: it is not
 * deduplicated (another instance may publish an identical event meanwhile, and a wake-up
 * lost to a wrong match costs a backstop poll), since every reaction is idempotent.
 */
import type { NewTask } from "../../core/task.ts";
import { Listeners } from "../listeners.ts";
import type { Enqueued, StorageEvent } from "../types.ts";
import { decodeEvent } from "./codec.ts";
import type { RedisTransport, Unsubscribe } from "./transport.ts";

export class EventHub {
  readonly #transport: RedisTransport;
  readonly #channel: string;
  readonly #listeners = new Listeners();
  readonly #remote: boolean;
  #subscription: Promise<Unsubscribe> | null = null;

  /** `remote` false: only this store's own events, and the channel is never subscribed. */
  constructor(transport: RedisTransport, channel: string, remote = true) {
    this.#transport = transport;
    this.#channel = channel;
    this.#remote = remote;
  }

  /** Subscribes to the channel once; later calls share the first subscription. */
  start(): Promise<void> {
    if (!this.#remote) return Promise.resolve();
    this.#subscription ??= this.#transport.subscribe(this.#channel, (message) => {
      const event = decodeEvent(message);
      if (event) this.#listeners.emit(event);
    });
    return this.#subscription.then(() => {}, (error) => {
      this.#subscription = null;
      throw error;
    });
  }

  add(listener: (event: StorageEvent) => void): () => void {
    const off = this.#listeners.add(listener);
    // A listener added before init() still gets a subscription; failures surface in init().
    this.start().catch(() => {});
    return off;
  }

  /** Delivers the events of a write this store made (the same events its script published). */
  local(events: Iterable<StorageEvent>): void {
    for (const event of events) this.#listeners.emit(event);
  }

  async stop(): Promise<void> {
    this.#listeners.clear();
    const sub = this.#subscription;
    this.#subscription = null;
    if (sub) await (await sub.catch(() => null))?.();
  }
}

/**
 * The events of an enqueue, as lua/includes/insert.lua publishes them: per stored task,
 * `ready` once per pool with queued work (as announceReady does), `delayed` for a scheduled
 * one, `expiry` for one with an expiry; `delayed` again for a re-armed debounced task.
 */
export function enqueuedEvents(
  tasks: readonly NewTask[],
  answers: readonly Enqueued[],
): StorageEvent[] {
  const events: StorageEvent[] = [];
  const pools = new Set<string>();
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i], a = answers[i];
    if ("deduplicated" in a) continue;
    if ("debounced" in a) {
      events.push({ kind: "delayed", id: a.id, runAt: a.runAt });
      continue;
    }
    if (a.status === "queued" && !pools.has(t.pool)) {
      pools.add(t.pool);
      events.push({ kind: "ready", pool: t.pool });
    } else if (a.status === "scheduled" && t.runAt !== null) {
      events.push({ kind: "delayed", id: t.id, runAt: t.runAt });
    }
    if (t.expiresAt != null && a.status !== "cancelled") {
      events.push({ kind: "expiry", id: t.id, at: t.expiresAt });
    }
  }
  return events;
}
