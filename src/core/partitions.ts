/**
 * @module partitions — where a task lives when a deployment is split into partitions
 * (`SKEDULR_PARTITIONS`): the partition a key hashes to, and the partition a store-made id
 * carries, so a read of any task needs no directory.
 *
 * A partition is one hash tag of the Redis key space (one slot, one Redis Cluster master),
 * so every script stays single-slot. Ids the store makes (a submit without `id`, a
 * schedule's run) end in `~<partition>`: `~` is outside the custom-id alphabet
 * (NAME_PATTERN), so a custom id can never look like one. A callback's id
 * `__cb_<taskId>_<n>` lives with its task. Keys (flow control, dedupe, debounce, unique
 * `key`, rate-limit keys, schedule ids) hash to a partition; like Redis Cluster, only the
 * part inside the first `{…}` counts when there is one, so related keys can be made to
 * share a partition (`{tenant-7}order-1` and `tenant-7`).
 */

/** Most partitions a deployment may have (the idle cost and the key space both grow). */
export const MAX_PARTITIONS = 64;

/** The tail store-made ids carry: `~<partition>`. */
const MARK = /~(\d{1,2})$/;
/** A callback task's id: `__cb_<taskId>_<n>` (core/callback.ts). */
const CALLBACK_ID = /^__cb_(.+)_\d+$/;

/**
 * A store-made id with its partition, e.g. `mhx2k3c1a-4f0z9q8w7e~2`.
 *
 * @example
 * withPartition("mhx2k3c1a-4f0z9q8w7e", 2); // "mhx2k3c1a-4f0z9q8w7e~2"
 */
export function withPartition(id: string, partition: number): string {
  return `${id.replace(MARK, "")}~${partition}`;
}

/**
 * The partition an id names (its `~<k>` tail, or its task's for a callback id), or null for
 * an id that names none (a custom id, or one made before partitions): such a task is looked
 * up in every partition at once.
 *
 * @example
 * partitionOfId("mhx2k3c1a-4f0z9q8w7e~2", 3); // 2
 * partitionOfId("__cb_mhx2k3c1a-4f0z9q8w7e~2_1", 3); // 2
 * partitionOfId("order-42", 3); // null
 */
export function partitionOfId(id: string, partitions: number): number | null {
  const callback = CALLBACK_ID.exec(id);
  if (callback) return partitionOfId(callback[1], partitions);
  const m = MARK.exec(id);
  if (!m) return null;
  const k = Number(m[1]);
  return k < partitions ? k : null;
}

/**
 * Where a task with id `id` goes when nothing else ties it: the partition its id names, else
 * (a custom id) where the id hashes; a callback's id `__cb_<taskId>_<n>` where its task's
 * would (callbacks are made in their task's partition).
 */
export function homePartition(id: string, partitions: number): number {
  const named = partitionOfId(id, partitions);
  if (named !== null) return named;
  const callback = CALLBACK_ID.exec(id);
  return callback ? homePartition(callback[1], partitions) : hashPartition(id, partitions);
}

/** The part of `key` that is hashed: inside its first non-empty `{…}`, else all of it. */
export function hashTagOf(key: string): string {
  const open = key.indexOf("{");
  if (open < 0) return key;
  const close = key.indexOf("}", open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/**
 * The partition `key` hashes to: FNV-1a (32 bits) of its UTF-8 hash tag, mod `partitions`.
 *
 * @example
 * hashPartition("tenant-7", 3) === hashPartition("{tenant-7}order-1", 3); // true
 */
export function hashPartition(key: string, partitions: number): number {
  if (partitions <= 1) return 0;
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(hashTagOf(key))) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}

/**
 * The share of a pool-wide limit that partition `k` of `n` enforces: the shares sum to
 * `limit`, the first `limit mod n` partitions holding one more, so the deployment never
 * exceeds it. Needs `limit >= n` (every share at least 1).
 *
 * @example
 * [0, 1, 2].map((k) => limitShare(10, k, 3)); // [4, 3, 3]
 */
export function limitShare(limit: number, k: number, n: number): number {
  return Math.floor(limit / n) + (k < limit % n ? 1 : 0);
}
