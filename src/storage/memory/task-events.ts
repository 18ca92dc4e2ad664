/**
 * @module task-events — the embedded store's task events (src/core/task-event.ts), as
 * lua/includes/task-events.lua records them: the events of one burst of calls form a batch
 * (numbered, at most TASK_EVENT_CHUNK events), delivered to subscribers on a microtask and
 * kept, the last TASK_EVENT_BUFFER batches, for readers that resume.
 */
import {
  eventAfter,
  numbered,
  parseEventId,
  type RecordedTaskEvent,
  TASK_EVENT_BUFFER,
  TASK_EVENT_CHUNK,
  type TaskEvent,
} from "../../core/task-event.ts";
import type { TaskEventListener, TaskEventPage } from "../types.ts";

export class MemoryTaskEvents {
  readonly #listeners = new Set<TaskEventListener>();
  /** Kept batches, oldest first; `#first` is the number of batches[0]. */
  #batches: TaskEvent[][] = [];
  #first = 1;
  #pending: RecordedTaskEvent[] = [];
  readonly #enabled: boolean;
  readonly #buffer: number;

  /** `enabled` false: nothing is recorded (the deployment's events are off). */
  constructor(enabled = true, buffer = TASK_EVENT_BUFFER) {
    this.#enabled = enabled;
    this.#buffer = buffer;
  }

  /** Records one event; the burst's events are numbered and delivered on a microtask. */
  record(event: RecordedTaskEvent): void {
    if (!this.#enabled) return;
    if (this.#pending.push(event) === 1) queueMicrotask(this.#flush);
  }

  /** The number of the last batch recorded (0: none yet). */
  get tip(): number {
    return this.#first + this.#batches.length - 1;
  }

  subscribe(listener: TaskEventListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  after(after: string, limit: number): TaskEventPage {
    const from = parseEventId(after);
    const last = this.#first + this.#batches.length - 1;
    // An id past the last batch is from before a restart (numbering began again).
    if (!from || from.batch > last) return { events: [], missed: true };
    // Batches right after `from` were dropped from the buffer: the reader missed them.
    const missed = from.batch + 1 < this.#first;
    const events: TaskEvent[] = [];
    for (let b = Math.max(0, from.batch - this.#first); b < this.#batches.length; b++) {
      for (const e of this.#batches[b]) {
        if (events.length >= limit) return { events, missed };
        if (eventAfter(parseEventId(e.eventId)!, from)) events.push(e);
      }
    }
    return { events, missed };
  }

  readonly #flush = () => {
    const pending = this.#pending;
    this.#pending = [];
    for (let i = 0; i < pending.length; i += TASK_EVENT_CHUNK) {
      const batch = numbered(
        this.#first + this.#batches.length,
        pending.slice(i, i + TASK_EVENT_CHUNK),
      );
      this.#batches.push(batch);
      if (this.#batches.length > this.#buffer) {
        this.#batches.shift();
        this.#first++;
      }
      for (const listener of this.#listeners) listener(batch, false);
    }
  };
}
