/**
 * @module redis/rate-limit — {@link Storage.hitRateLimit} on Redis: one script call
 * (lua/hitRateLimit-1.lua), so the limit holds across every instance on the store.
 */
import type { RateLimitResult } from "../storage.ts";
import { checkRateLimit } from "../rate-limit.ts";
import type { RedisContext } from "./context.ts";

export async function hitRateLimit(
  ctx: RedisContext,
  key: string,
  limit: number,
  windowMs: number,
  now: number,
): Promise<RateLimitResult> {
  checkRateLimit(key, limit, windowMs, now);
  const reply = await ctx.run("hitRateLimit", [key, String(limit), String(windowMs), String(now)]);
  const [allowed, retryAfterMs] = reply as number[];
  return { allowed: Number(allowed) === 1, retryAfterMs: Number(retryAfterMs) };
}
