/**
 * @module task-events — a Redis store's task events (src/core/task-event.ts), as
 * lua/includes/task-events.lua records them: batch n is entry `<n>-0` of the `tevents`
 * stream and a message "<n> <JSON array>" on the `tevents` channel.
 *
 * One subscription to the channel per store, opened for the first listener and closed with
 * the last, so a process that streams no events to anyone receives none. Pub/sub is best
 * effort: when a batch arrives whose number skips one, the skipped batches are read from the
 * stream first, so listeners get every batch in order (`missed` marks a batch after ones the
 * stream no longer held either).
 */
import {
  eventAfter,
  numbered,
  parseEventId,
  type RecordedTaskEvent,
  TASK_EVENT_BUFFER,
  type TaskEvent,
} from "../../core/task-event.ts";
import type { TaskEventListener, TaskEventPage } from "../types.ts";
import type { RedisReply, RedisTransport, Unsubscribe } from "./transport.ts";

/** Stream entries read per XRANGE (each holds up to TASK_EVENT_CHUNK events). */
const ENTRIES_PER_READ = 100;

/** The meta field that turns a deployment's task events off (lua/includes/prefix.lua). */
export const EVENTS_OFF_FIELD = "events";

export class TaskEventHub {
  readonly #transport: RedisTransport;
  readonly #prefix: string;
  readonly #listeners = new Set<TaskEventListener>();
  #subscription: Promise<Unsubscribe> | null = null;
  /** The last batch delivered (null: none since the subscription opened). */
  #last: number | null = null;
  /** Batches are handled one after another, fills included. */
  #chain: Promise<void> = Promise.resolve();

  constructor(transport: RedisTransport, prefix: string) {
    this.#transport = transport;
    this.#prefix = prefix;
  }

  get #stream(): string {
    return `${this.#prefix}tevents`;
  }

  subscribe(listener: TaskEventListener): () => void {
    this.#listeners.add(listener);
    this.#subscription ??= this.#transport.subscribe(this.#stream, (message) => {
      this.#chain = this.#chain.then(() => this.#receive(message)).catch(() => {});
    });
    this.#subscription.catch(() => {
      this.#subscription = null;
    });
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) void this.stop();
    };
  }

  async stop(): Promise<void> {
    this.#listeners.clear();
    const sub = this.#subscription;
    this.#subscription = null;
    this.#last = null;
    if (sub) await (await sub.catch(() => null))?.();
  }

  /** Buffered events after event id `after`, at most `limit` (see EventSource). */
  async after(after: string, limit: number): Promise<TaskEventPage> {
    const from = parseEventId(after);
    if (!from) return { events: [], missed: true };
    const events: TaskEvent[] = [];
    // Batch numbers run without gaps: one skipped is one the stream no longer holds.
    let next = from.batch;
    let missed = false;
    let read = false;
    while (events.length < limit) {
      const entries = await this.#range(next, "+", ENTRIES_PER_READ);
      for (const [n, batch] of entries) {
        if (n > Math.max(next, from.batch + 1)) missed = true;
        for (const e of batch) if (eventAfter(parseEventId(e.eventId)!, from)) events.push(e);
        next = n + 1;
        read = true;
      }
      if (entries.length < ENTRIES_PER_READ) break;
    }
    if (!read) {
      // Nothing after it: fine, unless the store never numbered that far (reset since).
      const seq = Number(await this.#transport.send(["GET", `${this.#prefix}tevseq`]) ?? 0);
      missed = from.batch > seq;
    }
    return { events: events.slice(0, limit), missed };
  }

  async #receive(message: string): Promise<void> {
    const space = message.indexOf(" ");
    const n = Number(message.slice(0, space));
    if (!Number.isSafeInteger(n)) return;
    if (this.#last !== null && n <= this.#last) return; // a batch already delivered
    let missed = false;
    if (this.#last !== null && n > this.#last + 1) missed = await this.#fill(this.#last + 1, n - 1);
    this.#deliver(n, numbered(n, JSON.parse(message.slice(space + 1))), missed);
  }

  /** Delivers batches from..to from the stream; true when some were no longer there. */
  async #fill(from: number, to: number): Promise<boolean> {
    // At most the buffer is there to read: older batches are gone.
    let next = Math.max(from, to - TASK_EVENT_BUFFER);
    let missed = next > from;
    try {
      while (next <= to) {
        const entries = await this.#range(next, `${to}-0`, ENTRIES_PER_READ);
        if (entries.length === 0) break;
        for (const [n, batch] of entries) {
          this.#deliver(n, batch, missed || n > next);
          missed = false;
          next = n + 1;
        }
      }
    } catch {
      // The store did not answer: the listeners hear of a gap with the next batch.
    }
    return missed || next <= to;
  }

  #deliver(n: number, events: TaskEvent[], missed: boolean): void {
    this.#last = n;
    for (const listener of this.#listeners) listener(events, missed);
  }

  /** Stream entries from batch `from` up to `to` (an entry id or "+"), as numbered batches. */
  async #range(from: number, to: string, count: number): Promise<[number, TaskEvent[]][]> {
    const reply = await this.#transport.send(
      ["XRANGE", this.#stream, `${from}-0`, to, "COUNT", String(count)],
    ) as RedisReply[];
    return (reply ?? []).map((entry) => {
      const [id, fields] = entry as [string, string[]];
      const n = Number(id.slice(0, id.indexOf("-")));
      const json = fields[fields.indexOf("e") + 1];
      return [n, numbered(n, JSON.parse(json) as RecordedTaskEvent[])];
    });
  }
}
