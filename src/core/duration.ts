/**
 * @module duration — parses `1500`, `"1500ms"`, `"30s"`, `"5m"`, `"2h"`, `"1d"` to milliseconds.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * The longest duration accepted: 100 years of 365.25 days (3 155 760 000 000 ms). Anything
 * longer is a typo in practice, and the cap keeps every time derived from a duration
 * (now + delay, a lease's expiry) an exact integer in JS, Lua and Redis scores.
 */
export const MAX_DURATION_MS = 100 * 365.25 * 86_400_000;

/** A duration: milliseconds as a number, or a string with a unit (`ms`, `s`, `m`, `h`, `d`). */
export type Duration = number | string;

/**
 * Milliseconds for a duration, or an error message when it is not one (negative, not a
 * finite number, or longer than {@link MAX_DURATION_MS}).
 *
 * @example
 * parseDuration("1.5s"); // { ms: 1500 }
 * parseDuration("soon"); // { error: 'expected ms or a duration like "1500ms", …, got "soon"' }
 * parseDuration("40000d"); // { error: 'expected at most 100 years (3155760000000 ms), …' }
 */
export function parseDuration(value: unknown): { ms: number } | { error: string } {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) {
      return { error: `expected a non-negative number of ms, got ${value}` };
    }
    return capped(Math.round(value), value);
  }
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed)) return capped(Number(trimmed), value);
    const match = PATTERN.exec(trimmed);
    if (match) return capped(Math.round(Number(match[1]) * UNIT_MS[match[2]]), value);
  }
  return {
    error: `expected ms or a duration like "1500ms", "30s", "5m", "2h", "1d", got ${
      JSON.stringify(value)
    }`,
  };
}

function capped(ms: number, value: unknown): { ms: number } | { error: string } {
  // A string of many digits parses to Infinity: the same "too long" as any other.
  if (ms <= MAX_DURATION_MS) return { ms };
  return {
    error: `expected at most 100 years (${MAX_DURATION_MS} ms), got ${JSON.stringify(value)}`,
  };
}

/** Like {@link parseDuration} but throws a `RangeError` naming `field`. */
export function durationMs(value: Duration, field = "duration"): number {
  const parsed = parseDuration(value);
  if ("error" in parsed) throw new RangeError(`${field}: ${parsed.error}`);
  return parsed.ms;
}
