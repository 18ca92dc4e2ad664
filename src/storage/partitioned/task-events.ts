/**
 * @module partitioned/task-events — the task events of every partition as one stream.
 *
 * Each partition numbers its own batches (src/core/task-event.ts); the merged stream gives
 * each event an id that is a position in every partition at once,
 * `<b0>.<b1>…/<k>.<index>`, so a reader that comes back with the last id it got (on any
 * node) resumes every partition where it left it. Batches stay whole and each partition's
 * keep their order; partitions interleave as their batches arrive (live) or oldest first by
 * their first event's time (a resume), so ids compare within a partition only.
 *
 * The live merge opens with the first listener: it subscribes to every partition and reads
 * each one's last batch number (one read per partition), so positions are complete from the
 * first event on; batches that arrive while that read runs wait for it. A partition's
 * subscription may open after a batch was recorded (a sharded subscriber connects lazily):
 * batches a partition's stream skipped are read from its buffer before the next one, so a
 * listener gets every batch recorded after it subscribed, each once, in order.
 */
import {
  type EventPosition,
  formatPosition,
  parseEventId,
  parsePosition,
  type TaskEvent,
} from "../../core/task-event.ts";
import type { EventSource } from "../storage.ts";
import type { TaskEventListener, TaskEventPage, TaskEventSubscription } from "../types.ts";

/** A partition as this merge reads it: its events, and the number of its last batch. */
export type EventPart = Pick<EventSource, "subscribeTaskEvents" | "taskEventsAfter"> & {
  taskEventTip(): Promise<number>;
};

/** A batch's number (every event of a batch carries it). */
const batchOf = (events: TaskEvent[]) => parseEventId(events[0].eventId)!.batch;

/** The events of partition `part` with ids in the merged stream at positions `seen`. */
function renumber(events: TaskEvent[], seen: number[], part: number): TaskEvent[] {
  return events.map((e) => ({
    ...e,
    eventId: formatPosition({ batches: seen, part, index: parseEventId(e.eventId)!.index }),
  }));
}

export class MergedTaskEvents {
  readonly #parts: EventPart[];
  readonly #listeners = new Set<TaskEventListener>();
  #offs: TaskEventSubscription[] = [];
  /** Every partition's subscription in place and the tips read (or a first read failed). */
  #ready: Promise<void> = Promise.resolve();
  /** Per partition, the last batch delivered; null until the tips are read. */
  #seen: number[] | null = null;
  #held: [number, TaskEvent[], boolean][] = [];
  /** Per partition, the delivery in progress (batches of one partition go in order). */
  #chains: Promise<void>[] = [];

  constructor(parts: EventPart[]) {
    this.#parts = parts;
  }

  subscribe(listener: TaskEventListener): TaskEventSubscription {
    this.#listeners.add(listener);
    if (this.#offs.length === 0) this.#open();
    return {
      ready: this.#ready,
      close: () => {
        this.#listeners.delete(listener);
        if (this.#listeners.size === 0) this.#close();
      },
    };
  }

  #open(): void {
    this.#chains = this.#parts.map(() => Promise.resolve());
    this.#offs = this.#parts.map((p, k) =>
      p.subscribeTaskEvents((events, missed) => this.#receive(k, events, missed))
    );
    const offs = this.#offs;
    // Tips read once every subscription is live: a batch recorded after them arrives live.
    const readTips = async (): Promise<void> => {
      try {
        const tips = await Promise.all(this.#parts.map((p) => p.taskEventTip()));
        if (this.#offs !== offs) return;
        this.#seen = tips;
        for (const [k, events, missed] of this.#held.splice(0)) this.#queue(k, events, missed);
      } catch {
        // A store that did not answer: try again (batches wait meanwhile).
        if (this.#offs === offs) setTimeout(readTips, 1_000);
      }
    };
    this.#ready = Promise.all(offs.map((o) => o.ready)).then(readTips);
  }

  #close(): void {
    for (const sub of this.#offs.splice(0)) sub.close();
    this.#seen = null;
    this.#held = [];
  }

  #receive(part: number, events: TaskEvent[], missed: boolean): void {
    if (events.length === 0) return;
    if (this.#seen === null) this.#held.push([part, events, missed]);
    else this.#queue(part, events, missed);
  }

  #queue(part: number, events: TaskEvent[], missed: boolean): void {
    const offs = this.#offs;
    this.#chains[part] = this.#chains[part].then(async () => {
      if (this.#offs !== offs) return;
      const batch = batchOf(events);
      if (!missed && batch > this.#seen![part] + 1) await this.#fill(part, batch, offs);
      this.#deliver(part, events, missed);
    });
  }

  /** Delivers partition `part`'s batches between the last one delivered and `before`. */
  async #fill(part: number, before: number, offs: TaskEventSubscription[]): Promise<void> {
    while (this.#offs === offs && this.#seen![part] + 1 < before) {
      let page: TaskEventPage;
      try {
        page = await this.#parts[part].taskEventsAfter(`${this.#seen![part]}/999999`, 1000);
      } catch {
        return; // Unreadable now: the batches are skipped, as a live stream would have.
      }
      const batches = groupBatches(page.events).filter((b) => batchOf(b) < before);
      if (batches.length === 0) return;
      for (const b of batches) this.#deliver(part, b, page.missed);
    }
  }

  #deliver(part: number, events: TaskEvent[], missed: boolean): void {
    const seen = this.#seen;
    if (!seen) return;
    const batch = batchOf(events);
    // Recorded before the tips were read: before this stream began.
    if (batch <= seen[part]) return;
    seen[part] = batch;
    const merged = renumber(events, [...seen], part);
    for (const listener of this.#listeners) listener(merged, missed);
  }

  /**
   * Buffered events after `after`, at most `limit`: each partition read after its position,
   * batches merged oldest first. `0/0` replays every partition's whole buffer.
   */
  async after(after: string, limit: number): Promise<TaskEventPage> {
    const n = this.#parts.length;
    const from: EventPosition | null = after === "0/0"
      ? { batches: Array(n).fill(0), part: 0, index: 0 }
      : parsePosition(after);
    if (!from || from.batches.length !== n) return { events: [], missed: true };
    const pages = await Promise.all(this.#parts.map((p, k) =>
      p.taskEventsAfter(
        `${from.batches[k]}/${k === from.part && after !== "0/0" ? from.index : 999_999}`,
        limit,
      )
    ));
    const queues = pages.map((page) => groupBatches(page.events));
    const seen = [...from.batches];
    const out: TaskEvent[] = [];
    while (out.length < limit) {
      let best = -1;
      for (let k = 0; k < n; k++) {
        const head = queues[k][0];
        if (head && (best < 0 || head[0].at < queues[best][0][0].at)) best = k;
      }
      if (best < 0) break;
      // A partition whose page was cut may hold more before its next batch: stop at its end.
      const batch = queues[best].shift()!;
      seen[best] = batchOf(batch);
      out.push(...renumber(batch.slice(0, limit - out.length), [...seen], best));
      if (queues[best].length === 0 && pages[best].events.length >= limit) break;
    }
    return { events: out, missed: pages.some((p) => p.missed) };
  }
}

/** A page's events as whole batches (a page cut at its limit may end with part of one). */
function groupBatches(events: TaskEvent[]): TaskEvent[][] {
  const out: TaskEvent[][] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (last && batchOf(last) === parseEventId(e.eventId)!.batch) last.push(e);
    else out.push([e]);
  }
  return out;
}
