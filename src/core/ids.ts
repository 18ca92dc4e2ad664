/**
 * @module ids — time-ordered random ids, so listings sort by creation without an index, and
 * the one pattern every user-chosen name (task type, custom id, pool) must match.
 */
import { ValidationError } from "./errors.ts";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
/** Char code of the id character for each random byte (`b % 36`, as ids have always used). */
const CODE_OF_BYTE = Uint8Array.from({ length: 256 }, (_, b) => ALPHABET.charCodeAt(b % 36));

/**
 * Random bytes drawn from the CSPRNG a few thousand at a time: one `getRandomValues` call
 * and one buffer per id cost more than the rest of making it.
 */
const pool = new Uint8Array(4000);
let poolAt = pool.length;

/** The last time prefix made (9 base-36 chars and `-`): ids of one millisecond share it. */
let stampMs = NaN;
let stamp = "";
/**
 * The char codes of an id: the time prefix's (while it is 10 long), then the random part's.
 * The id is made from them in one piece: a concatenation is a rope, which a Map key or a
 * compare flattens into a copy, and a stored id would keep the larger rope cell.
 */
const codes = new Uint8Array(20);
let stampFlat = false;

/**
 * A new id: 9 base-36 chars of epoch ms, then 10 random chars, e.g. `mhx2k3c1a-4f0z9q8w7e`.
 * Collisions need 36^10 draws in one millisecond.
 */
export function newId(prefix = "", now = Date.now()): string {
  if (poolAt + 10 > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const b = codes;
  for (let k = 0; k < 10; k++) b[10 + k] = CODE_OF_BYTE[pool[poolAt + k]];
  poolAt += 10;
  if (now !== stampMs) {
    stampMs = now;
    stamp = `${now.toString(36).padStart(9, "0")}-`;
    stampFlat = stamp.length === 10;
    if (stampFlat) { for (let k = 0; k < 10; k++) b[k] = stamp.charCodeAt(k); }
  }
  if (prefix !== "" || !stampFlat) {
    return prefix + stamp + String.fromCharCode(...b.subarray(10));
  }
  // deno-fmt-ignore
  return String.fromCharCode(
    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
    b[10], b[11], b[12], b[13], b[14], b[15], b[16], b[17], b[18], b[19],
  );
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
