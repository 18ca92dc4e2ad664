/**
 * @module task-events — the embedded store's task events (src/core/task-event.ts), as
 * lua/includes/task-events.lua records them: the events of one burst of calls form a batch
 * (numbered, at most TASK_EVENT_CHUNK events), delivered to subscribers on a microtask and
 * kept, the last TASK_EVENT_BUFFER batches, for readers that resume.
 */
import {
  eventAfter,
  parseEventId,
  TASK_EVENT_BUFFER,
  TASK_EVENT_CHUNK,
  type TaskEvent,
  type TaskEventKind,
} from "../../core/task-event.ts";
import type { TaskEventListener, TaskEventPage } from "../types.ts";

/**
 * One recorded event, in one fixed shape whatever its kind, and without its id: the id is
 * its batch and index, so the `TaskEvent` a reader sees is made only when one reads it (most
 * events of a busy store are never read, but all are kept in the buffer).
 */
class Recorded {
  constructor(
    readonly kind: TaskEventKind,
    readonly id: string,
    readonly type: string,
    readonly pool: string,
    readonly at: number,
    readonly status: string | undefined,
    readonly attempt: number | undefined,
    readonly runAt: number | undefined,
    readonly progress: number | undefined,
  ) {}

  /** As readers get it, the fields of its kind only, in the order the stores write them. */
  event(batch: number, index: number): TaskEvent {
    const e: TaskEvent = {
      eventId: `${batch}/${index}`,
      kind: this.kind,
      id: this.id,
      type: this.type,
      pool: this.pool,
      at: this.at,
    };
    if (this.status !== undefined) e.status = this.status;
    if (this.attempt !== undefined) e.attempt = this.attempt;
    if (this.runAt !== undefined) e.runAt = this.runAt;
    if (this.progress !== undefined) e.progress = this.progress;
    return e;
  }
}

/** What an event records beside its task: the fields its kind carries. */
export interface EventDetail {
  status?: string;
  attempt?: number;
  runAt?: number;
  progress?: number;
}

const NONE: Recorded[] = [];

export class MemoryTaskEvents {
  readonly #listeners = new Set<TaskEventListener>();
  /**
   * Kept batches, oldest first, from `#head` on (the ones before it are dropped, and cut off
   * now and then: a shift per batch moved the whole buffer); `#first` is the number of
   * batches[#head].
   */
  #batches: Recorded[][] = [];
  #head = 0;
  #first = 1;
  #pending: Recorded[] = [];
  readonly #enabled: boolean;
  readonly #buffer: number;

  /** `enabled` false: nothing is recorded (the deployment's events are off). */
  constructor(enabled = true, buffer = TASK_EVENT_BUFFER) {
    this.#enabled = enabled;
    this.#buffer = buffer;
  }

  /** Records one event; the burst's events are numbered and delivered on a microtask. */
  record(
    kind: TaskEventKind,
    task: { id: string; type: string; pool: string },
    at: number,
    detail?: EventDetail,
  ): void {
    if (!this.#enabled) return;
    const e = new Recorded(
      kind,
      task.id,
      task.type,
      task.pool,
      at,
      detail?.status,
      detail?.attempt,
      detail?.runAt,
      detail?.progress,
    );
    if (this.#pending.push(e) === 1) queueMicrotask(this.#flush);
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
    const head = this.#head;
    const last = this.#first + this.#batches.length - head - 1;
    // An id past the last batch is from before a restart (numbering began again).
    if (!from || from.batch > last) return { events: [], missed: true };
    // Batches right after `from` were dropped from the buffer: the reader missed them.
    const missed = from.batch + 1 < this.#first;
    const events: TaskEvent[] = [];
    for (let b = head + Math.max(0, from.batch - this.#first); b < this.#batches.length; b++) {
      const batch = this.#batches[b], n = this.#first + b - head;
      for (let i = 0; i < batch.length; i++) {
        if (events.length >= limit) return { events, missed };
        if (eventAfter({ batch: n, index: i }, from)) events.push(batch[i].event(n, i));
      }
    }
    return { events, missed };
  }

  readonly #flush = () => {
    const pending = this.#pending;
    this.#pending = [];
    for (let i = 0; i < pending.length; i += TASK_EVENT_CHUNK) {
      const batch = pending.length <= TASK_EVENT_CHUNK
        ? pending
        : pending.slice(i, i + TASK_EVENT_CHUNK);
      const n = this.#first + this.#batches.length - this.#head;
      this.#batches.push(batch);
      if (this.#batches.length - this.#head > this.#buffer) {
        this.#batches[this.#head++] = NONE;
        this.#first++;
        if (this.#head >= this.#buffer) {
          this.#batches = this.#batches.slice(this.#head);
          this.#head = 0;
        }
      }
      if (this.#listeners.size === 0) continue;
      const events = batch.map((e, index) => e.event(n, index));
      for (const listener of this.#listeners) listener(events, false);
    }
  };
}
