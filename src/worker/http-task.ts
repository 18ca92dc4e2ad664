/**
 * @module http-task — the built-in `http` task type: handlers in any language.
 *
 * The worker calls the task's URL; a 2xx is success (status and the response body, capped,
 * become the result); any other status, a network error or a timeout is a failure that
 * follows the task's retry policy. A target the outbound policy refuses (see
 * core/outbound-policy.ts) is a PermanentError: the task is dead at once, never retried.
 * With a signing key every request carries `Skedulr-Timestamp` (epoch ms) and
 * `Skedulr-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, so the receiver can
 * verify origin and freshness. Redirects are never followed: a 3xx is a failure.
 */
import * as v from "valibot";
import { PermanentError } from "../core/errors.ts";
import { systemClock } from "../core/clock.ts";
import { parseDuration } from "../core/duration.ts";
import { DEFAULT_OUTBOUND_POLICY, type OutboundPolicy } from "../core/outbound-policy.ts";
import type { Handler } from "./middleware.ts";
import { httpTaskPayloadSchema } from "./http-task-schema.ts";

export {
  type HttpTaskPayload,
  HttpTaskPayloadSchema,
  httpTaskPayloadSchema,
} from "./http-task-schema.ts";

/** Result bodies are cut here so one chatty endpoint cannot bloat storage. */
export const MAX_RESULT_BYTES = 64 * 1024;

/** The HTTP task's result. */
export interface HttpTaskResult {
  status: number;
  body: string;
  truncated: boolean;
}

/** One request of an `http` task, its target already checked as written. */
export interface OutboundRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: string | undefined;
  signal: AbortSignal;
  /** Names resolve at send time: a client that can, checks each address it would use. */
  policy: OutboundPolicy;
}

/** What the handler reads of a response (a Web `Response` is one). */
export interface OutboundResponse {
  status: number;
  body: ReadableStream<Uint8Array> | null;
}

/** Sends one request; must not follow redirects. */
export type HttpFetcher = (request: OutboundRequest) => Promise<OutboundResponse>;

/**
 * Web `fetch`, for runtimes without a client that can pin addresses (Workers, Deno Deploy):
 * it resolves names itself, so only targets written as addresses (and `localhost`) are
 * checked. Bun, Deno and Node get `pinnedFetch` (src/adapters/pinned-http.ts) instead.
 */
export const webFetch: HttpFetcher = (r) =>
  fetch(r.url, {
    method: r.method,
    headers: r.headers,
    body: r.body,
    signal: r.signal,
    redirect: "manual",
  });

export interface HttpTaskOptions {
  signingKey?: string | null;
  /** Targets it may call (default: public addresses only). Use the same in the schema. */
  policy?: OutboundPolicy;
  /** How requests are sent (default {@link webFetch}). */
  fetcher?: HttpFetcher;
}

/**
 * The handler for task type `http`.
 *
 * @example
 * const policy = outboundPolicy("hooks.internal");
 * scheduler.register("http", httpTaskHandler({ signingKey: "secret", policy, fetcher: pinnedFetch }), {
 *   payloadSchema: httpTaskPayloadSchema(policy),
 * });
 * await scheduler.submit({ type: "http", payload: { url: "https://example.com/hook", body: { a: 1 } } });
 */
export function httpTaskHandler(options: HttpTaskOptions = {}): Handler {
  const key = options.signingKey ? importKey(options.signingKey) : null;
  const policy = options.policy ?? DEFAULT_OUTBOUND_POLICY;
  const fetcher = options.fetcher ?? webFetch;
  const schema = httpTaskPayloadSchema(policy);
  return async (payload: unknown, ctx) => {
    // Checked again here: the task may predate the policy, or come from a node with another.
    const parsed = v.safeParse(schema, payload);
    if (!parsed.success) {
      const list = parsed.issues.map((i) => `payload.${v.getDotPath(i) ?? ""}: ${i.message}`);
      throw new PermanentError(`Invalid http task payload: ${list.join("; ")}`);
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
    // The attempt's trace goes on downstream (W3C Trace Context).
    if (ctx.traceparent) headers.set("traceparent", ctx.traceparent);
    headers.set("skedulr-attempt", String(ctx.attempt));
    if (key) {
      const timestamp = String(Date.now());
      headers.set("skedulr-timestamp", timestamp);
      headers.set("skedulr-signature", `v1=${await sign(await key, `${timestamp}.${body ?? ""}`)}`);
    }
    const timeout = p.timeout === undefined
      ? undefined
      : (parseDuration(p.timeout) as { ms: number }).ms;
    const limit = withTimeout(ctx.signal, timeout);
    let response: OutboundResponse;
    let read: { text: string; truncated: boolean };
    try {
      const url = new URL(p.url);
      response = await fetcher({ url, method, headers, body, signal: limit.signal, policy });
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

async function readCapped(
  response: OutboundResponse,
): Promise<{ text: string; truncated: boolean }> {
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
