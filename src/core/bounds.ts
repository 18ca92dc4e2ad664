/**
 * @module bounds — the input bounds beside the name pattern (src/core/ids.ts): well-formed
 * text, usable cron expressions and time zones, and the minimum interval of recurring and
 * cron schedules. The spec schema, the HTTP
 * API's body reader and the configuration all use these, so each bound has one definition.
 */
import { Cron, CronPattern } from "croner";
import type { FieldIssue } from "./errors.ts";

/** The default floor of `every` and of the gap between two cron occurrences (1 s). */
export const DEFAULT_MIN_INTERVAL_MS = 1_000;

/** Most tasks a pool's `globalConcurrency` may let run at once across the cluster. */
export const MAX_GLOBAL_CONCURRENCY = 1_000_000;

/** Most starts a pool's `rateLimit.max` may allow per period: it bounds the start log. */
export const MAX_RATE_LIMIT = 10_000;

/** Longest `rateLimit.per` (1 day); the shortest is 1 ms. */
export const MAX_RATE_PER_MS = 86_400_000;

/** Most tasks of one `flowControl.key` that may run at once (`flowControl.parallelism`). */
export const MAX_FLOW_PARALLELISM = 1_000_000;

/** Longest `dedupe.key`, in UTF-8 bytes (it becomes part of a Redis key name). */
export const MAX_DEDUPE_KEY_BYTES = 256;

/**
 * Longest `dedupe.ttl`: 30 days. A dedupe entry outlives its task (retention may prune the
 * row), so the bound caps how long a store keeps entries nobody reads any more.
 */
export const MAX_DEDUPE_TTL_MS = 30 * 86_400_000;

/**
 * Longest `debounce.delay` and `debounce.maxWait`: 30 days, as for `dedupe.ttl` (a burst
 * longer than that is a schedule, not a burst).
 */
export const MAX_DEBOUNCE_MS = 30 * 86_400_000;

/**
 * Longest `expiresIn` (and farthest `expiresAt` from now): 30 days. The store's expiry index
 * keeps a task's entry until its expiry passes, so the bound caps how long that lasts.
 */
export const MAX_EXPIRY_MS = 30 * 86_400_000;

/** A schedule with `catchUp: "all"` runs at most this many missed occurrences (the newest). */
export const CATCH_UP_MAX = 100;

/**
 * An occurrence fired later than this (or than half the gap to its next one) after its time
 * was missed: `catchUp: "none"` skips it.
 */
export const MISSED_AFTER_MS = 60_000;

/** A child's `ctx.parents` holds at most this many parents (dependsOn first). */
export const MAX_PARENTS_READ = 100;

/** ...and at most this many bytes of their results (as JSON); later ones are left out. */
export const MAX_PARENT_RESULTS_BYTES = 1_048_576;

/** How many next run times `GET /schedules/:id` lists (`nextRuns`). */
export const NEXT_RUNS_LISTED = 5;

/** A log line's message (`ctx.log`) is cut at this many bytes of UTF-8, a marker included. */
export const MAX_LOG_MESSAGE_BYTES = 2_048;

/** ...and its fields are dropped, with a note in the message, past this many bytes of JSON. */
export const MAX_LOG_FIELDS_BYTES = 4_096;

/**
 * A task keeps at most this many log lines and this many bytes of them (each line counted as
 * its JSON text), the newest within both: older lines are dropped, and counted.
 */
export const MAX_TASK_LOG_LINES = 1_000;
export const MAX_TASK_LOG_BYTES = 262_144;
/** Longest `callback.url`, in characters (it is stored with the task and shown). */
export const MAX_CALLBACK_URL_LENGTH = 2_048;

/** Most `callback.headers` (each value is kept with the task until it ends). */
export const MAX_CALLBACK_HEADERS = 32;

/** Why an `expiresIn` of `ms` is out of bounds, or null. */
export function expiresInProblem(ms: number): string | null {
  if (ms < 1) return "must be at least 1 ms";
  if (ms <= MAX_EXPIRY_MS) return null;
  return `must be at most ${formatMs(MAX_EXPIRY_MS)}, got ${formatMs(ms)}`;
}

/** Why an `expiresAt` of `at` is unusable at `now` (in the past, or too far ahead), or null. */
export function expiresAtProblem(at: number, now: number): string | null {
  if (at <= now) return `must be in the future, got ${new Date(at).toISOString()}`;
  if (at - now <= MAX_EXPIRY_MS) return null;
  return `must be at most ${formatMs(MAX_EXPIRY_MS)} from now`;
}

/** Why a `debounce.delay` or `debounce.maxWait` of `ms` is out of bounds, or null. */
export function debounceWaitProblem(ms: number): string | null {
  if (ms < 1) return "must be at least 1 ms";
  if (ms <= MAX_DEBOUNCE_MS) return null;
  return `must be at most ${formatMs(MAX_DEBOUNCE_MS)}, got ${formatMs(ms)}`;
}

/** Why a `dedupe.key` or `debounce.key` is unusable, or null. */
export function dedupeKeyProblem(key: string): string | null {
  if (key.length === 0) return "must not be empty";
  const bytes = new TextEncoder().encode(key).length;
  if (bytes <= MAX_DEDUPE_KEY_BYTES) return null;
  return `must be at most ${MAX_DEDUPE_KEY_BYTES} bytes of UTF-8, got ${bytes}`;
}

/** Why a `dedupe.ttl` of `ttlMs` is out of bounds, or null. */
export function dedupeTtlProblem(ttlMs: number): string | null {
  if (ttlMs < 1) return "must be at least 1 ms";
  if (ttlMs <= MAX_DEDUPE_TTL_MS) return null;
  return `must be at most ${formatMs(MAX_DEDUPE_TTL_MS)}, got ${formatMs(ttlMs)}`;
}

/** Most ill-formed strings reported for one input: a payload could hold thousands. */
const MAX_TEXT_ISSUES = 10;

const BAD_TEXT = "must be well-formed Unicode text (it holds a lone UTF-16 surrogate)";
const BAD_KEY = "has a key that is not well-formed Unicode text (it holds a lone UTF-16 surrogate)";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// ES2024; older runtimes (and the type library this project targets) lack it.
const nativeCheck = (String.prototype as { isWellFormed?: (this: string) => boolean })
  .isWellFormed;

/** {@link isWellFormed} for runtimes without `String.prototype.isWellFormed`. */
export function isWellFormedByPattern(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * True when `text` holds no lone surrogate. Such a string cannot be encoded as UTF-8:
 * `JSON.stringify` writes it as an escape (`"\ud800"`) that strict JSON parsers refuse.
 */
export function isWellFormed(text: string): boolean {
  return nativeCheck ? nativeCheck.call(text) : isWellFormedByPattern(text);
}

interface Frame {
  value: unknown;
  key: string | number | null;
  parent: Frame | null;
}

/**
 * `[2].payload.tags.0`: a top-level index in brackets, then dotted keys (as valibot names
 * them); cut at 200 characters, since a body can nest far deeper than anyone reads.
 */
function pathOf(frame: Frame): string {
  const keys: (string | number)[] = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) keys.push(f.key);
  keys.reverse();
  const path = keys.map((k, i) => (i === 0 && typeof k === "number" ? `[${k}]` : i ? `.${k}` : k))
    .join("");
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/**
 * True when every string and key of `value` is well-formed, found by a recursion that
 * allocates nothing (the walk below keeps a frame per value and a set of objects, about
 * 0.3 µs for a small spec). False means "not sure": a bad string, or nesting past 32 levels
 * (a cycle too), which the walk then sorts out.
 */
function allWellFormed(value: unknown, depth: number): boolean {
  if (typeof value === "string") return isWellFormed(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth > 32) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!allWellFormed(value[i], depth + 1)) return false;
    return true;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    if (!isWellFormed(key) || !allWellFormed(object[key], depth + 1)) return false;
  }
  return true;
}

/**
 * Every string of a JSON-like value that is not well-formed Unicode (object keys too, at
 * any depth), as `{ path, message }` with `path` like `payload.note`; at most 10. The walk
 * is iterative (a 1 MiB body can nest 500k deep) and visits each object once (cycles).
 *
 * @example
 * textIssues({ payload: { note: "\ud800" } }); // [{ path: "payload.note", message: "must be…" }]
 */
export function textIssues(value: unknown): FieldIssue[] {
  if (allWellFormed(value, 0)) return [];
  const issues: FieldIssue[] = [];
  const seen = new Set<object>();
  const stack: Frame[] = [{ value, key: null, parent: null }];
  while (stack.length > 0 && issues.length < MAX_TEXT_ISSUES) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === "string") {
      if (!isWellFormed(v)) issues.push({ path: pathOf(frame), message: BAD_TEXT });
      continue;
    }
    if (typeof v !== "object" || v === null || seen.has(v)) continue;
    seen.add(v);
    const children: Frame[] = [];
    if (Array.isArray(v)) {
      v.forEach((item, i) => children.push({ value: item, key: i, parent: frame }));
    } else {
      for (const [key, item] of Object.entries(v)) {
        if (isWellFormed(key)) children.push({ value: item, key, parent: frame });
        else if (issues.length < MAX_TEXT_ISSUES) {
          issues.push({ path: pathOf(frame), message: BAD_KEY });
        }
      }
    }
    // Reversed, so issues come out in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return issues;
}

/** `1500` → `"1500ms"`, `60000` → `"1m"`: a duration as the spec would write it. */
export function formatMs(ms: number): string {
  for (
    const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], [
      "s",
      1_000,
    ]] as const
  ) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** Why an `every` of `everyMs` is too short for the floor `minMs`, or null. */
export function everyProblem(everyMs: number, minMs: number): string | null {
  if (everyMs >= minMs) return null;
  return `must be at least ${formatMs(minMs)} (the minimum interval, SKEDULR_MIN_INTERVAL), got ${
    formatMs(everyMs)
  }`;
}

/** Why a cron expression is unusable, or null when croner accepts it. */
export function cronProblem(expression: string, timezone?: string): string | null {
  try {
    const job = new Cron(expression, { timezone, paused: true });
    if (!job.nextRun()) return `cron ${JSON.stringify(expression)} never fires`;
    return null;
  } catch (error) {
    return `invalid cron ${JSON.stringify(expression)}: ${(error as Error).message}`;
  }
}

/** True when the runtime knows `zone` as an IANA time zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Why a valid cron fires too often for the floor `minMs`, or null. */
export function cronIntervalProblem(
  expression: string,
  timezone: string | undefined,
  minMs: number,
): string | null {
  if (minMs <= 1_000) return null; // croner's finest field is whole seconds: every gap is ≥ 1 s
  const gap = cronMinGapMs(expression, timezone);
  if (gap >= minMs) return null;
  return `fires ${formatMs(gap)} apart at the closest, below the minimum interval of ${
    formatMs(minMs)
  } (SKEDULR_MIN_INTERVAL)`;
}

/**
 * The smallest gap between two occurrences of a cron expression, in ms, on the wall clock.
 *
 * Exact from the second, minute and hour fields rather than by sampling: a day's occurrences
 * are the product of the three sets, so consecutive ones are either neighbours within one
 * set (with the lower fields at their extremes) or the last of a day and the first of the
 * next. The day fields only remove days, so the day wrap is counted as if consecutive days
 * matched (an over-estimate of closeness only when they never do). A DST shift can bring
 * two occurrences closer once a year; that is not counted. Falls back to sampling the next
 * 1000 occurrences if croner's pattern ever changes shape.
 */
export function cronMinGapMs(expression: string, timezone?: string): number {
  const p = new CronPattern(expression, timezone);
  if (p.second?.length !== 60 || p.minute?.length !== 60 || p.hour?.length !== 24) {
    const runs = new Cron(expression, { timezone, paused: true }).nextRuns(1000);
    let gap = Infinity;
    for (let i = 1; i < runs.length; i++) {
      gap = Math.min(gap, runs[i].getTime() - runs[i - 1].getTime());
    }
    return gap;
  }
  const on = (flags: number[]) => flags.flatMap((flag, i) => (flag ? [i] : []));
  const [s, m, h] = [on(p.second), on(p.minute), on(p.hour)];
  if (!s.length || !m.length || !h.length) return Infinity;
  const step = (xs: number[]) => {
    let d = Infinity;
    for (let i = 1; i < xs.length; i++) d = Math.min(d, xs[i] - xs[i - 1]);
    return d;
  };
  const last = (xs: number[]) => xs[xs.length - 1];
  const secondSpan = last(s) - s[0];
  const minuteSpan = last(m) * 60 + last(s) - (m[0] * 60 + s[0]);
  const daySpan = last(h) * 3600 + last(m) * 60 + last(s) - (h[0] * 3600 + m[0] * 60 + s[0]);
  const seconds = Math.min(
    step(s),
    step(m) * 60 - secondSpan,
    step(h) * 3600 - minuteSpan,
    86_400 - daySpan,
  );
  return seconds * 1000;
}
