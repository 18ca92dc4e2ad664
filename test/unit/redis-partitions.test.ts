/**
 * @module redis-partitions.test — a deployment in partitions on Redis: one hash tag (one
 * slot) per partition, tags spread over the slot space so a cluster's masters share them, the
 * partition count stamped at the first start and any other count refused with a message
 * naming SKEDULR_PARTITIONS, and the scripts' sharded form (SPUBLISH) for a cluster.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { hashSlot } from "../../src/storage/redis/keys.ts";
import { PartitionCountError } from "../../src/storage/redis/partition-count.ts";
import { partitionedRedis, partitionTags } from "../../src/storage/redis/partitions.ts";
import { shardedPublish } from "../../src/storage/redis/script-runner.ts";
import { SCRIPTS } from "../../src/storage/redis/scripts.generated.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";

let url: string;
let admin: RedisTransport;

/** A store of `partitions` under `prefix` (init() not called). */
const open = (prefix: string, partitions: number) =>
  partitionedRedis({ transport: connectRedisTcp(url), prefix, partitions });

describe("partitions on Redis", () => {
  before(async () => {
    url = await testRedisUrl();
    admin = connectRedisTcp(url);
  });
  after(async () => {
    await admin.close();
  });

  it("spreads the partitions' slots evenly, partition 0 keeping the deployment's own tag", () => {
    assert.deepEqual(partitionTags("default", 1), ["default"]);
    const tags = partitionTags("default", 3);
    assert.equal(tags[0], "default");
    // A cluster made by `redis-cli --cluster create` gives each of 3 masters a third.
    const thirds = tags.map((t) => Math.floor(hashSlot(`{${t}}`) / (16384 / 3)));
    assert.deepEqual(new Set(thirds).size, 3, `slots ${tags.map((t) => hashSlot(`{${t}}`))}`);
    assert.deepEqual(partitionTags("default", 3), tags, "every node computes the same tags");
  });

  it("keeps each partition's keys in one slot, and spreads tasks over the partitions", async () => {
    const prefix = uniquePrefix("parts");
    const storage = open(prefix, 3);
    await storage.init();
    try {
      const s = new Scheduler({ storage, logger: silentLogger, pools: {} });
      for (let i = 0; i < 9; i++) await s.submit({ type: "t" });
      for (const tag of partitionTags("default", 3)) {
        const names = await admin.send(["KEYS", `${prefix}:{${tag}}:*`]) as string[];
        assert.ok(names.includes(`${prefix}:{${tag}}:alb`), `partition ${tag} holds tasks`);
        assert.equal(new Set(names.map(hashSlot)).size, 1, `one slot for ${tag}`);
      }
    } finally {
      await storage.close();
    }
  });

  it("refuses a node started with another partition count, naming SKEDULR_PARTITIONS", async () => {
    const prefix = uniquePrefix("count");
    const first = open(prefix, 3);
    await first.init();
    await first.close();
    for (const wrong of [1, 2, 4]) {
      const other = open(prefix, wrong);
      await assert.rejects(other.init(), (e: unknown) => {
        assert.ok(e instanceof PartitionCountError, String(e));
        assert.equal(e.found, 3);
        assert.match(e.message, new RegExp(`has 3 partitions.*started with ${wrong}`));
        assert.match(e.message, /SKEDULR_PARTITIONS=3/);
        return true;
      });
      await other.close();
    }
    const again = open(prefix, 3);
    await again.init();
    await again.close();
  });

  it("refuses partitions on a deployment that held tasks before it had any", async () => {
    const prefix = uniquePrefix("old");
    const single = open(prefix, 1);
    await single.init();
    await new Scheduler({ storage: single, logger: silentLogger, pools: {} }).submit({ type: "t" });
    // As a store written before the count was stamped: tasks, no count.
    await admin.send(["HDEL", `${prefix}:{default}:meta`, "partitions"]);
    await single.close();
    const split = open(prefix, 3);
    await assert.rejects(split.init(), /has 1 partition .*started with 3/);
    await split.close();
  });

  it("publishes with SPUBLISH on a cluster, in every script that publishes", () => {
    for (const script of Object.values(SCRIPTS)) {
      const sharded = shardedPublish(script.source);
      assert.doesNotMatch(sharded, /'PUBLISH'/, `${script.name} still publishes to every node`);
      if (/'PUBLISH'/.test(script.source)) assert.match(sharded, /'SPUBLISH'/);
    }
  });
});
