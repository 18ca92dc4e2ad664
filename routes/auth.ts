/**
 * @module auth — the bearer token, the dashboard's login cookie, and the same-origin check
 * that keeps the cookie from being used cross-site (CSRF).
 *
 * Tokens are compared in constant time: both sides are hashed with SHA-256 (Web Crypto), so
 * the comparison always covers 32 bytes whatever the lengths, and the XOR loop never exits
 * early.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ApiError } from "./errors.ts";
import type { AuthVia, SkedulrEnv } from "./env.ts";

/** The cookie `POST /skedulr/login` sets for the dashboard. */
export const TOKEN_COOKIE = "skedulr_token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const encoder = new TextEncoder();

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** A constant-time check of candidates against `token`. */
export function tokenChecker(token: string): (candidate: string) => Promise<boolean> {
  const expected = sha256(token);
  return async (candidate) => {
    const [a, b] = await Promise.all([expected, sha256(candidate)]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
    return diff === 0;
  };
}

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
  /** Checks a candidate token; absent when the API is open (no token configured). */
  check?: (candidate: string) => Promise<boolean>;
  trustedOrigins?: readonly string[];
}

/**
 * How the request authenticates, or null when it does not. An `Authorization` header, when
 * present, decides alone (a wrong bearer is refused even with a good cookie).
 */
export async function authenticate(c: Context, options: AuthOptions): Promise<AuthVia | null> {
  if (!options.check) return "open";
  const header = c.req.header("authorization");
  if (header !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    return match && (await options.check(match[1])) ? "bearer" : null;
  }
  const cookie = getCookie(c, TOKEN_COOKIE);
  return cookie && (await options.check(cookie)) ? "cookie" : null;
}

/**
 * Middleware for protected routes: 401 without a valid token. A mutating request carried
 * by the cookie must prove it is same-origin (403 otherwise); with no token configured, a
 * mutating request a browser marks cross-site is refused too, so no web page can drive a
 * local, open scheduler. Bearer requests need no origin check: browsers never add them.
 */
export function requireAuth(options: AuthOptions): MiddlewareHandler<SkedulrEnv> {
  return async (c, next) => {
    const via = await authenticate(c, options);
    if (via === null) {
      throw new ApiError(
        "unauthorized",
        "Authentication required: send Authorization: Bearer <token> (or log in at /skedulr/login)",
      );
    }
    if (!SAFE_METHODS.has(c.req.method) && via !== "bearer") {
      const verdict = originVerdict(c.req.raw, options.trustedOrigins);
      if (verdict === "cross" || (via === "cookie" && verdict !== "same")) {
        throw new ApiError(
          "forbidden",
          "Cross-site request refused: a cookie-authenticated change must come from the " +
            "same origin (Origin / Sec-Fetch-Site); API clients should send a bearer token",
        );
      }
    }
    c.set("auth", via);
    await next();
  };
}
