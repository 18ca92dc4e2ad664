/**
 * @module duration — parses `1500`, `"1500ms"`, `"30s"`, `"5m"`, `"2h"`, `"1d"` to milliseconds.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/** A duration: milliseconds as a number, or a string with a unit (`ms`, `s`, `m`, `h`, `d`). */
export type Duration = number | string;

/**
 * Milliseconds for a duration, or an error message when it is not one.
 *
 * @example
 * parseDuration("1.5s"); // { ms: 1500 }
 * parseDuration("soon"); // { error: 'expected ms or a duration like "30s", got "soon"' }
 */
export function parseDuration(value: unknown): { ms: number } | { error: string } {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) {
      return { error: `expected a non-negative number of ms, got ${value}` };
    }
    return { ms: Math.round(value) };
  }
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (/^\d+$/.test(trimmed)) return { ms: Number(trimmed) };
    const match = PATTERN.exec(trimmed);
    if (match) return { ms: Math.round(Number(match[1]) * UNIT_MS[match[2]]) };
  }
  return {
    error: `expected ms or a duration like "1500ms", "30s", "5m", "2h", "1d", got ${
      JSON.stringify(value)
    }`,
  };
}

/** Like {@link parseDuration} but throws a `RangeError` naming `field`. */
export function durationMs(value: Duration, field = "duration"): number {
  const parsed = parseDuration(value);
  if ("error" in parsed) throw new RangeError(`${field}: ${parsed.error}`);
  return parsed.ms;
}
