/**
 * @module dashboard/client/stream — the task event stream (`GET /events`). While it is open
 * the page asks for nothing until a task changes (then it refreshes within a tick or two),
 * besides a slow backstop; without it (no EventSource, or the stream is down) the ticker
 * polls every second as before.
 */
import { BASE, S } from "./state.ts";

/**
 * While streaming, the stats are read at least this often anyway (pool and worker changes
 * are no task events), and the open view at least every VIEW_BACKSTOP_MS.
 */
export const STATS_BACKSTOP_MS = 5_000;
export const VIEW_BACKSTOP_MS = 15_000;

/** The task event kinds (src/core/task-event.ts): each is an SSE event name. */
const KINDS = [
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
];

function changed(): void {
  S.statsDue = true;
  S.viewDue = true;
}

/** Opens the stream; the browser reconnects it by itself (with Last-Event-ID) after a drop. */
export function openStream(): void {
  if (typeof EventSource === "undefined") return;
  const source = new EventSource(`${BASE}/api/events`);
  source.addEventListener("open", () => {
    // Whatever happened while it was closed is read once now.
    S.streaming = true;
    (globalThis as { __skedulrStreaming?: boolean }).__skedulrStreaming = true;
    changed();
  });
  // A drop, or the server ending the stream (`event: error`): poll until it reopens.
  source.addEventListener("error", () => {
    S.streaming = false;
    (globalThis as { __skedulrStreaming?: boolean }).__skedulrStreaming = false;
  });
  for (const kind of KINDS) source.addEventListener(kind, changed);
  source.addEventListener("missed", changed);
}
