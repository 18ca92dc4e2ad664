/**
 * @module ids — time-ordered random ids, so listings sort by creation without an index.
 */

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

/** Letters, digits and `_ . : -`, 1..128 chars: the charset of task types and ids. */
export const NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
