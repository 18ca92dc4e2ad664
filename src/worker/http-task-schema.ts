/**
 * @module http-task-schema — the `http` task type's payload, checked at submit (400 naming
 * the field) and again by the worker before it sends anything: the URL against the outbound
 * policy, and header names that would change how the request is routed or framed.
 */
import * as v from "valibot";
import { parseDuration } from "../core/duration.ts";
import {
  ALLOW_HINT,
  DEFAULT_OUTBOUND_POLICY,
  type OutboundPolicy,
} from "../core/outbound-policy.ts";

/**
 * Headers the client sets (routing, framing, hop-by-hop) or the runtime refuses; the rest of
 * the Fetch standard's forbidden names (Cookie, Origin, …) carry no routing and stay allowed.
 */
const CLIENT_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "content-length",
  "expect",
]);

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Why a header name is refused, or null. */
export function headerNameProblem(name: string): string | null {
  const lower = name.toLowerCase();
  if (!TOKEN.test(name)) return "is not a valid header name";
  if (CLIENT_HEADERS.has(lower) || lower.startsWith("proxy-")) {
    return `${name} changes how the request is routed or framed; the client sets it`;
  }
  if (lower.startsWith("skedulr-")) return `${name}: Skedulr-* headers are set by Skedulr`;
  return null;
}

const headerName = v.pipe(
  v.string(),
  v.check((n) => headerNameProblem(n) === null, (i) => headerNameProblem(i.input)!),
);
const headerValue = v.pipe(
  v.string("expected a string"),
  v.check((s) => !/[\r\n\0]/.test(s), "must not contain CR, LF or NUL"),
);

/** Why `url` is refused (an http(s) URL without credentials, allowed by `policy`), or null. */
export function urlProblem(url: string, policy: OutboundPolicy): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "expected an absolute URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return "only http and https URLs are allowed";
  }
  if (u.username || u.password) {
    return "credentials in the URL would be shown by the API: send them in headers, which are redacted";
  }
  const refused = policy.checkUrl(u);
  return refused && `${refused}: refused by the outbound policy (${ALLOW_HINT})`;
}

/**
 * The payload schema of the `http` type under `policy` (default: public addresses only).
 * Register it as the type's `payloadSchema` so a refused target is a 400 at submit.
 *
 * @example
 * const policy = outboundPolicy("hooks.internal, 10.1.0.0/16"); // as SKEDULR_HTTP_ALLOW
 * scheduler.register("http", httpTaskHandler({ policy }), {
 *   payloadSchema: httpTaskPayloadSchema(policy),
 * });
 */
export function httpTaskPayloadSchema(policy: OutboundPolicy = DEFAULT_OUTBOUND_POLICY) {
  return v.strictObject({
    url: v.pipe(
      v.string("expected a string"),
      v.check((u) => urlProblem(u, policy) === null, (i) => urlProblem(i.input, policy)!),
    ),
    method: v.optional(
      v.picklist(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"], "expected an HTTP method"),
    ),
    /** Values are credentials: the API shows them as "[redacted]" (core/secret-headers.ts). */
    headers: v.optional(
      v.pipe(
        v.record(headerName, headerValue),
        v.check(
          (h) => new Set(Object.keys(h).map((n) => n.toLowerCase())).size === Object.keys(h).length,
          "names a header twice (header names are case-insensitive)",
        ),
      ),
    ),
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
}

/** The schema under the default policy (public addresses only). */
export const HttpTaskPayloadSchema = httpTaskPayloadSchema();

export type HttpTaskPayload = v.InferOutput<typeof HttpTaskPayloadSchema>;
