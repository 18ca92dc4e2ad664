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
import { requiredRole, roleRefusedTo } from "./roles.ts";
import type { Sessions } from "./session-cookie.ts";
import { allows, type ApiRole } from "./credentials.ts";

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
  if (o.credentials.open) return OPEN_PRINCIPAL;
  const header = c.req.header("authorization");
  if (header !== undefined) return await bearerPrincipal(header, o);
  const cookie = getCookie(c, SESSION_COOKIE);
  const found = cookie ? await o.sessions.verify(cookie, o.now()) : null;
  return found ? { via: "cookie", name: found.name, role: found.role } : null;
}

/** Anyone, on an open API. */
export const OPEN_PRINCIPAL: Principal = Object.freeze({ via: "open", name: null, role: "admin" });

/** Who an `Authorization` header names, or null when it is not a known bearer. */
export async function bearerPrincipal(header: string, o: AuthOptions): Promise<Principal | null> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  const found = match ? await o.credentials.match(match[1]) : null;
  return found ? { via: "bearer", name: found.name, role: found.role } : null;
}

/**
 * What a protected route checks once it knows who is asking: 401 for nobody; 403 for a
 * change whose origin is not proven (a cookie must come from the same origin, and on an
 * open API a browser's cross-site change is refused); 403 naming `need` when the role
 * does not cover it. `request` names the request in that message (`POST /path`).
 */
export function admit(
  raw: Request,
  p: Principal | null,
  need: ApiRole | null,
  o: AuthOptions,
  request: () => string,
): Principal {
  if (p === null) {
    throw new ApiError(
      "unauthorized",
      "Authentication required: send Authorization: Bearer <token or key> (or log in at " +
        "/skedulr/login)",
    );
  }
  if (p.via !== "bearer" && !SAFE_METHODS.has(raw.method)) {
    const verdict = originVerdict(raw, o.trustedOrigins);
    if (verdict === "cross" || (p.via === "cookie" && verdict !== "same")) {
      throw new ApiError(
        "forbidden",
        "Cross-site request refused: a cookie-authenticated change must come from the " +
          "same origin (Origin / Sec-Fetch-Site); API clients should send a bearer token",
      );
    }
  }
  if (need !== null && !allows(p.role, need)) throw roleRefusedTo(request(), need, p);
  return p;
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
    const p = admit(
      c.req.raw,
      await authenticate(c, o),
      requiredRole(c),
      o,
      () => `${c.req.method} ${c.req.path}`,
    );
    c.set("auth", p.via);
    c.set("principal", p);
    await next();
  };
}
