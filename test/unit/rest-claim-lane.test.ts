/**
 * The REST transport's side lane (src/storage/redis/rest-pipeline.ts) and a resident worker's
 * claims in it (RestRedisStorage `claimLane`): through a proxy in front of the project's
 * gateway that holds back any request carrying a marker until the test lets it go, a
 * side-lane command travels and is answered while the held request is in flight, a later
 * main-lane command does not, and every caller still learns its reply in issue order; a held
 * request that times out fails alone, and the reply behind it still arrives. With the lane, a
 * big pool claims in one loop (QueueStore.claimLoops), so a drain takes few requests per task.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { restProxy } from "../../scripts/tools/rest-proxy.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";

const TOKEN = "unit-claim-lane-token";
const MARKER = "held-by-the-proxy";
const OWNER = { workerId: "w1", leaseMs: 30_000 };

describe("REST side lane", () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway({ redisUrl: await testRedisUrl(), token: TOKEN });
  });
  after(async () => {
    await gw.stop();
  });

  it("sends a side-lane command while a request is held, and answers in issue order", async () => {
    const proxy = await restProxy(gw.url, { hold: MARKER });
    const t = new RestTransport({ url: proxy.url, token: TOKEN });
    try {
      const k = uniquePrefix("lane");
      t.sideLane((cmd) => cmd[0] === "GET" && cmd[1] === `${k}:side`);
      const settled: string[] = [];
      const first = t.send(["SET", `${k}:${MARKER}`, "1"]).then(() => settled.push("held"));
      await eventually(() => proxy.held() === 1, "the first request held");
      const side = t.send(["GET", `${k}:side`]).then(() => settled.push("side"));
      const later = t.send(["GET", `${k}:later`]).then(() => settled.push("later"));
      await eventually(
        () => proxy.answered.some((b) => b.includes(`${k}:side`)),
        "the side-lane command answered by the server",
      );
      assert.deepEqual(settled, [], "no caller learns a reply before the held one's");
      assert.equal(proxy.seen.length, 2, "the later main-lane command waits for its lane");
      proxy.release();
      await Promise.all([first, side, later]);
      assert.deepEqual(settled, ["held", "side", "later"]);
    } finally {
      await t.close();
      proxy.release();
      await proxy.stop();
    }
  });

  it("a held request that times out fails alone: the side-lane reply behind it arrives", async () => {
    const proxy = await restProxy(gw.url, { hold: MARKER });
    const t = new RestTransport({ url: proxy.url, token: TOKEN, timeoutMs: 300 });
    try {
      const k = uniquePrefix("lane");
      await t.send(["SET", `${k}:side`, "v"]);
      t.sideLane((cmd) => cmd[0] === "GET" && cmd[1] === `${k}:side`);
      const first = t.send(["SET", `${k}:${MARKER}`, "1"]).catch((e: Error) => e);
      await eventually(() => proxy.held() === 1, "the first request held");
      const side = t.send(["GET", `${k}:side`]);
      const failed = await first;
      assert.ok(failed instanceof Error && /failed/.test(failed.message), String(failed));
      assert.equal(await side, "v");
    } finally {
      await t.close();
      proxy.release();
      await proxy.stop();
    }
  });

  it("a resident worker's claim runs while the submit before it is in flight", async () => {
    const proxy = await restProxy(gw.url, { hold: MARKER });
    const transport = new RestTransport({ url: proxy.url, token: TOKEN });
    const rest = new RestRedisStorage({ transport, prefix: uniquePrefix("lane") });
    try {
      await rest.init();
      const now = Date.now();
      await rest.enqueue({ tasks: [newTask("before", now)], now });
      const submit = rest.enqueue({
        tasks: [newTask("held", now, { payload: { note: MARKER } })],
        now,
      });
      await eventually(() => proxy.held() === 1, "the submit held");
      let claimed: string[] | null = null;
      const claim = rest.claim({ pool: "default", max: 10, owner: OWNER, now })
        .then((tasks) => (claimed = tasks.map((c) => c.id)));
      await eventually(
        () => proxy.answered.some((b) => b.includes('"w1"') && !b.includes(MARKER)),
        "the claim answered by the server",
      );
      assert.equal(claimed, null, "its reply waits for the submit's");
      proxy.release();
      await submit;
      await claim;
      // It ran before the held submit: it took the task queued before, not the held one.
      assert.deepEqual(claimed, ["before"]);
      // The held task announced itself (`ready`), so the next claim is not answered locally.
      const next = await rest.claim({ pool: "default", max: 10, owner: OWNER, now: now + 1 });
      assert.deepEqual(next.map((c) => c.id), ["held"]);
    } finally {
      proxy.release();
      await rest.close();
      await proxy.stop();
    }
  });

  it("a pool of 50 drains 500 tasks in claims of 50: at most 2 requests per 50 tasks", async () => {
    const transport = new RestTransport({ url: gw.url, token: TOKEN });
    const prefix = uniquePrefix("loops");
    const rest = new RestRedisStorage({ transport, prefix });
    const admin = connectRedisTcp(await testRedisUrl());
    const s = new Scheduler({ storage: rest, pools: { default: 50 }, logger: silentLogger });
    s.register("noop", () => null);
    try {
      assert.equal(rest.claimLoops, 1);
      await s.start();
      await s.pause();
      await s.submitMany(Array.from({ length: 500 }, () => ({ type: "noop" })));
      const before = transport.requests;
      await s.resume();
      const succeeded = async () =>
        Number(await admin.send(["HGET", `${prefix}:{default}:counts`, "succeeded"]) ?? 0);
      await eventually(async () => (await succeeded()) === 500, "500 tasks succeeded");
      const requests = transport.requests - before;
      // Two claim loops of 25 took a claim and a completion request per 25 tasks: 40 or more.
      assert.ok(requests <= 20, `${requests} requests for 500 tasks`);
    } finally {
      await s.shutdown({ timeoutMs: 0 });
      await rest.close();
      await admin.close();
    }
  });
});
