/**
 * @module task-wait — `GET /tasks/:id/wait?timeout=30s`: the record as soon as the task is
 * final, or the current record at the timeout (200 either way). The answer streams: a space
 * every few seconds keeps the connection busy (leading whitespace is valid JSON), so neither
 * the server's idle timeout nor a proxy's cuts a long wait; the request deadline covers only
 * the first read.
 */
import type { Context } from "hono";
import {
  FINAL_STATUSES,
  NotFoundError,
  parseDuration,
  type Scheduler,
  type TaskRecord,
} from "../src/mod.ts";
import { ApiError } from "./errors.ts";
import type { SkedulrEnv } from "./env.ts";

/** The longest `timeout` a wait takes. */
export const MAX_WAIT_MS = 60_000;
const DEFAULT_WAIT_MS = 30_000;
/** A space this often while the task runs (Bun's idle timeout is a few seconds here). */
const KEEP_ALIVE_MS = 1_000;
/** The store is read again after this, doubling up to POLL_MAX_MS. */
const POLL_MIN_MS = 50;
const POLL_MAX_MS = 1_000;

/** The `timeout` query parameter in ms, or a 400 naming it. */
function waitTimeout(c: Context<SkedulrEnv>): number {
  const raw = c.req.query("timeout");
  if (raw === undefined) return DEFAULT_WAIT_MS;
  const d = parseDuration(/^\d+$/.test(raw) ? Number(raw) : raw);
  const problem = "error" in d
    ? d.error
    : d.ms > MAX_WAIT_MS
    ? `must be at most ${MAX_WAIT_MS / 1000}s, got ${raw}`
    : null;
  if (problem === null) return (d as { ms: number }).ms;
  throw new ApiError("invalid_request", `Invalid timeout ${JSON.stringify(raw)}`, [{
    path: "timeout",
    message: problem,
  }]);
}

const isFinal = (t: TaskRecord) => FINAL_STATUSES.has(t.status);

/** Answers the wait for task `id`. */
export async function waitForTask(c: Context<SkedulrEnv>, scheduler: Scheduler) {
  const id = c.req.param("id")!;
  const timeoutMs = waitTimeout(c);
  const first = await scheduler.get(id);
  if (!first) throw new NotFoundError("Task", id);
  if (isFinal(first) || timeoutMs === 0) return c.json(first);
  const until = Date.now() + timeoutMs;
  const aborted = c.req.raw.signal;
  const text = new TextEncoder();
  let last = first;
  let stop = false;
  const body = new ReadableStream<Uint8Array>({
    async start(out) {
      // The client may be gone: then nothing more is sent.
      const send = (s: string) => {
        try {
          out.enqueue(text.encode(s));
        } catch {
          stop = true;
        }
      };
      const keepAlive = setInterval(() => send(" "), KEEP_ALIVE_MS);
      try {
        for (let delay = POLL_MIN_MS; !stop && !aborted?.aborted && Date.now() < until;) {
          await new Promise((r) => setTimeout(r, Math.min(delay, until - Date.now())));
          delay = Math.min(POLL_MAX_MS, delay * 2);
          // A store that does not answer leaves the last record standing until the timeout.
          const now = await scheduler.get(id).catch(() => last);
          if (now) last = now;
          if (isFinal(last)) break;
        }
        send(JSON.stringify(last));
        if (!stop) out.close();
      } finally {
        clearInterval(keepAlive);
      }
    },
    cancel() {
      stop = true;
    },
  });
  return new Response(body, {
    headers: { "content-type": "application/json; charset=UTF-8", "cache-control": "no-store" },
  });
}
