/**
 * The data layout version (docs/UPGRADING.md): init() migrates a prefix written before
 * versions or stamped with an older layout, keeping its tasks; a prefix that never held a
 * task takes this layout on its first call; every script refuses a prefix stamped with another layout
 * before it writes anything, over TCP and REST, with or without init() (the Worker never
 * calls it), with a message naming both versions; the HTTP API answers that 503 `storage`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { INDEX_BUCKET, keyPrefix, keys } from "../../src/storage/redis/keys.ts";
import { LAYOUT, StorageLayoutError, UNVERSIONED_LAYOUT } from "../../src/storage/redis/layout.ts";
import { MIGRATIONS } from "../../src/storage/redis/migrations.ts";
import { MIGRATION_SCRIPTS, SCRIPTS } from "../../src/storage/redis/scripts.generated.ts";
import { ScriptRunner } from "../../src/storage/redis/script-runner.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { createApp } from "../../routes/app.ts";
import { isStorageFault, Scheduler, silentLogger } from "../../src/mod.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import { listEvery } from "../helpers/listing.ts";

const TOKEN = "unit-layout-token";
const NEWER = String(LAYOUT + 1);

/** A fresh prefix, and the keys Redis holds under it. */
function freshPrefix(admin: RedisTransport) {
  const name = uniquePrefix("layout");
  const prefix = keyPrefix(name);
  const stored = async () => ((await admin.send(["KEYS", `${prefix}*`])) as string[]).sort();
  return { name, prefix, stored };
}

function refusal(found: string, advice: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof StorageLayoutError, `expected a StorageLayoutError, got ${e}`);
    assert.equal(e.code, "storage");
    assert.equal(e.found, found);
    assert.equal(e.speaks, LAYOUT);
    assert.equal(isStorageFault(e), false, "not a fault: retrying on this node never helps");
    assert.match(
      e.message,
      new RegExp(`^storage layout ${found} found in \\S+meta, this code speaks layout ${LAYOUT}: `),
    );
    assert.match(e.message, advice);
    return true;
  };
}

describe("data layout", () => {
  let url: string;
  let admin: RedisTransport;
  let gw: RunningGateway;
  before(async () => {
    url = await testRedisUrl();
    admin = connectRedisTcp(url);
    gw = await startGateway({ redisUrl: url, token: TOKEN });
  });
  after(async () => {
    await gw.stop();
    await admin.close();
  });

  it("a chain of migrations leads from the unversioned layout to this code's", () => {
    let at = UNVERSIONED_LAYOUT;
    for (const m of MIGRATIONS) {
      assert.equal(m.from, at, `migration ${m.from}->${m.to} follows layout ${at}`);
      assert.equal(m.to, m.from + 1);
      at = m.to;
    }
    assert.equal(at, LAYOUT, "bumping LAYOUT needs a migration (src/storage/redis/migrations.ts)");
  });

  it("a store written before layout versions is migrated by init(), its tasks kept", async () => {
    const { name, prefix } = freshPrefix(admin);
    const writer = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    const scheduler = new Scheduler({ storage: writer, logger: silentLogger, pools: {} });
    await scheduler.submit({ id: "old-1", type: "t" });
    // What a release before layout versions leaves: its data, no meta key.
    await admin.send(["DEL", keys.meta(prefix)]);
    await assert.rejects(writer.stats(), refusal(String(UNVERSIONED_LAYOUT), /migrate the store/));
    await writer.close();

    // Two nodes of this release starting at once both migrate it, once.
    const nodes = [0, 1].map(() =>
      new RedisStorage({ transport: connectRedisTcp(url), prefix: name })
    );
    await Promise.all(nodes.map((n) => n.init()));
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));
    assert.equal((await nodes[0].get("old-1"))?.status, "queued");
    await nodes[1].init(); // again: nothing changes
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));
    await Promise.all(nodes.map((n) => n.close()));
  });

  it("a store stamped with layout 1 is migrated by init()", async () => {
    const { name, prefix } = freshPrefix(admin);
    const writer = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    await new Scheduler({ storage: writer, logger: silentLogger, pools: {} })
      .submit({ id: "one-1", type: "t" });
    await admin.send(["HSET", keys.meta(prefix), "layout", "1"]);
    await assert.rejects(writer.stats(), refusal("1", /migrate the store first/));
    await writer.init();
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));
    assert.equal((await writer.get("one-1"))?.status, "queued");
    await writer.close();
  });

  it("a store of layout 2 is migrated by init(): its history (a zset then) listed the same, its hashes read the same", async () => {
    const { name, prefix } = freshPrefix(admin);
    // What layout 2 left: a task hash holding every field, and 2,500 attempts in a zset
    // (member = 16-digit seq..json): three bounded migration steps.
    await admin.send(["HSET", keys.meta(prefix), "layout", "2"]);
    await admin.send(["SET", `${prefix}seq`, "5000"]);
    await admin.send([
      "HSET",
      keys.task(prefix, "two-1"),
      ...["id", "two-1", "type", "t", "pool", "default", "priority", "0", "attempt", "0"],
      ...["maxRetries", "0", "order", "1", "seq", "2", "status", "queued"],
      ...["body", JSON.stringify({ createdAt: 1 })],
    ]);
    await admin.send([
      "HSET",
      keys.task(prefix, "two-0"),
      ...["id", "two-0", "type", "t", "pool", "default", "priority", "0", "attempt", "1"],
      ...["maxRetries", "0", "order", "0", "status", "succeeded", "finishedAt", "1"],
      ...["body", JSON.stringify({ createdAt: 0 })],
    ]);
    await admin.send(["HSET", `${prefix}counts`, "queued", "1", "succeeded", "1"]);
    await admin.send(["ZADD", `${prefix}all`, "0", "two-0", "1", "two-1"]);
    await admin.send(["ZADD", `${prefix}finished`, "3", "stwo-0"]);
    await admin.send(["ZADD", `${prefix}ready:default`, "0", `${"2".padStart(16, "0")}two-1`]);
    await admin.send(["ZADD", `${prefix}stat-pools`, "1", "default"]);
    const at = Date.now();
    const attempt = (i: number) => ({
      taskId: `old-${i}`,
      type: i % 2 ? "odd" : "even",
      pool: "default",
      attempt: 1,
      status: "succeeded",
      error: null,
      startedAt: at - 1_000,
      finishedAt: at - 500,
      durationMs: 500,
      workerId: "w",
    });
    for (let i = 0; i < 2_500; i += 500) {
      const args: string[] = [];
      for (let j = i; j < i + 500; j++) {
        const seq = String(10 + j).padStart(16, "0");
        args.push(String(10 + j), seq + JSON.stringify(attempt(j)));
      }
      await admin.send(["ZADD", `${prefix}history`, ...args]);
    }
    const node = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    await assert.rejects(node.stats(), refusal("2", /migrate the store first/));
    // An init() that stopped after one step (a crash): 1,000 attempts moved, none twice.
    const runner = new ScriptRunner(admin);
    const step = await runner.run(MIGRATION_SCRIPTS.compactRecords, [prefix], ["2", "3"]);
    assert.deepEqual(step, ["more"]);
    assert.equal(await admin.send(["XLEN", `${prefix}attempts`]), 1_000);
    assert.equal(await admin.send(["ZCARD", `${prefix}history`]), 1_500);
    await node.init();
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));
    assert.equal(await admin.send(["EXISTS", `${prefix}history`]), 0);
    assert.equal(await admin.send(["XLEN", `${prefix}attempts`]), 2_500);
    assert.equal(await admin.send(["EXISTS", `${prefix}all`]), 0);
    assert.equal(await admin.send(["EXISTS", `${prefix}finished`]), 0);
    assert.deepEqual(await admin.send(["XRANGE", `${prefix}retained`, "-", "+"]), [
      ["3-0", ["m", "s0:two-0"]],
    ]);
    assert.equal(await admin.send(["HGET", keys.task(prefix, "two-0"), "seq"]), "3");
    const listed = await node.list({ limit: 10 });
    assert.deepEqual(listed.items.map((t) => [t.id, t.status]), [
      ["two-1", "queued"],
      ["two-0", "succeeded"],
    ]);

    const first = await node.history({ type: "odd", limit: 3 });
    assert.deepEqual(first.items, [attempt(2_499), attempt(2_497), attempt(2_495)]);
    const next = await node.history({ type: "odd", limit: 2, cursor: first.next! });
    assert.deepEqual(next.items, [attempt(2_493), attempt(2_491)]);
    const task = await node.get("two-1");
    assert.deepEqual([task?.id, task?.pool, task?.attempt, task?.status], [
      "two-1",
      "default",
      0,
      "queued",
    ]);
    const owner = { workerId: "w", leaseMs: 10_000 };
    const [claimed] = await node.claim({ pool: "default", max: 1, owner, now: Date.now() });
    assert.equal(claimed?.id, "two-1");
    const lease = { id: claimed.id, workerId: "w", token: claimed.token };
    assert.ok(await node.complete({ lease, result: null, now: Date.now() }));
    const newest = await node.history({ limit: 1 });
    assert.deepEqual(newest.items.map((a) => [a.taskId, a.status]), [["two-1", "succeeded"]]);
    await node.close();
  });

  it("a store of layout 3 is migrated by init(): its ready queues become lists, claimed in the same order", async () => {
    const { name, prefix, stored } = freshPrefix(admin);
    // What layout 3 left: per pool a `ready:<pool>` zset (score -priority, member
    // 16-digit seq..id). 1,200 tasks in `default` over two priorities (two steps), 3 in `b`.
    await admin.send(["HSET", keys.meta(prefix), "layout", "3"]);
    await admin.send(["SET", `${prefix}seq`, "9000"]);
    const queued = (pool: string, priority: number, seq: number) => {
      const id = `${pool}-${String(seq).padStart(4, "0")}`;
      return { id, pool, priority, seq, member: `${String(seq).padStart(16, "0")}${id}` };
    };
    const tasks = [
      ...Array.from({ length: 1_200 }, (_, i) => queued("default", i % 3 === 0 ? 5 : 0, 10 + i)),
      ...[queued("b", 0, 2_000), queued("b", -2, 2_001), queued("b", 0, 2_002)],
    ];
    for (const t of tasks) {
      await admin.send([
        "HSET",
        keys.task(prefix, t.id),
        ...["type", "t", "body", JSON.stringify({ createdAt: 1 }), "order", String(t.seq)],
        ...["status", "queued", "seq", String(t.seq)],
        ...(t.pool === "default" ? [] : ["pool", t.pool]),
        ...(t.priority === 0 ? [] : ["priority", String(t.priority)]),
      ]);
      await admin.send(["ZADD", `${prefix}ready:${t.pool}`, String(-t.priority), t.member]);
    }
    await admin.send(["HSET", `${prefix}counts`, "queued", String(tasks.length)]);
    await admin.send(["ZADD", `${prefix}stat-pools`, "1", "default", "2", "b"]);
    const node = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    await assert.rejects(node.stats(), refusal("3", /migrate the store first/));
    // An init() that stopped after one step (a crash): 1,000 entries moved, none twice.
    const runner = new ScriptRunner(admin);
    const step = await runner.run(MIGRATION_SCRIPTS.readyLists, [prefix], ["3", "4"]);
    assert.deepEqual(step, ["more"]);
    assert.equal(await admin.send(["ZCARD", `${prefix}ready:default`]), 200);
    assert.equal(await admin.send(["HGET", `${prefix}queuedn`, "default"]), "1000");
    await node.init();
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));
    assert.deepEqual((await stored()).filter((k) => k.includes("ready")), []);
    const { byPool } = await node.stats();
    assert.deepEqual([byPool.default?.queued, byPool.b?.queued], [1_200, 3]);
    // Highest priority first, then in seq order, in each pool.
    const expected = (pool: string) =>
      tasks.filter((t) => t.pool === pool)
        .sort((x, y) => y.priority - x.priority || x.seq - y.seq).map((t) => t.id);
    const owner = { workerId: "w", leaseMs: 60_000 };
    for (const pool of ["default", "b"]) {
      const claimed: string[] = [];
      for (;;) {
        const batch = await node.claim({ pool, max: 100, owner, now: Date.now() });
        if (batch.length === 0) break;
        claimed.push(...batch.map((t) => t.id));
      }
      assert.deepEqual(claimed, expected(pool), `pool ${pool}: claimed in queue order`);
    }
    const after = (await node.stats()).byPool;
    assert.deepEqual([after.default?.queued, after.b?.queued], [0, 0]);
    await node.close();
  });

  it("a store of layout 4 is restamped by init(): its records read the same, new ones are leaner", async () => {
    const { name, prefix } = freshPrefix(admin);
    // What layout 4 left: bodies as JSON objects, a null result stored, history entries as
    // JSON arrays (here a failed attempt in pool p), a running task whose lease is gone.
    const now = Date.now();
    await admin.send(["HSET", keys.meta(prefix), "layout", "4"]);
    await admin.send(["SET", `${prefix}seq`, "100"]);
    await admin.send([
      "HSET",
      keys.task(prefix, "four-done"),
      ...["type", "t", "body", JSON.stringify({ createdAt: 7 }), "order", "1", "seq", "2"],
      ...["status", "succeeded", "attempt", "1", "startedAt", "8", "finishedAt", "9"],
      ...["workerId", "w", "result", "null"],
    ]);
    await admin.send([
      "HSET",
      keys.task(prefix, "four-run"),
      ...["type", "t", "body", JSON.stringify({ createdAt: 7, maxStalls: 0 }), "order", "3"],
      ...["status", "running", "attempt", "1", "startedAt", String(now - 5_000)],
      ...["workerId", "gone", "claimSeq", "4", "seq", "3"],
    ]);
    await admin.send(["ZADD", `${prefix}leases`, String(now - 1_000), "four-run"]);
    await admin.send(["HSET", `${prefix}counts`, "running", "1", "succeeded", "1"]);
    await admin.send(["HSET", `${prefix}running`, "default", "1"]);
    const old = {
      taskId: "four-old",
      type: "t",
      pool: "p",
      attempt: 1,
      status: "retrying",
      error: { message: "boom | bang" },
      startedAt: now - 2_000,
      finishedAt: now - 1_500,
      durationMs: 400,
      workerId: "w|1",
    };
    await admin.send([
      "XADD",
      `${prefix}attempts`,
      "5-0",
      "a",
      JSON.stringify(Object.values(old)),
    ]);
    const node = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    await assert.rejects(node.stats(), refusal("4", /migrate the store first/));
    await node.init();
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));

    const done = await node.get("four-done");
    assert.deepEqual([done?.createdAt, done?.result, done?.maxStalls], [7, null, 3]);
    assert.deepEqual((await node.history({ q: "bang", pool: "p" })).items, [old]);
    // maxStalls 0, read from the old body: the lost lease makes the task dead.
    await node.recoverExpired({ now, limit: 10 });
    assert.equal((await node.get("four-run"))?.status, "dead");

    // New records: the body is the creation time, a null result is left out, the history
    // entry is text, and all of it reads back as before.
    await node.enqueue({ tasks: [newTask("five", 11)], now });
    const owner = { workerId: "w|2", leaseMs: 10_000 };
    const [claimed] = await node.claim({ pool: "default", max: 1, owner, now });
    const lease = { id: "five", workerId: "w|2", token: claimed!.token };
    assert.ok(await node.complete({ lease, result: null, now: now + 3 }));
    const hash = await admin.send(["HGETALL", keys.task(prefix, "five")]) as string[];
    assert.equal(hash[hash.indexOf("body") + 1], "11");
    assert.equal(hash.includes("result"), false);
    const [[, [, entry]]] = await admin.send([
      "XREVRANGE",
      `${prefix}attempts`,
      "+",
      "-",
      "COUNT",
      "1",
    ]) as [
      string,
      string[],
    ][];
    assert.equal(entry, `five|t||1||${now}|3|3|"w|2"`);
    const five = await node.get("five");
    assert.deepEqual([five?.createdAt, five?.result, five?.status], [11, null, "succeeded"]);
    const [newest] = (await node.history({ taskId: "five" })).items;
    assert.deepEqual(newest, {
      taskId: "five",
      type: "t",
      pool: "default",
      attempt: 1,
      status: "succeeded",
      error: null,
      startedAt: now,
      finishedAt: now + 3,
      durationMs: 3,
      workerId: "w|2",
    });
    await node.close();
  });

  it("a store of layout 5 is migrated by init(): its all index becomes lists, listed the same", async () => {
    const { name, prefix, stored } = freshPrefix(admin);
    // What layout 5 left: buckets all:<n> (zsets, score = order) listed in allb. Orders
    // 10..1000 fill buckets 0..7: one step moves them all.
    await admin.send(["HSET", keys.meta(prefix), "layout", "5"]);
    await admin.send(["SET", `${prefix}seq`, "1001"]);
    const oldTask = async (order: number) => {
      const id = `five-${order}`;
      await admin.send([
        "HSET",
        keys.task(prefix, id),
        ...["type", "t", "body", "1", "order", String(order), "status", "succeeded"],
      ]);
      const n = String(Math.floor(order / INDEX_BUCKET));
      await admin.send(["ZADD", `${prefix}all:${n}`, String(order), id]);
      await admin.send(["ZADD", `${prefix}allb`, n, n]);
      return id;
    };
    const ids: string[] = [];
    for (let order = 10; order <= 1_000; order++) ids.push(await oldTask(order));
    const node = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    await assert.rejects(node.stats(), refusal("5", /migrate the store first/));
    // An init() that stopped after one step (a crash), then a node of layout 5 still running
    // adds a task to a bucket already moved (it is appended after, in order) and prunes two
    // (their ids stay in the moved buckets, and are passed over).
    const runner = new ScriptRunner(admin);
    assert.deepEqual(await runner.run(MIGRATION_SCRIPTS.indexLists, [prefix], ["5", "6"]), [
      "more",
    ]);
    assert.equal(await admin.send(["ZCARD", `${prefix}allb`]), 0);
    ids.push(await oldTask(1_001));
    await admin.send(["DEL", keys.task(prefix, "five-10"), keys.task(prefix, "five-1000")]);
    ids.splice(ids.indexOf("five-1000"), 1);
    ids.splice(ids.indexOf("five-10"), 1);
    await node.init();
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));
    const left = (await stored()).filter((k) => /:(all:\d+|allb)$/.test(k));
    assert.deepEqual(left, [], "no bucket of the old index is left");
    const buckets = (await stored()).filter((k) => /:al:\d+$/.test(k));
    assert.equal(buckets.length, 8);
    for (const key of buckets) {
      // A listpack (a quicklist of one on Redis 7.0): ~16 bytes an entry, a skiplist ~100.
      const bytes = Number(await admin.send(["MEMORY", "USAGE", key]));
      assert.ok(bytes / Number(await admin.send(["LLEN", key])) <= 32, `${key}: ${bytes} B`);
    }
    assert.deepEqual(
      ((await admin.send(["ZRANGE", `${prefix}alb`, "0", "-1"])) as string[]).map(Number),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    // Every task once, newest first, a page at a time; then a new task comes first.
    const listAll = async () => (await listEvery(node, { limit: 37 })).map((t) => t.id);
    assert.deepEqual(await listAll(), [...ids].reverse());
    // A new task under a pruned id (in the bucket its leftover entry is in) is listed once.
    await node.enqueue({ tasks: [newTask("five-1000", 11)], now: Date.now() });
    assert.deepEqual(await listAll(), ["five-1000", ...ids.reverse()]);
    await node.close();
  });

  it("a store that never held a task takes this layout on its first call, without init()", async () => {
    const { name, prefix } = freshPrefix(admin);
    // Like a deployment of the Cloudflare Worker alone: nothing ever calls init().
    const edge = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    await new Scheduler({ storage: edge, logger: silentLogger, pools: {} })
      .submit({ id: "edge-1", type: "t" });
    assert.equal(await admin.send(["HGET", keys.meta(prefix), "layout"]), String(LAYOUT));
    assert.equal((await edge.get("edge-1"))?.status, "queued");
    await edge.close();
  });

  it("every script refuses a newer layout before it writes anything", async () => {
    const { prefix, stored } = freshPrefix(admin);
    await admin.send(["HSET", keys.meta(prefix), "layout", NEWER]);
    const runner = new ScriptRunner(admin);
    for (const script of Object.values(SCRIPTS)) {
      await assert.rejects(runner.run(script, [prefix], []), (e: Error) => {
        assert.match(e.message, new RegExp(`^SKEDULR_LAYOUT storage layout ${NEWER} found`));
        return true;
      }, script.name);
    }
    assert.deepEqual(await stored(), [keys.meta(prefix)]);
  });

  for (const over of ["tcp", "rest"] as const) {
    const transport = () =>
      over === "tcp" ? connectRedisTcp(url) : new RestTransport({ url: gw.url, token: TOKEN });

    it(`a store refuses a prefix in another layout, init() or not (${over})`, async () => {
      const { name, prefix, stored } = freshPrefix(admin);
      await admin.send(["HSET", keys.meta(prefix), "layout", NEWER]);
      // Like the Worker: never initialised, so only the scripts can tell.
      const edge = new RedisStorage({ transport: transport(), prefix: name });
      const upgrade =
        /upgrade this node to a release that speaks layout \d+ \(docs\/UPGRADING\.md\)$/;
      await assert.rejects(edge.stats(), refusal(NEWER, upgrade));
      const scheduler = new Scheduler({ storage: edge, logger: silentLogger, pools: {} });
      await assert.rejects(scheduler.submit({ id: "new-1", type: "t" }), refusal(NEWER, upgrade));
      assert.deepEqual(await stored(), [keys.meta(prefix)], "nothing was written");
      await edge.close();

      const worker = over === "tcp"
        ? new RedisStorage({ transport: transport(), prefix: name })
        : new RestRedisStorage({ transport: transport() as RestTransport, prefix: name });
      await assert.rejects(worker.init(), refusal(NEWER, upgrade));
      await worker.close();

      // An older stamp asks for a migration instead.
      await admin.send(["HSET", keys.meta(prefix), "layout", "0"]);
      const late = new RedisStorage({ transport: transport(), prefix: name });
      await assert.rejects(late.init(), refusal("0", /migrate the store first/));
      await late.close();
    });
  }

  it("the HTTP API answers 503 storage with the message naming both versions", async () => {
    const { name, prefix } = freshPrefix(admin);
    await admin.send(["HSET", keys.meta(prefix), "layout", NEWER]);
    const storage = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    const scheduler = new Scheduler({ storage, logger: silentLogger, pools: {} });
    const app = createApp({ scheduler });
    const res = await app.request("/skedulr/api/tasks");
    const body = await res.json() as { error: { code: string; message: string } };
    assert.equal(res.status, 503, JSON.stringify(body));
    assert.equal(body.error.code, "storage");
    assert.match(body.error.message, new RegExp(`storage layout ${NEWER} found`));
    assert.match(body.error.message, new RegExp(`this code speaks layout ${LAYOUT}`));
    assert.ok(res.headers.get("Retry-After"));
    // The health check says so too, so a balancer takes a node of the wrong release out.
    const health = await app.request("/skedulr/healthz");
    const report = await health.json() as { ok: boolean; error: string };
    assert.equal(health.status, 503, JSON.stringify(report));
    assert.equal(report.ok, false);
    assert.match(report.error, new RegExp(`storage layout ${NEWER} found in \\S+meta`));
    assert.match(report.error, /upgrade this node to a release that speaks layout/);
    await storage.close();
  });

  it("ping() reports a store another release must migrate, and a fresh store as fine", async () => {
    const { name, prefix } = freshPrefix(admin);
    const store = new RedisStorage({ transport: connectRedisTcp(url), prefix: name });
    assert.equal(await store.ping(), true, "a store that never held a task");
    await admin.send(["SET", `${prefix}seq`, "7"]); // data of a release before layout stamps
    await assert.rejects(store.ping(), refusal(String(UNVERSIONED_LAYOUT), /migrate the store/));
    await store.init();
    assert.equal(await store.ping(), true, "migrated");
    await store.close();
  });
});
