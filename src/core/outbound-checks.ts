/**
 * @module outbound-checks — what Skedulr checks of a request a submitter chose (an `http`
 * task's payload, a task's `callback`) before storing it and again before sending it: the
 * URL against the outbound policy, and headers that would change routing or framing.
 */
import * as v from "valibot";
import { ALLOW_HINT, type OutboundPolicy } from "./outbound-policy.ts";

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

/** Why a header value is refused (it would split the header), or null. */
export function headerValueProblem(value: string): string | null {
  return /[\r\n\0]/.test(value) ? "must not contain CR, LF or NUL" : null;
}

/** True when no two names of `headers` are the same header (names are case-insensitive). */
function distinctNames(headers: Record<string, string>): boolean {
  const names = Object.keys(headers);
  return new Set(names.map((n) => n.toLowerCase())).size === names.length;
}

/**
 * Headers a submitter may have sent (name → value). The values are credentials for the
 * target: the API shows them as "[redacted]" (core/secret-headers.ts).
 */
export const OutboundHeadersSchema = v.pipe(
  v.record(
    v.pipe(
      v.string(),
      v.check((n) => headerNameProblem(n) === null, (i) => headerNameProblem(i.input)!),
    ),
    v.pipe(
      v.string("expected a string"),
      v.check((s) => headerValueProblem(s) === null, (i) => headerValueProblem(i.input)!),
    ),
  ),
  v.check(distinctNames, "names a header twice (header names are case-insensitive)"),
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
