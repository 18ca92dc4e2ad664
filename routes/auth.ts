/**
 * @module auth — who a request is (a bearer credential, the dashboard's session cookie, or
 * anyone on an open API), whether its role covers the route, and the same-origin check that
 * keeps the cookie from being used cross-site (CSRF).
 *
 * Credentials are compared in constant time (credentials.ts); the cookie holds a signed
 * session, never a key (session-cookie.ts); roles are declared per route (roles.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { Credentials } from "./credentials.ts";
import { ApiError } from "./errors.ts";
import type { Principal, SkedulrEnv } from "./env.ts";
import { requiredRole, roleRefused } from "./roles.ts";
import type { Sessions } from "./session-cookie.ts";
import { allows } from "./credentials.ts";

/** The cookie `POST /skedulr/login` sets for the dashboard: a signed session. */
export const SESSION_COOKIE = "skedulr_token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a browser says the request comes from this origin: `same`, `cross`, or `unknown`
 * (no browser headers, e.g. curl). `Sec-Fetch-Site` wins; else `Origin` is compared with
 * the request's host or one of `trustedOrigins`.
 */
export function originVerdict(
  request: Request,
  trustedOrigins: readonly string[] = [],
): "same" | "cross" | "unknown" {
  const site = request.headers.get("sec-fetch-site")?.toLowerCase();
  if (site === "same-origin") return "same";
  if (site === "cross-site" || site === "same-site") return "cross";
  const origin = request.headers.get("origin");
  if (!origin) return "unknown";
  if (trustedOrigins.includes(origin)) return "same";
  try {
    return new URL(origin).host === new URL(request.url).host ? "same" : "cross";
  } catch {
    return "cross"; // "null" (sandboxed frames, file://) and anything unparsable
  }
}

export interface AuthOptions {
  credentials: Credentials;
  sessions: Sessions;
  /** The clock sessions expire by (the scheduler's). */
  now: () => number;
  trustedOrigins?: readonly string[];
}

/**
 * Who the request is, or null when it does not authenticate. An `Authorization` header,
 * when present, decides alone (a wrong bearer is refused even with a good cookie).
 */
export async function authenticate(c: Context, o: AuthOptions): Promise<Principal | null> {
  if (o.credentials.open) return { via: "open", name: null, role: "admin" };
  const header = c.req.header("authorization");
  if (header !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    const found = match ? await o.credentials.match(match[1]) : null;
    return found ? { via: "bearer", name: found.name, role: found.role } : null;
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  const found = cookie ? await o.sessions.verify(cookie, o.now()) : null;
  return found ? { via: "cookie", name: found.name, role: found.role } : null;
}

/**
 * Middleware for protected routes: 401 without a valid credential. A mutating request
 * carried by the cookie must prove it is same-origin (403 otherwise); on an open API, a
 * mutating request a browser marks cross-site is refused too, so no web page can drive a
 * local scheduler. Bearer requests need no origin check: browsers never add them. Then
 * the role the matched route declares (roles.ts) must be covered: 403 naming it otherwise.
 */
export function requireAuth(o: AuthOptions): MiddlewareHandler<SkedulrEnv> {
  return async (c, next) => {
    const p = await authenticate(c, o);
    if (p === null) {
      throw new ApiError(
        "unauthorized",
        "Authentication required: send Authorization: Bearer <token or key> (or log in at " +
          "/skedulr/login)",
      );
    }
    if (!SAFE_METHODS.has(c.req.method) && p.via !== "bearer") {
      const verdict = originVerdict(c.req.raw, o.trustedOrigins);
      if (verdict === "cross" || (p.via === "cookie" && verdict !== "same")) {
        throw new ApiError(
          "forbidden",
          "Cross-site request refused: a cookie-authenticated change must come from the " +
            "same origin (Origin / Sec-Fetch-Site); API clients should send a bearer token",
        );
      }
    }
    const need = requiredRole(c);
    if (need !== null && !allows(p.role, need)) throw roleRefused(c, need, p);
    c.set("auth", p.via);
    c.set("principal", p);
    await next();
  };
}
