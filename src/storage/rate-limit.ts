/**
 * @module rate-limit — the arguments of {@link Storage.hitRateLimit}, checked the same way by
 * every backend, so a bad call fails alike on memory, Redis over TCP and Redis over REST.
 */
import { ValidationError } from "../core/errors.ts";
import type { RateLimitResult } from "./storage.ts";

/** Most hits a limit may allow per window: each backend keeps up to this many per key. */
export const MAX_RATE_LIMIT = 1000;
/** Longest limiter key (it becomes part of a Redis key name). */
export const MAX_RATE_KEY = 512;
/** Longest window: a day. */
export const MAX_RATE_WINDOW_MS = 86_400_000;

/** Throws ValidationError naming each bad argument of a hitRateLimit call. */
export function checkRateLimit(key: string, limit: number, windowMs: number, now: number): void {
  const issues = [];
  if (typeof key !== "string" || key.length < 1 || key.length > MAX_RATE_KEY) {
    issues.push({ path: "key", message: `expected 1..${MAX_RATE_KEY} characters` });
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RATE_LIMIT) {
    issues.push({ path: "limit", message: `expected an integer 1..${MAX_RATE_LIMIT}` });
  }
  if (!Number.isInteger(windowMs) || windowMs < 1 || windowMs > MAX_RATE_WINDOW_MS) {
    issues.push({ path: "windowMs", message: `expected an integer 1..${MAX_RATE_WINDOW_MS}` });
  }
  if (!Number.isSafeInteger(now) || now < 0) {
    issues.push({ path: "now", message: "expected epoch ms (a non-negative integer)" });
  }
  if (issues.length) throw new ValidationError(issues, "rate limit");
}

/** The decision over the hits already counted for a key (times in ms, any order). */
export function decide(
  hits: readonly number[],
  limit: number,
  windowMs: number,
  now: number,
): RateLimitResult {
  let inside = 0;
  let oldest = Infinity;
  for (const at of hits) {
    if (at > now - windowMs) {
      inside++;
      oldest = Math.min(oldest, at);
    }
  }
  if (inside < limit) return { allowed: true, retryAfterMs: 0 };
  return { allowed: false, retryAfterMs: Math.max(1, oldest + windowMs - now) };
}
