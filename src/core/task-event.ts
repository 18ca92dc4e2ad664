/**
 * @module task-event — what happened to a task, as the event stream (`GET /events`) tells it.
 *
 * Every store records the events of a call together, as one numbered batch; an event's id is
 * `<batch>/<index>`, so ids sort in the order the events happened across all processes, and
 * a reader that saw batch n and then batch n + 2 knows it missed one.
 *
 * A partitioned store (src/storage/partitioned/) numbers each partition's batches on its own
 * and merges the partitions' streams; its event ids are positions in every partition at
 * once, `<b0>.<b1>…/<k>.<index>`: the event is index `index` of batch `b<k>` of partition k,
 * and a reader holding it has had partition j's batches through `b<j>`. Ids of one
 * partition sort in the order its events happened; {@link EventPosition} compares them.
 */

/** The kinds of task events, in the order a task's life usually shows them. */
export const TASK_EVENT_KINDS = [
  "created",
  "started",
  "progress",
  "retrying",
  "stalled",
  "requeued",
  "succeeded",
  "dead",
  "cancelled",
  "expired",
  "resubmitted",
] as const;

export type TaskEventKind = typeof TASK_EVENT_KINDS[number];

/** One event of a task's life. */
export interface TaskEvent {
  /** `<batch>/<index>`: the stream's position (an SSE client's `Last-Event-ID`). */
  eventId: string;
  kind: TaskEventKind;
  /** The task's id, type and pool (what a stream is filtered by). */
  id: string;
  type: string;
  pool: string;
  /** When it happened: the `now` of the transition. */
  at: number;
  /** created: the task's first status (queued, scheduled, waiting or cancelled). */
  status?: string;
  /** started, retrying, stalled, requeued, succeeded, dead: the attempt's number. */
  attempt?: number;
  /** retrying: when the next attempt is due. */
  runAt?: number;
  /** progress: 0..100. */
  progress?: number;
}

/** An event as a store records it: without its id, which the batch gives. */
export type RecordedTaskEvent = Omit<TaskEvent, "eventId">;

/** A batch's events with their ids. */
export function numbered(batch: number, events: readonly RecordedTaskEvent[]): TaskEvent[] {
  return events.map((e, i) => ({ eventId: `${batch}/${i}`, ...e }));
}

/** A parsed event id, or null when `id` is not one. */
export function parseEventId(id: string): { batch: number; index: number } | null {
  const m = /^(\d{1,15})\/(\d{1,6})$/.exec(id);
  return m ? { batch: Number(m[1]), index: Number(m[2]) } : null;
}

/**
 * Where an event id puts a reader, in a stream of one partition (`<batch>/<index>`) or of
 * several (`<b0>.<b1>…/<part>.<index>`): partition j's batches through `batches[j]` were
 * delivered, `part`'s through `index` of its batch.
 */
export interface EventPosition {
  batches: number[];
  part: number;
  index: number;
}

/** The position an event id stands for, or null when `id` is not one. */
export function parsePosition(id: string): EventPosition | null {
  const one = parseEventId(id);
  if (one) return { batches: [one.batch], part: 0, index: one.index };
  const m = /^(\d{1,15}(?:\.\d{1,15}){1,63})\/(\d{1,2})\.(\d{1,6})$/.exec(id);
  if (!m) return null;
  const batches = m[1].split(".").map(Number);
  const part = Number(m[2]);
  return part < batches.length ? { batches, part, index: Number(m[3]) } : null;
}

/** The event id of a position (the one-partition form for a stream of one). */
export function formatPosition(p: EventPosition): string {
  return p.batches.length === 1
    ? `${p.batches[0]}/${p.index}`
    : `${p.batches.join(".")}/${p.part}.${p.index}`;
}

/**
 * Whether the event at `a` comes after position `b` (same store): in `a`'s partition, `b`
 * holds batches through `b.batches[a.part]`, all of that batch unless it is `b`'s own.
 */
export function positionAfter(a: EventPosition, b: EventPosition): boolean {
  const k = a.part;
  const batch = a.batches[k];
  const seen = b.batches[k] ?? -1;
  const index = b.part === k ? b.index : Infinity;
  return batch > seen || (batch === seen && a.index > index);
}

/** Whether batches of `a`'s partition were skipped between position `b` and the event `a`. */
export function positionGap(a: EventPosition, b: EventPosition): boolean {
  return a.batches[a.part] > (b.batches[a.part] ?? -1) + 1;
}

/** Whether event id `a` comes after `b` in the stream. */
export function eventAfter(
  a: { batch: number; index: number },
  b: { batch: number; index: number },
) {
  return a.batch > b.batch || (a.batch === b.batch && a.index > b.index);
}

/** A store records at most this many events in one batch (a bigger call makes several). */
export const TASK_EVENT_CHUNK = 100;

/**
 * How many batches a store keeps for readers that resume (`Last-Event-ID`): at least this
 * many events, at most TASK_EVENT_CHUNK times as many. Redis trims its stream to about this
 * many entries (`MAXLEN ~`).
 */
export const TASK_EVENT_BUFFER = 10_000;
