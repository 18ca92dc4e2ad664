/**
 * @module prng — mulberry32, a small seeded PRNG: the same seed gives the same sequence, so
 * a randomized test replays from its seed and every benchmark design sees the same inputs.
 */

/** Returns a generator of floats in [0, 1) seeded by `seed`. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
