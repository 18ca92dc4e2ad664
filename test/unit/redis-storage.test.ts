/**
 * RedisStorage beyond the shared behaviour suite: the eviction-policy refusal, cluster-safe
 * key naming, events across instances, exactly-once promotion under a race, batched claims
 * and completions, and payloads that survive Lua untouched.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage, type RedisStorageOptions } from "../../src/storage/redis/redis-storage.ts";
import { hashSlot, keyPrefix, keys } from "../../src/storage/redis/keys.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { SCHEDULES_PAGE } from "../../src/storage/redis/registry.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import type { NewTask } from "../../src/core/task.ts";
import type { StorageEvent } from "../../src/storage/storage.ts";
import { startRedisServer, testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { leaseOf, newSchedule, newTask } from "../../scripts/tools/new-task.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";

const T0 = Date.UTC(2026, 0, 5, 8);

function task(id: string, extra: Partial<NewTask> = {}): NewTask {
  return newTask(id, T0, extra);
}

async function open(
  url: string,
  options: Partial<RedisStorageOptions> = {},
): Promise<RedisStorage> {
  const storage = new RedisStorage({
    transport: connectRedisTcp(url),
    prefix: uniquePrefix("storage"),
    ...options,
  });
  await storage.init();
  return storage;
}

describe("redis storage: start-up checks", () => {
  it("refuses to start unless maxmemory-policy is noeviction, and says why", async () => {
    const server = await startRedisServer(["--maxmemory-policy", "allkeys-lru"]);
    const storage = new RedisStorage({ transport: connectRedisTcp(server.url), prefix: "t" });
    try {
      await assert.rejects(storage.init(), (e: Error) => {
        assert.match(
          e.message,
          /maxmemory-policy is "allkeys-lru", but Skedulr needs "noeviction"/,
        );
        return true;
      });
      const admin = connectRedisTcp(server.url);
      await admin.send(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
      await admin.close();
      await storage.init();
      assert.equal(await storage.ping(), true);
    } finally {
      await storage.close();
      await server.stop();
    }
  });

  it("rejects a prefix or tag that would break the hash tag", () => {
    assert.equal(keyPrefix("skedulr", "emails"), "skedulr:{emails}:");
    assert.throws(() => keyPrefix("a{b}", "x"), /Invalid Redis key prefix "a\{b\}"/);
    assert.throws(() => keyPrefix("a", ""), /Invalid Redis key tag ""/);
  });

  it("computes Redis Cluster slots as Redis does", () => {
    assert.equal(hashSlot("123456789"), 12739);
    assert.equal(hashSlot("{user1000}.following"), hashSlot("{user1000}.followers"));
    assert.equal(hashSlot("foo{}{bar}"), hashSlot("foo{}{bar}"));
    assert.notEqual(hashSlot("skedulr:{a}:x"), hashSlot("skedulr:{b}:x"));
  });
});

describe("redis storage: cluster-safe keys", () => {
  it("writes every key under the prefix, all in the prefix's slot", async () => {
    // A private server, so every key in it must come from this store.
    const server = await startRedisServer();
    const s = await open(server.url, { prefix: "skedulr", tag: "orders" });
    try {
      await s.enqueue({
        tasks: [
          task("a", { key: "k1" }),
          task("b", { dependsOn: ["a"] }),
          task("c", { onFailureOf: "a" }),
          task("d", { runAt: T0 + 60_000, pool: "slow" }),
        ],
        now: T0,
      });
      const [a] = await s.claim({
        pool: "default",
        max: 10,
        owner: { workerId: "w1", leaseMs: 1_000 },
        now: T0,
      });
      assert.equal(a.id, "a");
      await s.setProgress({ lease: leaseOf(a, "w1"), progress: 50, now: Date.now() });
      const logs = { from: 1, lines: [{ at: T0 + 1, attempt: 1, message: "logged" }] };
      await s.complete({ lease: leaseOf(a, "w1"), result: { ok: true }, now: T0 + 5, logs });
      const [b] = await s.claim({
        pool: "default",
        max: 10,
        owner: { workerId: "w1", leaseMs: 1_000 },
        now: T0 + 6,
      });
      await s.fail({
        lease: leaseOf(b, "w1"),
        error: { message: "x" },
        retryAt: null,
        now: T0 + 7,
      });
      await s.promoteDue({ now: T0 + 60_000, limit: 10 });
      await s.cancel({ id: "d", reason: "no", now: T0 + 60_001 });
      await s.resubmit({ id: "d", now: T0 + 60_002 });
      await s.putSchedule({ replace: false, now: T0, schedule: newSchedule("s1", 1_000, T0) });
      await s.fireSchedule({
        id: "s1",
        occurrenceAt: T0,
        nextRunAt: T0 + 1_000,
        firedAt: T0,
        run: task("run1", { scheduleId: "s1" }),
        now: T0,
      });
      await s.setPoolSize({ pool: "default", size: 3 });
      await s.setPaused({ pool: null, paused: true });
      await s.heartbeat({
        info: {
          id: "i1",
          host: "h",
          pid: 1,
          pools: { default: 1 },
          running: 0,
          startedAt: T0,
          lastSeen: T0,
        },
        ttlMs: 10_000,
        now: T0,
      });
      const admin = connectRedisTcp(server.url);
      const found: string[] = [];
      let cursor = "0";
      do {
        const [next, batch] = await admin.send(["SCAN", cursor, "COUNT", "1000"]) as [
          string,
          string[],
        ];
        found.push(...batch);
        cursor = next;
      } while (cursor !== "0");
      await admin.close();
      assert.ok(found.length >= 15, `expected the workload's keys, got ${found.join(", ")}`);
      assert.ok(found.includes(keys.logs(s.prefix, "a")), "a's log beside its row");
      const slot = hashSlot("skedulr:{orders}:");
      for (const key of found) {
        assert.ok(key.startsWith("skedulr:{orders}:"), `${key} is outside the prefix`);
        assert.equal(hashSlot(key), slot, `${key} is in another slot`);
      }
    } finally {
      await s.close();
      await server.stop();
    }
  });
});

describe("redis storage: across instances", () => {
  let url: string;
  before(async () => {
    url = await testRedisUrl();
  });

  it("delivers events from one instance to another", async () => {
    const prefix = uniquePrefix("events");
    const a = await open(url, { prefix });
    const b = await open(url, { prefix });
    try {
      const seen: StorageEvent[] = [];
      b.subscribe((e) => seen.push(e));
      await a.enqueue({ tasks: [task("r"), task("d", { runAt: T0 + 5_000 })], now: T0 });
      await eventually(
        () =>
          seen.some((e) => e.kind === "ready" && e.pool === "default") &&
          seen.some((e) => e.kind === "delayed" && e.id === "d" && e.runAt === T0 + 5_000),
        "ready and delayed events on b",
      );
      const [r] = await a.claim({
        pool: "default",
        max: 1,
        owner: { workerId: "wa", leaseMs: 30_000 },
        now: T0,
      });
      await b.cancel({ id: "r", reason: "stop", now: T0 + 1 });
      await eventually(() => seen.some((e) => e.kind === "cancel" && e.id === "r"), "cancel");
      assert.deepEqual(
        await a.renewLeases({ leases: [leaseOf(r, "wa")], leaseMs: 30_000, now: T0 + 2 }),
        ["r"],
        "the owner loses the lease of a task cancelled elsewhere",
      );
      await a.setPoolSize({ pool: "default", size: 2 });
      await eventually(() => seen.some((e) => e.kind === "control"), "control");
      assert.deepEqual(await b.poolControls(), [
        { pool: "default", size: 2, paused: false, globalConcurrency: null, rateLimit: null },
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("promotes each due task exactly once when instances race", async () => {
    const prefix = uniquePrefix("race");
    const stores = await Promise.all([1, 2, 3].map(() => open(url, { prefix })));
    try {
      const n = 600;
      await stores[0].enqueue({
        tasks: Array.from({ length: n }, (_, i) => task(`d${i}`, { runAt: T0 + 1 + (i % 50) })),
        now: T0,
      });
      const promoted = await Promise.all(
        stores.flatMap((s) => [0, 1, 2, 3].map(() => s.promoteDue({ now: T0 + 100, limit: 50 }))),
      );
      let total = promoted.reduce((a, b) => a + b, 0);
      while (total < n) total += await stores[1].promoteDue({ now: T0 + 100, limit: 1_000 });
      assert.equal(total, n);
      const claimed = await Promise.all(
        stores.map((s, i) =>
          s.claim({
            pool: "default",
            max: n,
            owner: { workerId: `w${i}`, leaseMs: 1_000 },
            now: T0 + 100,
          })
        ),
      );
      const ids = claimed.flat().map((t) => t.id);
      assert.equal(ids.length, n);
      assert.equal(new Set(ids).size, n, "no task claimed twice");
      assert.equal(await stores[2].promoteDue({ now: T0 + 200, limit: 1_000 }), 0);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

describe("redis storage: batching and fidelity", () => {
  let s: RedisStorage;
  before(async () => {
    s = await open(await testRedisUrl());
  });
  after(async () => {
    await s.close();
  });

  it("lists schedules a page of at most SCHEDULES_PAGE per script call, so no call reads them all; a lost page fails the listing", async () => {
    const tcp = connectRedisTcp(await testRedisUrl());
    // Schedules each page call answered (FCALL of the getSchedules function).
    const pages: number[] = [];
    // The page call (1-based, of one listing) whose reply is lost; 0: none.
    let failPage = 0, pageCalls = 0;
    const counting: RedisTransport = {
      name: tcp.name,
      functions: tcp.functions,
      send: async (cmd) => {
        const isPage = cmd[0] === "FCALL" && cmd[1].endsWith("_getSchedules") && cmd[4] === "";
        if (isPage && cmd[5] === "-inf") pageCalls = 0;
        if (isPage && ++pageCalls === failPage) throw new Error("page lost");
        const reply = await tcp.send(cmd);
        if (isPage) pages.push((reply as unknown[]).length - 1);
        return reply;
      },
      pipeline: (cmds) => tcp.pipeline(cmds),
      subscribe: (channel, onMessage) => tcp.subscribe(channel, onMessage),
      close: () => tcp.close(),
    };
    const store = new RedisStorage({ transport: counting, prefix: uniquePrefix("pages") });
    await store.init();
    const client = new Scheduler({ storage: store, pools: {}, logger: silentLogger });
    try {
      const n = 2 * SCHEDULES_PAGE + 1;
      for (let i = 0; i < n; i += 100) {
        await client.submitMany(
          Array.from({ length: Math.min(100, n - i) }, (_, j) => ({
            type: "t",
            id: `s${i + j}`,
            every: "1h",
          })),
        );
      }
      assert.equal((await client.listSchedules()).length, n);
      assert.deepEqual(pages, [SCHEDULES_PAGE, SCHEDULES_PAGE, 1]);
      // A page whose call fails fails the listing: never a part of it passed off as all.
      failPage = 2;
      await assert.rejects(client.listSchedules(), /page lost/);
      failPage = 0;
      assert.equal((await client.listSchedules()).length, n);
    } finally {
      await store.close();
    }
  });

  it("keeps a queued task's hash a compact listpack (OBJECT ENCODING), plain or with common fields", async () => {
    // Over hash-max-listpack-value (64 B) one field turns the whole hash into a hashtable, about
    // 3x the memory (docs/BENCHMARKS.md, bench:memory).
    const url = await testRedisUrl();
    const store = await open(url);
    const client = new Scheduler({ storage: store, pools: {}, logger: silentLogger });
    const raw = connectRedisTcp(url);
    try {
      const submitted = await client.submitMany([
        { type: "noop" },
        { type: "send_email", payload: { to: "ada@example.com" }, priority: 5, maxRetries: 5 },
        { type: "report", delay: "1m", key: "report-7", timeout: "30s" },
      ]);
      for (const { id } of submitted) {
        const encoding = await raw.send(["OBJECT", "ENCODING", keys.task(store.prefix, id)]);
        assert.equal(encoding, "listpack", `task ${id}: ${JSON.stringify(await store.get(id))}`);
      }
    } finally {
      await raw.close();
      await store.close();
    }
  });

  it("leaves fields at their defaults out of a task's hash, and reads hashes with them (0.2.0's) the same", async () => {
    const url = await testRedisUrl();
    const store = await open(url);
    const raw = connectRedisTcp(url);
    const fieldsOf = async (id: string) => {
      const flat = await raw.send(["HGETALL", keys.task(store.prefix, id)]) as string[];
      return flat.filter((_, i) => i % 2 === 0).sort();
    };
    try {
      await store.enqueue({ tasks: [task("plain"), task("legacy")], now: T0 });
      // The id is the key's; pool "default", priority 0, attempt 0 and maxRetries 0 are implied.
      assert.deepEqual(await fieldsOf("plain"), ["body", "order", "seq", "status", "type"]);
      const plain = await store.get("plain");
      assert.equal(plain?.id, "plain");
      assert.deepEqual(
        [plain?.pool, plain?.priority, plain?.attempt, plain?.maxRetries],
        ["default", 0, 0, 0],
      );
      // A hash as 0.2.0 wrote it holds every field: it reads, lists and runs the same.
      await raw.send([
        "HSET",
        keys.task(store.prefix, "legacy"),
        ...["id", "legacy", "pool", "default", "priority", "0", "attempt", "0"],
        ...["maxRetries", "0"],
      ]);
      const legacy = await store.get("legacy");
      assert.deepEqual({ ...legacy, id: "plain", order: 0 }, { ...plain, order: 0 });
      const listed = await store.list({ pool: "default", limit: 10 });
      assert.deepEqual(listed.items.map((t) => t.id).sort(), ["legacy", "plain"]);
      const owner = { workerId: "w", leaseMs: 10_000 };
      const claimed = await store.claim({ pool: "default", max: 10, owner, now: T0 });
      assert.deepEqual(claimed.map((t) => [t.id, t.attempt, t.pool]), [
        ["plain", 1, "default"],
        ["legacy", 1, "default"],
      ]);
      for (const t of claimed) {
        assert.ok(await store.complete({ lease: leaseOf(t, "w"), result: null, now: T0 + 1 }));
      }
      const done = await store.list({ status: "succeeded", pool: "default", limit: 10 });
      assert.deepEqual(done.items.map((t) => [t.id, t.attempt]).sort(), [
        ["legacy", 1],
        ["plain", 1],
      ]);
    } finally {
      await raw.close();
      await store.close();
    }
  });

  it("claims a batch in priority order and completes concurrent calls in one go", async () => {
    const tasks = Array.from({ length: 60 }, (_, i) => task(`b${i}`, { priority: i % 3 }));
    await s.enqueue({ tasks, now: T0 });
    const claimed = await s.claim({
      pool: "default",
      max: 50,
      owner: { workerId: "w", leaseMs: 10_000 },
      now: T0,
    });
    assert.equal(claimed.length, 50);
    assert.deepEqual(claimed.slice(0, 3).map((t) => t.id), ["b2", "b5", "b8"]);
    assert.ok(claimed.every((t) => t.status === "running" && t.attempt === 1));
    const done = await Promise.all(
      claimed.map((t) => s.complete({ lease: leaseOf(t, "w"), result: t.id, now: T0 + 10 })),
    );
    assert.ok(done.every(Boolean));
    const b0 = claimed.find((t) => t.id === "b0")!;
    assert.equal(
      await s.complete({ lease: leaseOf(b0, "w"), result: null, now: T0 + 11 }),
      true,
      "a repeat answers as the first",
    );
    assert.equal(
      await s.complete({ lease: { ...leaseOf(b0, "w"), token: "1" }, result: null, now: T0 + 11 }),
      false,
      "another claim's token",
    );
    assert.equal((await s.get("b2"))?.result, "b2");
    const stats = await s.stats();
    assert.equal(stats.totals.succeeded, 50);
    assert.equal(stats.byPool.default.queued, 10);
    assert.equal(stats.durations.t.count, 50);
  });

  it("claims and completes 5000 tasks in one call each (beyond Lua's unpack limit)", async () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => `big${i}`);
    await s.enqueue({ tasks: ids.map((id) => task(id, { pool: "big" })), now: T0 });
    const claimed = await s.claim({
      pool: "big",
      max: 5_000,
      owner: { workerId: "w-big", leaseMs: 10_000 },
      now: T0,
    });
    assert.equal(claimed.length, 5_000);
    assert.deepEqual(new Set(claimed.map((t) => t.id)), new Set(ids));
    const done = await Promise.all(
      claimed.map((t) => s.complete({ lease: leaseOf(t, "w-big"), result: null, now: T0 + 1 })),
    );
    assert.ok(done.every(Boolean));
    const stats = await s.stats();
    assert.equal(stats.byPool.big.running, 0);
    assert.equal(stats.byPool.big.queued, 0);
  });

  it("records the same history entry whether or not the completing store made the claim", async () => {
    // The claiming store builds the entry itself; another instance (or one that restarted)
    // leaves it to the script. Readers must not be able to tell the two apart.
    const other = new RedisStorage({
      transport: connectRedisTcp(await testRedisUrl()),
      prefix: s.prefix.slice(0, s.prefix.indexOf(":{")),
    });
    await other.init();
    try {
      const type = "same-entry";
      await s.enqueue({
        tasks: [task("h1", { type, pool: "hist" }), task("h2", { type, pool: "hist" })],
        now: T0,
      });
      const claimed = await s.claim({
        pool: "hist",
        max: 2,
        owner: { workerId: "w-h", leaseMs: 10_000 },
        now: T0 + 3,
      });
      assert.deepEqual(claimed.map((t) => t.id), ["h1", "h2"]);
      assert.equal(
        await s.complete({ lease: leaseOf(claimed[0], "w-h"), result: 1, now: T0 + 20 }),
        true,
      );
      assert.equal(
        await other.complete({ lease: leaseOf(claimed[1], "w-h"), result: 2, now: T0 + 20 }),
        true,
      );
      const { items } = await s.history({ type });
      const byTask = Object.fromEntries(items.map((a) => [a.taskId, a]));
      for (const id of ["h1", "h2"]) {
        assert.deepEqual(byTask[id], {
          taskId: id,
          type,
          pool: "hist",
          attempt: 1,
          status: "succeeded",
          error: null,
          startedAt: T0 + 3,
          finishedAt: T0 + 20,
          durationMs: 17,
          workerId: "w-h",
        });
      }
      const stats = await s.stats();
      assert.equal(stats.byPool.hist.running, 0);
      assert.equal(stats.durations[type].count, 2);
      assert.equal(stats.durations[type].maxMs, 17);
    } finally {
      await other.close();
    }
  });

  it("files no history entry for a completion that asks for none, whichever store made the claim", async () => {
    const other = new RedisStorage({
      transport: connectRedisTcp(await testRedisUrl()),
      prefix: s.prefix.slice(0, s.prefix.indexOf(":{")),
    });
    await other.init();
    try {
      const type = "no-entry";
      await s.enqueue({
        tasks: [task("n1", { type, pool: "quiet" }), task("n2", { type, pool: "quiet" })],
        now: T0,
      });
      const claimed = await s.claim({
        pool: "quiet",
        max: 2,
        owner: { workerId: "w-n", leaseMs: 10_000 },
        now: T0 + 3,
      });
      const [known, unknown] = claimed.map((t) => leaseOf(t, "w-n"));
      assert.equal(
        await s.complete({ lease: known, result: 1, now: T0 + 10, history: false }),
        true,
      );
      assert.equal(
        await other.complete({ lease: unknown, result: 2, now: T0 + 30, history: false }),
        true,
      );
      assert.deepEqual((await s.history({ type })).items, []);
      const stats = await s.stats();
      assert.equal(stats.durations[type].count, 2, "both durations are sampled");
      assert.equal(stats.durations[type].maxMs, 27);
      assert.equal((await s.get("n2"))?.status, "succeeded");
    } finally {
      await other.close();
    }
  });

  it("keeps payloads, results and errors exactly as JSON wrote them", async () => {
    const payload = {
      big: 12345678901234567,
      float: 0.1 + 0.2,
      tiny: 5e-324,
      text: 'naïve ☃ \u0000 "quoted" / slash',
      empty: [],
      nested: { a: [1, { b: null }] },
    };
    // A pool of its own: no other test's rows can be claimed here.
    await s.enqueue({
      tasks: [task("f1", { type: "fidelity", pool: "fidelity", payload, key: "clé ☃" })],
      now: T0,
    });
    const [mine] = await s.claim({
      pool: "fidelity",
      max: 10,
      owner: { workerId: "w", leaseMs: 10_000 },
      now: T0,
    });
    assert.equal(mine.id, "f1");
    assert.deepEqual(mine.payload, payload);
    assert.equal(mine.key, "clé ☃");
    await s.fail({
      lease: leaseOf(mine, "w"),
      error: { message: 'bad "thing" / ☃', stack: "at x" },
      retryAt: T0 + 50,
      now: T0 + 1,
    });
    const stored = await s.get("f1");
    assert.deepEqual(stored?.error, { message: 'bad "thing" / ☃', stack: "at x" });
    assert.equal(stored?.status, "retrying");
    const hist = await s.history({ type: "fidelity" });
    assert.equal(hist.items[0].error?.message, 'bad "thing" / ☃');
  });

  it("matches text filters like JavaScript's toLowerCase, beyond ASCII", async () => {
    await s.enqueue({
      tasks: [
        task("u1", { type: "text", payload: { city: "ÉCOLE Straße" } }),
        task("u2", { type: "text", payload: { city: "ecole" } }),
      ],
      now: T0,
    });
    const hits = await s.list({ type: "text", q: "école" });
    assert.deepEqual(hits.items.map((t) => t.id), ["u1"]);
    const both = await s.list({ type: "text", q: "ECOLE" });
    assert.deepEqual(both.items.map((t) => t.id), ["u2"]);
    assert.deepEqual((await s.list({ q: "STRASSE" })).items, []);
  });
});
