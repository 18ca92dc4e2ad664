/**
 * @module partition-count — the number of partitions a deployment was made with, kept in
 * each partition's `meta` hash (field `partitions`), and init()'s refusal of a node started
 * with another number.
 *
 * Ids, keys and schedules are placed by that number (src/core/partitions.ts): a node that
 * counted differently would look for tasks in the wrong partition and never claim from the
 * ones it does not know. So the first node stamps it and every later one must agree;
 * changing it is a drain-and-switch to a new deployment (docs/PARTITIONS.md). A store that
 * held tasks before partitions existed (a `seq` counter, no stamp) has one partition.
 */
import { SkedulrError } from "../../core/errors.ts";
import type { RedisContext } from "./context.ts";
import { keys } from "./keys.ts";

/** The `meta` field holding the deployment's partition count. */
export const PARTITIONS_FIELD = "partitions";

/** A node was started with another partition count than its deployment's. Not a fault. */
export class PartitionCountError extends SkedulrError {
  /** The deployment's count, as its `meta` hash says. */
  readonly found: number;
  constructor(found: number, wanted: number, prefix: string) {
    super(
      "storage",
      `Refusing to start: the deployment under ${prefix} has ${found} partition${
        found === 1 ? "" : "s"
      } (${prefix}meta ${PARTITIONS_FIELD}), but this node was started with ${wanted} ` +
        `(SKEDULR_PARTITIONS). Start every node with SKEDULR_PARTITIONS=${found}; to change ` +
        'the count, drain into a new deployment (docs/PARTITIONS.md, "Changing the number ' +
        'of partitions").',
    );
    this.name = "PartitionCountError";
    this.found = found;
  }
}

/**
 * Stamps `wanted` on a store that has no count yet, and throws {@link PartitionCountError}
 * when the store holds another one.
 */
export async function ensurePartitionCount(ctx: RedisContext, wanted: number): Promise<void> {
  const meta = keys.meta(ctx.prefix);
  let stored = await ctx.transport.send(["HGET", meta, PARTITIONS_FIELD]);
  if (stored === null) {
    const used = await ctx.transport.send(["EXISTS", keys.seq(ctx.prefix)]);
    // Written before partitions existed: one partition, whatever this node says.
    if (Number(used) === 1 && wanted !== 1) throw new PartitionCountError(1, wanted, ctx.prefix);
    // Two nodes may start at once: the first stamp wins, and the other is judged by it.
    await ctx.transport.send(["HSETNX", meta, PARTITIONS_FIELD, String(wanted)]);
    stored = await ctx.transport.send(["HGET", meta, PARTITIONS_FIELD]);
  }
  const found = Number(stored);
  if (found !== wanted) throw new PartitionCountError(found, wanted, ctx.prefix);
}
