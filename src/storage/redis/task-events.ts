/**
 * @module task-events — a Redis store's task events (src/core/task-event.ts), as
 * lua/includes/task-events.lua records them: batch n is entry `<n>-0` of the `tevents`
 * stream (its field `e`: the events' values joined by "|"), and n is published on the
 * `tevents` channel.
 *
 * One subscription to the channel per store, opened for the first listener and closed with
 * the last, so a process that streams no events to anyone receives none. A message only says
 * how far the stream goes: the batches after the last one delivered are read from the stream,
 * one read for however many messages came meanwhile, so a lost message costs nothing and
 * listeners get every batch in order (`missed` marks a batch after ones the stream no longer
 * held).
 */
import {
  eventAfter,
  numbered,
  parseEventId,
  type RecordedTaskEvent,
  type TaskEvent,
} from "../../core/task-event.ts";
import type { TaskEventListener, TaskEventPage, TaskEventSubscription } from "../types.ts";
import type { RedisReply, RedisTransport, Unsubscribe } from "./transport.ts";

/** Stream entries read per XRANGE (each holds up to TASK_EVENT_CHUNK events). */
const ENTRIES_PER_READ = 100;
/** A read the store did not answer is tried again after this. */
const RETRY_READ_MS = 1_000;

/** The meta field that turns a deployment's task events off (lua/includes/prefix.lua). */
export const EVENTS_OFF_FIELD = "events";

export class TaskEventHub {
  readonly #transport: RedisTransport;
  readonly #prefix: string;
  readonly #listeners = new Set<TaskEventListener>();
  #subscription: Promise<Unsubscribe> | null = null;
  #ready: Promise<void> | null = null;
  /** The last batch delivered (null: no message since the subscription opened). */
  #last: number | null = null;
  /** The highest batch a message announced. */
  #target = 0;
  /** The read in progress, if any. */
  #reading: Promise<void> | null = null;
  /** Batches were lost before the next one delivered. */
  #missed = false;

  constructor(transport: RedisTransport, prefix: string) {
    this.#transport = transport;
    this.#prefix = prefix;
  }

  get #stream(): string {
    return `${this.#prefix}tevents`;
  }

  get #seqKey(): string {
    return `${this.#prefix}tevseq`;
  }

  subscribe(listener: TaskEventListener): TaskEventSubscription {
    this.#listeners.add(listener);
    this.#ready ??= this.#start();
    return {
      ready: this.#ready,
      close: () => {
        this.#listeners.delete(listener);
        if (this.#listeners.size === 0) void this.stop();
      },
    };
  }

  /**
   * Takes the stream's position, subscribes, then reads what came between the two: a batch
   * published before the subscription was in place is read from the stream all the same.
   */
  async #start(): Promise<void> {
    try {
      const seq = async () => Number(await this.#transport.send(["GET", this.#seqKey]) ?? 0);
      this.#last ??= await seq();
      this.#subscription = this.#transport.subscribe(this.#stream, (m) => this.#receive(m));
      await this.#subscription;
      this.#receive(String(await seq()));
    } catch {
      // Not in place: the next subscriber tries again.
      this.#subscription = null;
      this.#ready = null;
    }
  }

  async stop(): Promise<void> {
    this.#listeners.clear();
    const sub = this.#subscription;
    this.#subscription = null;
    this.#ready = null;
    this.#last = null;
    this.#target = 0;
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
      const entries = await this.#range(next, ENTRIES_PER_READ);
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
      missed = from.batch > await this.tip();
    }
    return { events: events.slice(0, limit), missed };
  }

  /** The number of the last batch recorded (0: none yet). */
  async tip(): Promise<number> {
    return Number(await this.#transport.send(["GET", `${this.#prefix}tevseq`]) ?? 0);
  }

  /** A message says batches up to n exist: read what is new (one read at a time). */
  #receive(message: string): void {
    const n = Number(message);
    if (!Number.isSafeInteger(n)) return;
    // Live from the first message on: a listener wants what happens from now.
    if (this.#last === null) this.#last = n - 1;
    if (n <= this.#target) return;
    this.#target = n;
    this.#pump();
  }

  /** Starts a read unless one runs; goes on while the target moved meanwhile. */
  #pump(): void {
    if (this.#reading) return;
    this.#reading = this.#catchUp().then((ok) => {
      this.#reading = null;
      const behind = this.#last !== null && this.#last < this.#target && this.#listeners.size > 0;
      // A store that did not answer is read again a little later, not in a tight loop.
      if (behind) ok ? this.#pump() : setTimeout(() => this.#pump(), RETRY_READ_MS);
    });
  }

  /** Delivers the batches after the last one up to the target, in order; false: no answer. */
  async #catchUp(): Promise<boolean> {
    while (this.#last !== null && this.#last < this.#target && this.#listeners.size > 0) {
      let entries: [number, TaskEvent[]][];
      try {
        entries = await this.#range(this.#last + 1, ENTRIES_PER_READ);
      } catch {
        return false;
      }
      if (entries.length === 0) {
        // The batches up to the target are gone (trimmed): the next ones come after a gap.
        this.#missed = true;
        this.#last = this.#target;
        return true;
      }
      for (const [n, events] of entries) this.#deliver(n, events);
    }
    return true;
  }

  #deliver(n: number, events: TaskEvent[]): void {
    const missed = this.#missed || (this.#last !== null && n > this.#last + 1);
    this.#missed = false;
    this.#last = n;
    if (this.#target < n) this.#target = n;
    for (const listener of this.#listeners) listener(events, missed);
  }

  /** Up to `count` stream entries from batch `from` on, as numbered batches. */
  async #range(from: number, count: number): Promise<[number, TaskEvent[]][]> {
    const reply = await this.#transport.send(
      ["XRANGE", this.#stream, `${from}-0`, "+", "COUNT", String(count)],
    ) as RedisReply[];
    return (reply ?? []).map((entry) => {
      const [id, fields] = entry as [string, string[]];
      const n = Number(id.slice(0, id.indexOf("-")));
      return [n, numbered(n, decodeEvents(fields[fields.indexOf("e") + 1] ?? ""))];
    });
  }
}

/** Each kind's own values after kind|id|type|pool|at (lua/includes/task-events.lua). */
const OWN: Record<string, readonly (keyof RecordedTaskEvent)[]> = {
  created: ["status"],
  progress: ["progress"],
  retrying: ["attempt", "runAt"],
  resubmitted: [],
};
const ATTEMPT_ONLY = ["attempt"] as const;

/**
 * A batch's events from its `e` field (see lua/includes/task-events.lua): a kind, type, pool
 * or time left empty is the previous event's (layout 4; earlier batches hold every value), and
 * an event without a "|" is an id whose other values are all the previous event's (layout 5).
 */
export function decodeEvents(batch: string): RecordedTaskEvent[] {
  if (batch === "") return [];
  let kind = "", type = "", pool = "", at = "", own: string[] = [];
  return batch.split("|\n|").map((text) => {
    const values = text.split("|");
    const id = values.length === 1 ? text : values[1]!;
    if (values.length > 1) {
      const [k, , t, p, a, ...rest] = values;
      kind = k || kind;
      type = t || type;
      pool = p || pool;
      at = a || at;
      own = rest;
    }
    const e: Record<string, unknown> = { kind, id, type, pool, at: Number(at) };
    (OWN[kind] ?? ATTEMPT_ONLY).forEach((name, i) => {
      if (own[i] !== undefined) e[name] = name === "status" ? own[i] : Number(own[i]);
    });
    return e as unknown as RecordedTaskEvent;
  });
}
