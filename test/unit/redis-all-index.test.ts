/**
 * The `all` index in buckets (lua/includes/index-buckets.lua): with tasks over many buckets and
 * retention pruning finished rows out of the oldest ones, a listing pages through every task
 * left exactly once, newest first; each bucket stays compact, the directory lists exactly
 * the buckets that hold a task, and the retained stream holds the rows retention keeps.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { INDEX_BUCKET } from "../../src/storage/redis/keys.ts";
import type { TaskRecord } from "../../src/core/task.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { leaseOf, newTask } from "../../scripts/tools/new-task.ts";
import { listEvery } from "../helpers/listing.ts";

const T0 = Date.UTC(2026, 0, 5, 8);

describe("redis storage: the all index in buckets", () => {
  let raw: RedisTransport;
  let store: RedisStorage;
  before(async () => {
    const url = await testRedisUrl();
    raw = connectRedisTcp(url);
    store = new RedisStorage({
      transport: connectRedisTcp(url),
      prefix: uniquePrefix("allidx"),
      history: { maxCount: 100 },
    });
    await store.init();
  });
  after(async () => {
    await store.close();
    await raw.close();
  });

  const listAll = (filter: { status?: TaskRecord["status"] } = {}) =>
    listEvery(store, { ...filter, limit: 37 });

  it("pages through every task left once, newest first, after pruning emptied old buckets", async () => {
    const n = 6 * INDEX_BUCKET;
    const ids = Array.from({ length: n }, (_, i) => `t${String(i).padStart(4, "0")}`);
    for (let i = 0; i < n; i += 100) {
      await store.enqueue({ tasks: ids.slice(i, i + 100).map((id) => newTask(id, T0)), now: T0 });
    }
    const bucketsBefore = Number(await raw.send(["ZCARD", `${store.prefix}alb`]));
    assert.ok(bucketsBefore >= 6, `tasks span ${bucketsBefore} buckets`);

    // The oldest 400 run and succeed; retention keeps the newest 100 finished rows.
    const owner = { workerId: "w", leaseMs: 60_000 };
    for (let done = 0; done < 400;) {
      const claimed = await store.claim({ pool: "default", max: 50, owner, now: T0 + 1 });
      for (const t of claimed) {
        assert.ok(await store.complete({ lease: leaseOf(t, "w"), result: null, now: T0 + 2 }));
      }
      done += claimed.length;
    }
    const listed = await listAll();
    const kept = [...ids.slice(300, 400), ...ids.slice(400)].reverse();
    assert.deepEqual(listed.map((t) => t.id), kept, "every task left, once, newest first");
    const succeeded = await listAll({ status: "succeeded" });
    assert.deepEqual(succeeded.map((t) => t.id), ids.slice(300, 400).reverse());

    const bucketKeys = (await raw.send(["KEYS", `${store.prefix}al:*`])) as string[];
    const directory = (await raw.send(["ZRANGE", `${store.prefix}alb`, "0", "-1"])) as string[];
    assert.deepEqual(
      bucketKeys.map((k) => k.slice(k.lastIndexOf(":") + 1)).sort(),
      [...directory].sort(),
      "the directory lists exactly the buckets that hold a task",
    );
    assert.ok(directory.length < bucketsBefore, "buckets emptied by pruning left the directory");
    for (const key of bucketKeys) {
      // A listpack (a quicklist of one on Redis 7.0): ~16 bytes an entry, a skiplist ~100.
      const size = Number(await raw.send(["LLEN", key]));
      const bytes = Number(await raw.send(["MEMORY", "USAGE", key]));
      if (size >= 32) assert.ok(bytes / size <= 32, `${key}: ${bytes} B for ${size}`);
    }
    // Retention holds the newest 100 finished rows, and nothing else.
    assert.equal(await raw.send(["XLEN", `${store.prefix}retained`]), 100);
  });

  it("takes pruned rows out wherever they are in their bucket, keeping the rest in order", async () => {
    // Tasks finish out of their creation order (each claim's completed last first, a few
    // left running), so pruning meets ids past the head of a bucket and head entries it keeps.
    const url = await testRedisUrl();
    const own = new RedisStorage({
      transport: connectRedisTcp(url),
      prefix: uniquePrefix("allidx-order"),
      history: { maxCount: 50 },
    });
    await own.init();
    try {
      const n = 3 * INDEX_BUCKET;
      const ids = Array.from({ length: n }, (_, i) => `u${String(i).padStart(4, "0")}`);
      await own.enqueue({ tasks: ids.map((id) => newTask(id, T0)), now: T0 });
      const owner = { workerId: "w", leaseMs: 60_000 };
      const running = new Set<string>();
      for (let round = 0; round < 10; round++) {
        const claimed = await own.claim({ pool: "default", max: 30, owner, now: T0 + 1 });
        // Every seventh stays running: an old entry the head search must step over.
        for (const t of claimed.reverse()) {
          if (Number(t.id.slice(1)) % 7 === 3) running.add(t.id);
          else assert.ok(await own.complete({ lease: leaseOf(t, "w"), result: null, now: T0 + 2 }));
        }
      }
      const listed = (await listEvery(own, { limit: 41 })).map((t) => t.id);
      const left = new Set(listed);
      assert.equal(left.size, listed.length, "each task listed once");
      assert.deepEqual(listed, [...listed].sort().reverse(), "newest first");
      for (const id of running) assert.ok(left.has(id), `${id}, still running, is listed`);
      const finished = (await own.stats()).byStatus.succeeded;
      assert.equal(finished, 50, "retention keeps 50 finished rows");
      assert.equal(listed.length, n - (300 - running.size - 50));
      // Each bucket holds exactly its tasks left, in creation order.
      const keys = ((await raw.send(["KEYS", `${own.prefix}al:*`])) as string[]).sort();
      const stored: string[] = [];
      for (const key of keys) {
        const bucket = (await raw.send(["LRANGE", key, "0", "-1"])) as string[];
        assert.deepEqual(bucket, [...bucket].sort(), `${key} in creation order`);
        stored.push(...bucket);
      }
      assert.deepEqual(stored.sort(), [...listed].sort());
    } finally {
      await own.close();
    }
  });

  it("keeps a cancelled task that was resubmitted: retention prunes only rows still finished", async () => {
    const owner = { workerId: "w", leaseMs: 60_000 };
    await store.enqueue({ tasks: [newTask("revived", T0, { pool: "other" })], now: T0 });
    await store.cancel({ id: "revived", reason: "by the test", now: T0 });
    await store.resubmit({ id: "revived", now: T0 + 1 });
    // 150 more finish after it: retention (100 rows) passes where its cancel was filed.
    const ids = Array.from({ length: 150 }, (_, i) => `after-${i}`);
    await store.enqueue({ tasks: ids.map((id) => newTask(id, T0)), now: T0 + 2 });
    for (let done = 0; done < 150;) {
      const claimed = await store.claim({ pool: "default", max: 50, owner, now: T0 + 3 });
      for (const t of claimed) {
        assert.ok(await store.complete({ lease: leaseOf(t, "w"), result: null, now: T0 + 4 }));
      }
      done += claimed.length;
    }
    assert.equal((await store.get("revived"))?.status, "queued");
  });
});
