/**
 * @module events — `GET /skedulr/api/events`: task events as Server-Sent Events, from every
 * process, in order, each once; filtered by `id`, `type`, `pool` and `kind` (each a comma
 * list); resumed after `Last-Event-ID` (or `?lastEventId=`) from the store's buffer.
 *
 * Each event is `event: <kind>`, `id: <batch>/<index>` and `data: <the event as JSON>`; an
 * `event: missed` says events were lost before the next (they left the buffer: read the
 * tasks' state again). A quiet stream sends a comment every few seconds, so no idle timeout
 * cuts it, and costs the store nothing. A client that reads too slowly is cut off (it
 * reconnects with its Last-Event-ID) rather than buffered without bound.
 */
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import {
  parsePosition,
  type Scheduler,
  TASK_EVENT_KINDS,
  type TaskEvent,
  type TaskEventFilter,
  type TaskEventKind,
} from "../src/mod.ts";
import type { SkedulrEnv } from "./env.ts";
import { ApiError } from "./errors.ts";
import { role } from "./roles.ts";

/** Open streams one API node serves at most by default; more get 429 with Retry-After. */
export const MAX_EVENT_STREAMS = 500;
/** Events a stream may hold for a slow client before it is cut off. */
export const MAX_PENDING_EVENTS = 10_000;
/** A comment this often keeps a quiet stream open (Bun's idle timeout is 10 s). */
export const EVENT_KEEP_ALIVE_MS = 5_000;
/** How long a browser waits before it reconnects (the SSE `retry` field). */
const RETRY_MS = 2_000;
/** Values one filter parameter may list. */
const MAX_FILTER_VALUES = 100;

const KINDS = new Set<string>(TASK_EVENT_KINDS);

/** The query's filter, or a 400 naming the parameter. */
export function parseEventFilter(c: Context<SkedulrEnv>): TaskEventFilter {
  const list = (name: string) => {
    const raw = c.req.query(name);
    if (raw === undefined) return undefined;
    const values = raw.split(",").map((v) => v.trim()).filter((v) => v !== "");
    const problem = values.length === 0
      ? "expected a comma-separated list"
      : values.length > MAX_FILTER_VALUES
      ? `at most ${MAX_FILTER_VALUES} values, got ${values.length}`
      : values.find((v) => v.length > 256)
      ? "a value is longer than 256 characters"
      : name === "kind" && values.find((v) => !KINDS.has(v))
      ? `unknown kind ${JSON.stringify(values.find((v) => !KINDS.has(v)))}; one of ${
        TASK_EVENT_KINDS.join(", ")
      }`
      : null;
    if (problem) {
      throw new ApiError("invalid_request", `Invalid ${name}`, [{ path: name, message: problem }]);
    }
    return values;
  };
  return {
    ids: list("id"),
    types: list("type"),
    pools: list("pool"),
    kinds: list("kind") as TaskEventKind[] | undefined,
  };
}

/** Where the stream resumes: the Last-Event-ID header, else `?lastEventId=`, else live. */
function resumeAfter(c: Context<SkedulrEnv>): string | null {
  const header = c.req.header("last-event-id");
  const id = header ?? c.req.query("lastEventId") ?? null;
  if (id === null || id === "") return null;
  if (!parsePosition(id)) {
    throw new ApiError("invalid_request", "Invalid Last-Event-ID", [{
      path: header === undefined ? "lastEventId" : "Last-Event-ID",
      message: `expected an event id like 12/0 (or 12.4.9/1.0 on a partitioned store), got ${
        JSON.stringify(id.slice(0, 64))
      }`,
    }]);
  }
  return id;
}

type Item = TaskEvent | "missed";

export function eventRoutes(
  api: Hono<SkedulrEnv>,
  scheduler: Scheduler,
  maxStreams = MAX_EVENT_STREAMS,
): void {
  if (!Number.isInteger(maxStreams) || maxStreams < 1) {
    throw new TypeError(`createApp: maxEventStreams must be a positive integer, got ${maxStreams}`);
  }
  let open = 0;
  api.get("/events", role("read"), (c) => {
    const filter = parseEventFilter(c);
    const after = resumeAfter(c);
    if (open >= maxStreams) {
      throw new ApiError(
        "rate_limited",
        `This node serves ${maxStreams} event streams already; retry later`,
        undefined,
        5,
      );
    }
    open++;
    return streamSSE(c, async (stream) => {
      const queue: Item[] = [];
      let wake: (() => void) | null = null;
      let over: string | null = null;
      const push = (items: Item[]) => {
        queue.push(...items);
        if (queue.length > MAX_PENDING_EVENTS) over = "the client read too slowly";
        wake?.();
      };
      const feed = scheduler.taskEvents({
        after,
        filter,
        onEvents: (events) => push(events),
        onMissed: () => push(["missed"]),
      });
      stream.onAbort(() => {
        over = "closed";
        wake?.();
      });
      try {
        // `open` once the feed is live: a client that acts after it sees what follows.
        await feed.ready.catch(() => {
          over = "the store did not answer";
        });
        await stream.writeSSE({ data: "", event: "open", retry: RETRY_MS });
        while (!over) {
          while (queue.length > 0 && !over) {
            const item = queue.shift()!;
            if (item === "missed") await stream.writeSSE({ event: "missed", data: "{}" });
            else {
              await stream.writeSSE({
                id: item.eventId,
                event: item.kind,
                data: JSON.stringify(item),
              });
            }
          }
          if (over) break;
          const quiet = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), EVENT_KEEP_ALIVE_MS);
            wake = () => {
              clearTimeout(timer);
              resolve(false);
            };
          });
          wake = null;
          if (quiet) await stream.write(": keep-alive\n\n");
        }
        if (over !== "closed") await stream.writeSSE({ event: "error", data: over });
      } finally {
        feed.close();
        open--;
      }
    });
  });
}
