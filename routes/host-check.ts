/**
 * @module host-check — which `Host` names the app serves: the guard against DNS rebinding.
 *
 * A page on `evil.example` whose name the attacker re-points at 127.0.0.1 reaches a local
 * server as a same-origin caller, yet its requests still say `Host: evil.example`. So an
 * API with no credential answers only `localhost`, `127.0.0.1` and `[::1]` (any port), and
 * one with a credential may be narrowed by `allowedHosts` (SKEDULR_ALLOWED_HOSTS).
 */
import type { MiddlewareHandler } from "hono";
import { LOOPBACK_HOSTS, parseHost } from "../src/mod.ts";
import type { SkedulrEnv } from "./env.ts";
import { ApiError } from "./errors.ts";

/** Distinct Host values and URL authorities whose verdicts are remembered. */
const MAX_VERDICTS = 256;

/** Whether `value` (a Host header) is served: `allowed` holds names and `name:port`s. */
export function hostAllowed(value: string, allowed: readonly string[]): boolean {
  const host = parseHost(value);
  if (!host) return false;
  return allowed.includes(host.name) ||
    (host.port !== null && allowed.includes(`${host.name}:${host.port}`));
}

/**
 * The check as a call: throws 403 `forbidden`, naming the host, for a request whose `Host`
 * header (or URL, when a runtime builds it from elsewhere) is not served; null when
 * `allowed` is null and every host is served. Shared by {@link hostCheck} and the fast
 * submit path (fast-submit.ts).
 */
export function hostGate(
  allowed: readonly string[] | null,
  open: boolean,
): ((request: Request) => void) | null {
  const names = allowed ?? (open ? LOOPBACK_HOSTS : null);
  if (names === null) return null;
  // Verdicts by Host value and URL authority: the same few are asked about on every request,
  // and parsing them was a twentieth of a submit. Bounded, since both come from clients.
  const verdicts = new Map<string, boolean>();
  const served = (host: string) => {
    let ok = verdicts.get(host);
    if (ok === undefined) {
      ok = hostAllowed(host, names);
      if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
      verdicts.set(host, ok);
    }
    return ok;
  };
  const authorities = new Map<string, string>();
  const urlHost = (url: string) => {
    // The URL up to its path: the authority is all `new URL(url).host` depends on.
    const slashes = url.indexOf("//");
    if (slashes < 0) return new URL(url).host;
    const end = url.indexOf("/", slashes + 2);
    const origin = end < 0 ? url : url.slice(0, end);
    let host = authorities.get(origin);
    if (host === undefined) {
      host = new URL(url).host;
      if (authorities.size >= MAX_VERDICTS) authorities.clear();
      authorities.set(origin, host);
    }
    return host;
  };
  const refused = (host: string) =>
    new ApiError(
      "forbidden",
      `Host ${JSON.stringify(host)} is not served here: ` +
        (allowed === null
          ? "with no SKEDULR_TOKEN or SKEDULR_KEYS, only localhost, 127.0.0.1 and [::1] are " +
            "(a guard against DNS rebinding); set a token to serve other names"
          : `the allowed hosts are ${names.join(", ")} (SKEDULR_ALLOWED_HOSTS)`),
    );
  return (request) => {
    const header = request.headers.get("host");
    if (header !== null && !served(header)) throw refused(header);
    const fromUrl = urlHost(request.url);
    if (!served(fromUrl)) throw refused(fromUrl);
  };
}

/**
 * Middleware: {@link hostGate}'s 403 for a host not served. `/skedulr/healthz` is exempt:
 * probes use the node's address, and it reveals nothing.
 */
export function hostCheck(
  gate: ((request: Request) => void) | null,
): MiddlewareHandler<SkedulrEnv> {
  return async (c, next) => {
    if (gate !== null && c.req.path !== "/skedulr/healthz") gate(c.req.raw);
    await next();
  };
}
