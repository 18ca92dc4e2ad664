/**
 * @module http-task — the built-in `http` task type: handlers in any language.
 *
 * The worker calls the task's URL; a 2xx is success (status and the response body, capped,
 * become the result); any other status, a network error or a timeout is a failure that
 * follows the task's retry policy. With a signing key every request carries
 * `Skedulr-Timestamp` (epoch ms) and `Skedulr-Signature: v1=<hex HMAC-SHA256 of
 * "<timestamp>.<body>">`, so the receiver can verify origin and freshness.
 */
import * as v from "valibot";
import { ValidationError } from "../core/errors.ts";
import { systemClock } from "../core/clock.ts";
import { parseDuration } from "../core/duration.ts";
import type { Handler } from "./middleware.ts";

/** Result bodies are cut here so one chatty endpoint cannot bloat storage. */
export const MAX_RESULT_BYTES = 64 * 1024;

export const HttpTaskPayloadSchema = v.strictObject({
  url: v.pipe(
    v.string("expected a string"),
    v.url("expected an absolute URL"),
    v.check((u) => /^https?:\/\//i.test(u), "only http and https URLs are allowed"),
  ),
  method: v.optional(
    v.picklist(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"], "expected an HTTP method"),
  ),
  headers: v.optional(v.record(v.string(), v.string())),
  body: v.optional(v.unknown()),
  /** Up to 100 years, like every duration; waits past setTimeout's limit chain. */
  timeout: v.optional(
    v.pipe(
      v.union([v.number(), v.string()], 'expected ms or a duration like "10s"'),
      v.check(
        (d) => !("error" in parseDuration(d)),
        (issue) => (parseDuration(issue.input) as { error: string }).error,
      ),
      v.check((d) => (parseDuration(d) as { ms?: number }).ms !== 0, "must be more than 0 ms"),
    ),
  ),
});

export type HttpTaskPayload = v.InferOutput<typeof HttpTaskPayloadSchema>;

/** The HTTP task's result. */
export interface HttpTaskResult {
  status: number;
  body: string;
  truncated: boolean;
}

/**
 * The handler for task type `http`.
 *
 * @example
 * scheduler.register("http", httpTaskHandler({ signingKey: "secret" }));
 * await scheduler.submit({ type: "http", payload: { url: "https://example.com/hook", body: { a: 1 } } });
 */
export function httpTaskHandler(options: { signingKey?: string | null } = {}): Handler {
  const key = options.signingKey ? importKey(options.signingKey) : null;
  return async (payload: unknown, ctx) => {
    const parsed = v.safeParse(HttpTaskPayloadSchema, payload);
    if (!parsed.success) {
      throw new ValidationError(
        parsed.issues.map((i) => ({
          path: `payload.${v.getDotPath(i) ?? ""}`,
          message: i.message,
        })),
        "http task payload",
      );
    }
    const p = parsed.output;
    const method = p.method ?? "POST";
    const body = p.body === undefined || method === "GET" || method === "HEAD"
      ? undefined
      : typeof p.body === "string"
      ? p.body
      : JSON.stringify(p.body);
    const headers = new Headers(p.headers);
    if (body !== undefined && !headers.has("content-type") && typeof p.body !== "string") {
      headers.set("content-type", "application/json");
    }
    headers.set("skedulr-task-id", ctx.id);
    headers.set("skedulr-attempt", String(ctx.attempt));
    if (key) {
      const timestamp = String(Date.now());
      headers.set("skedulr-timestamp", timestamp);
      headers.set("skedulr-signature", `v1=${await sign(await key, `${timestamp}.${body ?? ""}`)}`);
    }
    const timeout = p.timeout === undefined ? null : parseDuration(p.timeout);
    if (timeout && "error" in timeout) {
      throw new ValidationError(
        [{ path: "payload.timeout", message: timeout.error }],
        "http task payload",
      );
    }
    const limit = withTimeout(ctx.signal, timeout?.ms);
    let response: Response;
    let read: { text: string; truncated: boolean };
    try {
      response = await fetch(p.url, {
        method,
        headers,
        body,
        signal: limit.signal,
        redirect: "manual",
      });
      read = await readCapped(response);
    } finally {
      limit.clear();
    }
    const { text, truncated } = read;
    if (response.status < 200 || response.status > 299) {
      throw new Error(`HTTP ${response.status} from ${p.url}: ${text.slice(0, 200)}`);
    }
    return { status: response.status, body: text, truncated } satisfies HttpTaskResult;
  };
}

/**
 * `signal`, also aborted after `ms`, and `clear` to drop the timer once the request is done.
 * Not AbortSignal.timeout: past 2^31−1 ms it fires at once on Deno and Node; the clock's
 * timer chains.
 */
function withTimeout(
  signal: AbortSignal,
  ms: number | undefined,
): { signal: AbortSignal; clear(): void } {
  if (ms === undefined) return { signal, clear: () => {} };
  const deadline = new AbortController();
  const timer = systemClock.setTimer(() => {
    deadline.abort(new DOMException(`http task timed out after ${ms} ms`, "TimeoutError"));
  }, ms);
  return {
    signal: AbortSignal.any([signal, deadline.signal]),
    clear: () => systemClock.clearTimer(timer),
  };
}

async function readCapped(response: Response): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > MAX_RESULT_BYTES) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  const all = new Uint8Array(Math.min(size, MAX_RESULT_BYTES));
  let offset = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.byteLength - offset);
    all.set(part, offset);
    offset += part.byteLength;
    if (offset >= all.byteLength) break;
  }
  return { text: new TextDecoder().decode(all), truncated };
}

function importKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

async function sign(key: CryptoKey, message: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Verifies a request signed by Skedulr: the signature matches and the timestamp is within
 * `toleranceMs` (default 5 minutes). For receivers written in TypeScript.
 */
export async function verifySignature(
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
  now = Date.now(),
  toleranceMs = 300_000,
): Promise<boolean> {
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > toleranceMs) return false;
  const m = /^v1=([0-9a-f]{64})$/.exec(signature);
  if (!m) return false;
  const bytes = new Uint8Array(m[1].match(/../g)!.map((h) => parseInt(h, 16)));
  return crypto.subtle.verify(
    "HMAC",
    await importKey(secret),
    bytes,
    new TextEncoder().encode(`${timestamp}.${body}`),
  );
}
