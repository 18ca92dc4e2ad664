/**
 * @module ids — time-ordered random ids, so listings sort by creation without an index, and
 * the one pattern every user-chosen name (task type, custom id, pool) must match.
 */
import { ValidationError } from "./errors.ts";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * A new id: 9 base-36 chars of epoch ms, then 10 random chars, e.g. `mhx2k3c1a-4f0z9q8w7e`.
 * Collisions need 36^10 draws in one millisecond.
 */
export function newId(prefix = "", now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  let rand = "";
  for (const b of bytes) rand += ALPHABET[b % 36];
  return `${prefix}${now.toString(36).padStart(9, "0")}-${rand}`;
}

/** Longest task type, custom id or pool name. */
export const MAX_NAME_LENGTH = 128;

/**
 * Task types, custom ids and pool names: letters, digits and `_ . : -`, 1 to 128 chars, not
 * only dots, not starting with `__`. The charset keeps names safe in URLs, Redis keys and
 * Prometheus labels. Dots alone are refused because URL paths are normalised: a task `..`
 * would be stored but `GET /tasks/..` could never reach it. A leading `__` is refused because
 * `__proto__` (and `__defineGetter__` and kin) are special keys of plain JavaScript objects,
 * in this code and in every JS client that reads `stats.pools[name]`; the other inherited
 * names (`constructor`, `toString`, …) are ordinary names and work everywhere.
 */
export const NAME_PATTERN = /^(?!\.+$)(?!__)[A-Za-z0-9_.:-]{1,128}$/;

/** {@link NAME_PATTERN} in words, for error messages and docs. */
export const NAME_RULE =
  "letters, digits and _ . : - only, 1 to 128 characters, not only dots, not starting with __";

/**
 * A reference to a stored task (a workflow parent): a name, or an id a partitioned store made,
 * which ends in its partition's `~<k>` (src/core/partitions.ts).
 */
export const TASK_REF_PATTERN = /^(?!\.+$)(?!__)[A-Za-z0-9_.:-]{1,128}(?:~\d{1,2})?$/;

/** True when `value` is a string matching {@link NAME_PATTERN}. */
export function isName(value: unknown): value is string {
  return typeof value === "string" && NAME_PATTERN.test(value);
}

/** `value` when it is a name, else a ValidationError naming `path` (e.g. `pool`). */
export function requireName(value: unknown, path: string, what: string): string {
  if (isName(value)) return value;
  throw new ValidationError(
    [{ path, message: `${NAME_RULE}, got ${JSON.stringify(value)}` }],
    what,
  );
}
