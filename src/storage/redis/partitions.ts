/**
 * @module redis/partitions — a deployment of N partitions on Redis: N RedisStorages over one
 * transport, one hash tag each, composed by src/storage/partitioned/.
 *
 * Partition 0 keeps the deployment's own tag (`{default}`), so one partition is exactly
 * today's layout. Partition k's tag is `<tag>.p<k>` with a suffix picked so its Redis Cluster
 * slot falls near k/N of the way round the slot space from partition 0's: a cluster whose
 * masters hold equal ranges of slots (as `redis-cli --cluster create` makes them) gets one
 * partition per master when N equals the masters, and spreads them evenly otherwise. The
 * tags depend only on the tag and N, so every node computes the same ones.
 */
import type { Storage } from "../storage.ts";
import { PartitionedStorage } from "../partitioned/partitioned-storage.ts";
import { hashSlot, keyPrefix } from "./keys.ts";
import { RedisStorage, type RedisStorageOptions } from "./redis-storage.ts";

const SLOTS = 16384;
/** Suffixes tried per partition for a slot near its target (CRC16 spreads them well). */
const TRIES = 4096;

/**
 * The hash tags of the N partitions of a deployment with tag `tag`.
 *
 * @example
 * partitionTags("default", 3); // ["default", "default.p1.<n>", "default.p2.<n>"]
 */
export function partitionTags(tag: string, n: number): string[] {
  const base = hashSlot(`{${tag}}`);
  const tags = [tag];
  for (let k = 1; k < n; k++) {
    const target = (base + Math.round((k * SLOTS) / n)) % SLOTS;
    let best = "";
    let bestDistance = Infinity;
    for (let i = 0; i < TRIES && bestDistance > 0; i++) {
      const candidate = `${tag}.p${k}.${i}`;
      const d = Math.abs(hashSlot(`{${candidate}}`) - target);
      const distance = Math.min(d, SLOTS - d);
      if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
    }
    tags.push(best);
  }
  return tags;
}

export interface PartitionedRedisOptions extends RedisStorageOptions {
  /** How many partitions (SKEDULR_PARTITIONS; default 1: one RedisStorage, today's layout). */
  partitions?: number;
  /** How often a quiet partition is claimed from without an event (default 5 s). */
  backstopMs?: number;
}

/**
 * The store of a deployment with `partitions` partitions over one transport (a Redis
 * Cluster's, or a single Redis's). `maxUnfinished` and the retention apply per partition:
 * each holds what one store would (on a cluster, what one master holds per partition).
 *
 * @example
 * const storage = partitionedRedis({ transport: new ClusterTransport(seeds), partitions: 3 });
 * await storage.init(); // refuses a deployment made with another number of partitions
 */
export function partitionedRedis(options: PartitionedRedisOptions): Storage {
  const n = options.partitions ?? 1;
  const { partitions: _n, backstopMs, ...rest } = options;
  if (n === 1) return new RedisStorage(rest);
  keyPrefix(rest.prefix, rest.tag); // a bad prefix or tag is refused before anything opens
  const parts = partitionTags(rest.tag ?? "default", n).map((tag) =>
    new RedisStorage({ ...rest, tag, partitions: n, closeTransport: false })
  );
  return new PartitionedStorage({
    parts,
    backstopMs,
    afterClose: rest.closeTransport === false ? undefined : () => rest.transport.close(),
  });
}
