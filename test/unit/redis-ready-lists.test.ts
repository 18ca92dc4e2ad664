/**
 * Ready queues as lists (lua/includes/ready.lua): a task that leaves `queued` leaves its
 * list entry behind, and a claim drops such entries as it meets them. A cancelled task is
 * never started, a cancelled and resubmitted one starts once, in its new place; the queued
 * counts stay exact throughout; a claim that meets many such entries stops at its bound and
 * asks to be called again, and the queue drains; a handed-back task goes back before
 * everything queued after it.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import { keys } from "../../src/storage/redis/keys.ts";

const T0 = Date.UTC(2026, 0, 5, 8);
const owner = { workerId: "w", leaseMs: 60_000 };

describe("redis storage: ready lists", () => {
  let url: string;
  let raw: RedisTransport;
  const stores: RedisStorage[] = [];
  before(async () => {
    url = await testRedisUrl();
    raw = connectRedisTcp(url);
  });
  after(async () => {
    for (const s of stores) await s.close();
    await raw.close();
  });

  async function fresh(): Promise<RedisStorage> {
    const store = new RedisStorage({ transport: connectRedisTcp(url), prefix: uniquePrefix("rl") });
    await store.init();
    stores.push(store);
    return store;
  }

  const queuedCount = async (
    store: RedisStorage,
  ) => [(await store.stats()).byPool.default?.queued, (await store.stats()).byStatus.queued];

  /** Claims until a claim returns nothing, one call at a time; the ids in claim order. */
  async function drain(store: RedisStorage, max: number, now = T0): Promise<string[]> {
    const out: string[] = [];
    for (let calls = 0; calls < 1_000; calls++) {
      const claimed = await store.claim({ pool: "default", max, owner, now });
      if (claimed.length === 0 && claimed.heldUntil !== now) return out;
      out.push(...claimed.map((t) => t.id));
    }
    throw new Error("the queue did not drain within 1,000 claims");
  }

  it("a queued task's place is a list entry, not a sorted-set entry", async () => {
    const store = await fresh();
    await store.enqueue({ tasks: [newTask("a", T0), newTask("b", T0, { priority: 3 })], now: T0 });
    assert.equal(await raw.send(["TYPE", keys.readyList(store.prefix, "default", 0)]), "list");
    assert.equal(await raw.send(["TYPE", keys.readyList(store.prefix, "default", 3)]), "list");
    assert.equal(await raw.send(["EXISTS", `${store.prefix}ready:default`]), 0);
    assert.deepEqual(
      await raw.send(["ZRANGE", keys.readyLevels(store.prefix, "default"), "0", "-1"]),
      [
        "3",
        "0",
      ],
    );
  });

  it("cancelled tasks are never started, and the counts stay exact", async () => {
    const store = await fresh();
    const ids = Array.from({ length: 10 }, (_, i) => `t${i}`);
    await store.enqueue({ tasks: ids.map((id) => newTask(id, T0)), now: T0 });
    for (const id of ["t0", "t3", "t4", "t9"]) await store.cancel({ id, reason: "no", now: T0 });
    assert.deepEqual(await queuedCount(store), [6, 6]);
    // Their entries are still in the list: the claim drops them.
    assert.equal(await raw.send(["LLEN", keys.readyList(store.prefix, "default", 0)]), 10);
    assert.deepEqual(await drain(store, 4), ["t1", "t2", "t5", "t6", "t7", "t8"]);
    assert.deepEqual(await queuedCount(store), [0, 0]);
    assert.equal(await raw.send(["EXISTS", keys.readyList(store.prefix, "default", 0)]), 0);
    assert.equal(await raw.send(["EXISTS", keys.readyLevels(store.prefix, "default")]), 0);
  });

  it("a cancelled task resubmitted starts once, behind what was queued before it came back", async () => {
    const store = await fresh();
    await store.enqueue({ tasks: ["a", "b", "c"].map((id) => newTask(id, T0)), now: T0 });
    await store.cancel({ id: "a", reason: "no", now: T0 });
    await store.enqueue({ tasks: [newTask("d", T0)], now: T0 });
    await store.resubmit({ id: "a", now: T0 + 1 });
    await store.enqueue({ tasks: [newTask("e", T0)], now: T0 + 1 });
    assert.deepEqual(await queuedCount(store), [5, 5]);
    assert.deepEqual(await drain(store, 2, T0 + 2), ["b", "c", "d", "a", "e"]);
    assert.deepEqual(await queuedCount(store), [0, 0]);
  });

  it("a claim drops at most 1,000 left-behind entries, then asks to be called again", async () => {
    const store = await fresh();
    const ids = Array.from({ length: 1_210 }, (_, i) => `m${String(i).padStart(4, "0")}`);
    for (let i = 0; i < ids.length; i += 500) {
      await store.enqueue({ tasks: ids.slice(i, i + 500).map((id) => newTask(id, T0)), now: T0 });
    }
    for (const id of ids.slice(0, 1_200)) await store.cancel({ id, reason: "no", now: T0 });
    const first = await store.claim({ pool: "default", max: 5, owner, now: T0 });
    assert.deepEqual(first.map((t) => t.id), []);
    assert.equal(first.heldUntil, T0, "claim again at once: more may be claimable");
    assert.equal(
      await raw.send(["LLEN", keys.readyList(store.prefix, "default", 0)]),
      1_210 - 1_000,
    );
    assert.deepEqual(await drain(store, 5), ids.slice(1_200));
    assert.deepEqual(await queuedCount(store), [0, 0]);
  });

  it("a task handed back goes before everything queued after it, in its priority", async () => {
    const store = await fresh();
    await store.enqueue({ tasks: ["x", "y"].map((id) => newTask(id, T0)), now: T0 });
    const [x] = await store.claim({ pool: "default", max: 1, owner, now: T0 });
    await store.enqueue({ tasks: [newTask("z", T0)], now: T0 });
    // The claim's reply was lost: the task goes back to the front, its attempt restored.
    assert.equal(
      await store.releaseClaim({ pool: "default", owner, claimedAt: T0, keep: [], now: T0 + 1 }),
      1,
    );
    assert.equal(x.id, "x");
    assert.deepEqual(await queuedCount(store), [3, 3]);
    assert.deepEqual(await drain(store, 1, T0 + 2), ["x", "y", "z"]);
  });
});
