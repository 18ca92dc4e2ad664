/**
 * @module task-event-feed — one reader's view of the task event stream: the buffered events
 * after its last one (a resume), then the live ones, each once, in order, filtered.
 *
 * The live subscription opens first and holds what arrives while the buffer is read, so no
 * event falls between the two; events at or before the last one delivered are dropped.
 */
import {
  type EventPosition,
  parsePosition,
  positionAfter,
  positionGap,
  TASK_EVENT_BUFFER,
  TASK_EVENT_CHUNK,
  type TaskEvent,
  type TaskEventKind,
} from "../core/task-event.ts";
import type { EventSource } from "../storage/storage.ts";

/** Which events a reader wants; each list given narrows (any of its values matches). */
export interface TaskEventFilter {
  ids?: readonly string[];
  types?: readonly string[];
  pools?: readonly string[];
  kinds?: readonly TaskEventKind[];
}

export interface TaskEventFeedOptions {
  /** Resume after this event id (an SSE client's `Last-Event-ID`); none: live events only. */
  after?: string | null;
  filter?: TaskEventFilter;
  /** The reader's events, in order, each once. */
  onEvents(events: TaskEvent[]): void;
  /** Events were lost before the next ones (they left the store's buffer unread). */
  onMissed?(): void;
}

export interface TaskEventFeed {
  /**
   * Resolves once the feed is live (every event from then on reaches it) and a resume's
   * buffered events were delivered.
   */
  readonly ready: Promise<void>;
  close(): void;
}

/** Events read from the buffer per call when resuming. */
const PAGE = 1000;

export function openTaskEventFeed(
  store: Pick<EventSource, "subscribeTaskEvents" | "taskEventsAfter">,
  options: TaskEventFeedOptions,
): TaskEventFeed {
  const match = matcher(options.filter ?? {});
  // Where this reader is: the last event delivered (its id, and the position it stands for).
  let lastId = options.after ?? null;
  let last: EventPosition | null = lastId === null ? null : parsePosition(lastId);
  let held: { events: TaskEvent[]; missed: boolean }[] | null = options.after ? [] : null;
  let closed = false;

  const deliver = (events: TaskEvent[], missed: boolean) => {
    if (closed) return;
    const fresh = last
      ? events.filter((e) => positionAfter(parsePosition(e.eventId)!, last!))
      : events;
    if (fresh.length === 0) return;
    const first = parsePosition(fresh[0].eventId)!;
    if (missed && (!last || positionGap(first, last))) options.onMissed?.();
    lastId = fresh[fresh.length - 1].eventId;
    last = parsePosition(lastId);
    const wanted = fresh.filter(match);
    if (wanted.length) options.onEvents(wanted);
  };
  const subscription = store.subscribeTaskEvents((events, missed) => {
    if (held) held.push({ events, missed });
    else deliver(events, missed);
  });

  const resume = async () => {
    await subscription.ready;
    if (!options.after) return;
    try {
      // Bounded: the buffer holds at most TASK_EVENT_BUFFER batches of TASK_EVENT_CHUNK.
      for (let read = 0; read < TASK_EVENT_BUFFER * TASK_EVENT_CHUNK && !closed; read += PAGE) {
        const page = await store.taskEventsAfter(lastId ?? options.after, PAGE);
        if (page.missed && read === 0) options.onMissed?.();
        deliver(page.events, false);
        if (page.events.length < PAGE) break;
      }
    } finally {
      const waiting = held ?? [];
      held = null;
      for (const h of waiting) deliver(h.events, h.missed);
    }
  };

  return {
    ready: resume(),
    close() {
      closed = true;
      subscription.close();
    },
  };
}

function matcher(f: TaskEventFilter): (e: TaskEvent) => boolean {
  const sets = {
    id: f.ids?.length ? new Set(f.ids) : null,
    type: f.types?.length ? new Set(f.types) : null,
    pool: f.pools?.length ? new Set(f.pools) : null,
    kind: f.kinds?.length ? new Set<string>(f.kinds) : null,
  };
  return (e) =>
    (!sets.id || sets.id.has(e.id)) && (!sets.type || sets.type.has(e.type)) &&
    (!sets.pool || sets.pool.has(e.pool)) && (!sets.kind || sets.kind.has(e.kind));
}
