/**
 * @module spec-quick-check — a fast "certainly valid" answer for the usual task spec (a type,
 * a payload and plain options), so most submits skip walking the whole valibot schema (27
 * optional fields, about 0.7 µs a spec). It only ever says yes to a spec the schema accepts:
 * a spec with any other field, or any value it is not sure of, goes to the schema, which
 * alone writes error messages. test/unit/spec-quick-check.test.ts holds it to that.
 */
import { MAX_DURATION_MS, parseDuration } from "./duration.ts";
import { NAME_PATTERN } from "./ids.ts";
import { isTraceparent } from "./traceparent.ts";

/**
 * True when `value` is plain JSON: null, booleans, finite numbers, strings, arrays and plain
 * objects, at most 64 levels deep (which also stops a cycle).
 */
export function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value as Record<string, unknown>).every((v) => isPlainJson(v, depth + 1));
  }
  return false;
}

type Check = (value: unknown) => boolean;

const name: Check = (x) => typeof x === "string" && NAME_PATTERN.test(x);
const duration: Check = (x) =>
  (typeof x === "number" || typeof x === "string") && !("error" in parseDuration(x));
const positiveDuration: Check = (x) => {
  if (typeof x !== "number" && typeof x !== "string") return false;
  const parsed = parseDuration(x);
  return "ms" in parsed && parsed.ms > 0;
};
const int = (min: number, max: number): Check => (x) =>
  typeof x === "number" && Number.isInteger(x) && x >= min && x <= max;
/** Epoch ms only: ISO text is the schema's to check. */
const epochMs: Check = (x) =>
  typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= Date.now() + MAX_DURATION_MS;
const optional = (check: Check): Check => (x) => x === undefined || check(x);

/** The fields the quick check knows, each with a test no looser than the schema's. */
const QUICK = new Map<string, Check>([
  ["type", name],
  ["payload", optional((x) => isPlainJson(x))],
  ["id", optional(name)],
  ["key", optional((x) => typeof x === "string" && x.length >= 1 && x.length <= 256)],
  ["priority", optional(int(-1e9, 1e9))],
  ["pool", optional(name)],
  ["delay", optional(duration)],
  ["runAt", optional(epochMs)],
  ["maxRetries", optional(int(0, 1000))],
  ["maxStalls", optional(int(0, 1000))],
  ["timeout", optional(positiveDuration)],
  ["expiresIn", optional(duration)],
  ["traceparent", optional((x) => typeof x === "string" && isTraceparent(x))],
]);

/**
 * True only when `TaskSpecSchema` accepts `input`: a plain object whose every field is one
 * the quick check knows, with a value it accepts, and a `type`. False means "ask the schema".
 */
export function quickValid(input: unknown): boolean {
  if (typeof input !== "object" || input === null) return false;
  if (Object.getPrototypeOf(input) !== Object.prototype) return false;
  const spec = input as Record<string, unknown>;
  for (const key in spec) {
    const check = QUICK.get(key);
    if (check === undefined || !check(spec[key])) return false;
  }
  return name(spec.type);
}
