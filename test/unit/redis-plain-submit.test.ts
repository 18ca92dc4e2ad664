/**
 * Plain tasks on Redis (lua/includes/insert.lua readTask): a task without options, parents or
 * conditions is read as its head alone and takes a shorter path through enqueue. In a batch
 * beside tasks that have options, parents or conditions, every task is stored as submitted,
 * listed, queued and refused exactly as before.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import { encodeTaskInto } from "../../src/storage/redis/codec.ts";

const T0 = Date.UTC(2026, 0, 5, 8);
const OWNER = { workerId: "w", leaseMs: 60_000 };

describe("redis storage: plain tasks beside tasks with options", () => {
  let store: RedisStorage;
  let raw: RedisTransport;
  before(async () => {
    const url = await testRedisUrl();
    raw = connectRedisTcp(url);
    store = new RedisStorage({ transport: connectRedisTcp(url), prefix: uniquePrefix("plain") });
    await store.init();
  });
  after(async () => {
    await store.close();
    await raw.close();
  });

  it("stores, lists and queues each task of a mixed batch as submitted", async () => {
    const tasks = [
      newTask("a", T0, { payload: { n: 1 } }),
      newTask("b", T0, { pool: "p2", priority: 5, maxRetries: 2, payload: { s: "é" } }),
      newTask("c", T0, { key: "k1" }),
      newTask("d", T0, { dependsOn: ["a"] }),
      newTask("e", T0, { onSuccessOf: "a" }),
      newTask("f", T0),
      newTask("g", T0, { onFailureOf: "b" }),
      newTask("h", T0, { priority: 1 }),
      newTask("i", T0, { maxRetries: 4 }),
      newTask("j", T0, { pool: "p2" }),
    ];
    const answers = await store.enqueue({ tasks, now: T0 });
    assert.deepEqual(
      answers.map((a) => [a.id, a.status]),
      [
        ["a", "queued"],
        ["b", "queued"],
        ["c", "queued"],
        ["d", "waiting"],
        ["e", "waiting"],
        ["f", "queued"],
        ["g", "waiting"],
        ["h", "queued"],
        ["i", "queued"],
        ["j", "queued"],
      ],
    );
    for (const t of tasks) {
      const r = (await store.get(t.id))!;
      const fields = [
        "type",
        "pool",
        "priority",
        "maxRetries",
        "payload",
        "key",
        "dependsOn",
        "onSuccessOf",
        "onFailureOf",
      ] as const;
      for (const f of fields) {
        assert.deepEqual(r[f], t[f], `${t.id}.${f}`);
      }
    }
    const listed = await store.list({ limit: 20 });
    assert.deepEqual(listed.items.map((r) => r.id), [
      "j",
      "i",
      "h",
      "g",
      "f",
      "e",
      "d",
      "c",
      "b",
      "a",
    ]);

    const claimed = await store.claim({ pool: "default", max: 10, owner: OWNER, now: T0 });
    assert.deepEqual(claimed.map((t) => t.id), ["h", "a", "c", "f", "i"], "priority, then FIFO");
    const other = await store.claim({ pool: "p2", max: 10, owner: OWNER, now: T0 });
    assert.deepEqual(other.map((t) => [t.id, t.priority, t.payload]), [
      ["b", 5, { s: "é" }],
      ["j", 0, null],
    ]);
  });

  // A dedupe key changes nothing in a task's hash, but sends it down the full path. The
  // second case is sent as a short head (codec.ts SHORT_HEAD: pool, priority, retries default).
  const sameAsFull = [
    { name: "p3", spec: { pool: "p3", priority: 2, maxRetries: 1, payload: { x: [1, "ü"] } } },
    { name: "defaults", spec: { payload: { x: [2, "ß"] } } },
  ];
  for (const { name, spec } of sameAsFull) {
    it(`stores a plain task as the full path stores the same task (${name})`, async () => {
      const [plainId, fullId, key] = [`plain-${name}`, `full-${name}`, `d-${name}`];
      const args: string[] = [];
      encodeTaskInto(args, newTask(plainId, T0, spec));
      assert.equal(args.at(-1), name === "defaults" ? "=" : "-", "sent as a plain task");
      await store.enqueue({
        tasks: [
          newTask(plainId, T0, spec),
          newTask(fullId, T0, { ...spec, dedupe: { key, ttlMs: 60_000 } }),
        ],
        now: T0,
      });
      const hash = async (id: string) => {
        const flat = (await raw.send(["HGETALL", `${store.prefix}task:${id}`])) as string[];
        const h: Record<string, string> = {};
        for (let i = 0; i < flat.length; i += 2) h[flat[i]] = flat[i + 1];
        return h;
      };
      const [plain, full] = [await hash(plainId), await hash(fullId)];
      assert.match(String(await raw.send(["GET", `${store.prefix}dedupe:${key}`])), /:full-/);
      // Each took its own order and queue seq, in the same two steps.
      assert.equal(Number(plain.seq) - Number(plain.order), Number(full.seq) - Number(full.order));
      for (const h of [plain, full]) {
        delete h.order;
        delete h.seq;
      }
      assert.deepEqual(plain, full);
      assert.equal(plain.status, "queued");
      const ready = `${store.prefix}rl:${spec.priority ?? 0}:${spec.pool ?? "default"}`;
      const list = (await raw.send(["LRANGE", ready, "0", "-1"])) as string[];
      assert.deepEqual(
        list.map((m) => m.slice(16)).filter((id) => id.endsWith(name)),
        [plainId, fullId],
        "queued in order",
      );
    });
  }

  it("refuses a plain task whose id is in use, storing nothing of its batch", async () => {
    await store.enqueue({ tasks: [newTask("x", T0)], now: T0 });
    await assert.rejects(
      store.enqueue({ tasks: [newTask("y", T0), newTask("x", T0)], now: T0 }),
      /"x"/,
    );
    assert.equal(await store.get("y"), null);
    await assert.rejects(
      store.enqueue({ tasks: [newTask("z", T0), newTask("z", T0)], now: T0 }),
      /"z"/,
    );
    assert.equal(await store.get("z"), null);
  });
});
