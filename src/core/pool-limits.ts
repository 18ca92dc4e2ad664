/**
 * @module pool-limits — a pool's cluster-wide limits: how many of its tasks may run at once
 * across every instance (`globalConcurrency`) and how many may start per period
 * (`rateLimit`, exact over any window of that length), validated once for the library, the
 * HTTP API and SKEDULR_POOLS.
 */
import { MAX_GLOBAL_CONCURRENCY, MAX_RATE_LIMIT, MAX_RATE_PER_MS } from "./bounds.ts";
import { type Duration, parseDuration } from "./duration.ts";
import type { FieldIssue } from "./errors.ts";

/** At most `max` starts in any window of `perMs` milliseconds, across the cluster. */
export interface RateLimit {
  max: number;
  perMs: number;
}

/** Limits as the store keeps them: absent = leave as is, null = no limit. */
export interface PoolLimits {
  globalConcurrency?: number | null;
  rateLimit?: RateLimit | null;
}

/** Limits as callers write them: `per` is a {@link Duration} (`"1s"`, `500`). */
export interface PoolLimitsSpec {
  globalConcurrency?: number | null;
  rateLimit?: { max: number; per: Duration } | null;
}

const isInt = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n);

/**
 * The problems of a limits spec, each naming its field (`globalConcurrency`, `rateLimit.max`,
 * `rateLimit.per`, or an unknown one), or the limits it asks for.
 *
 * @example
 * parsePoolLimits({ rateLimit: { max: 5, per: "1s" } }); // { limits: { rateLimit: { max: 5, perMs: 1000 } } }
 */
export function parsePoolLimits(
  spec: PoolLimitsSpec,
): { limits: PoolLimits } | { issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const limits: PoolLimits = {};
  for (const key of Object.keys(spec)) {
    if (key !== "globalConcurrency" && key !== "rateLimit") {
      issues.push({ path: key, message: "unknown field" });
    }
  }
  const g = spec.globalConcurrency;
  if (g === null) limits.globalConcurrency = null;
  else if (g !== undefined) {
    if (!isInt(g) || g < 1 || g > MAX_GLOBAL_CONCURRENCY) {
      issues.push({
        path: "globalConcurrency",
        message: `expected an integer 1..${MAX_GLOBAL_CONCURRENCY} or null, got ${String(g)}`,
      });
    } else limits.globalConcurrency = g;
  }
  const r = spec.rateLimit;
  if (r === null) limits.rateLimit = null;
  else if (r !== undefined) {
    const rate = rateIssues(r, issues);
    if (rate) limits.rateLimit = rate;
  }
  return issues.length ? { issues } : { limits };
}

function rateIssues(r: unknown, issues: FieldIssue[]): RateLimit | null {
  if (typeof r !== "object" || r === null || Array.isArray(r)) {
    issues.push({ path: "rateLimit", message: 'expected { "max": n, "per": "1s" } or null' });
    return null;
  }
  const { max, per, ...rest } = r as Record<string, unknown>;
  for (const key of Object.keys(rest)) {
    issues.push({ path: `rateLimit.${key}`, message: "unknown field" });
  }
  const before = issues.length;
  if (!isInt(max) || max < 1 || max > MAX_RATE_LIMIT) {
    issues.push({
      path: "rateLimit.max",
      message: `expected an integer 1..${MAX_RATE_LIMIT}, got ${String(max)}`,
    });
  }
  const parsed = per === undefined ? { error: "required" } : parseDuration(per);
  if ("error" in parsed) issues.push({ path: "rateLimit.per", message: parsed.error });
  else if (parsed.ms < 1 || parsed.ms > MAX_RATE_PER_MS) {
    issues.push({
      path: "rateLimit.per",
      message: `expected 1ms to 1d, got ${JSON.stringify(per)}`,
    });
  }
  return issues.length > before || "error" in parsed
    ? null
    : { max: max as number, perMs: parsed.ms };
}
