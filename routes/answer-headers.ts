/**
 * @module answer-headers — the headers every answer of the app carries: the security
 * headers on all of them, `Cache-Control: no-store` on the API's.
 */
import type { MiddlewareHandler } from "hono";
import type { SkedulrEnv } from "./env.ts";

/** Headers every answer carries: no MIME sniffing, no referrer, no framing. */
export const SECURITY_HEADERS: readonly [string, string][] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Frame-Options", "DENY"],
];

/**
 * Sets the security headers before the route runs: Hono puts headers set then into the
 * response when it makes it, for free. Set after it, each `c.header` made a copy of the
 * finished Response (4 per API request, a tenth of a submit's CPU). A route that answers
 * with its own Response object (a long poll) gets them the slow way, afterwards.
 */
export const securityHeaders: MiddlewareHandler<SkedulrEnv> = async (c, next) => {
  for (const [name, value] of SECURITY_HEADERS) c.header(name, value);
  await next();
  if (!c.res.headers.has("X-Frame-Options")) {
    for (const [name, value] of SECURITY_HEADERS) c.header(name, value);
  }
};

/** API answers are not cached, unless a route says otherwise (set early: see above). */
export const noStore: MiddlewareHandler<SkedulrEnv> = async (c, next) => {
  c.header("Cache-Control", "no-store");
  await next();
  if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
};
