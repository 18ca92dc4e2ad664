/**
 * The TCP transports: reply shapes normalised to RESP2 whichever client carries them,
 * server errors as RedisCommandError, pipelines, pub/sub, and re-subscription after Redis
 * restarts.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  normaliseResp3,
  RedisCommandError,
  type RedisTransport,
} from "../../src/storage/redis/transport.ts";
import { connectRedisTcp, type TcpClient } from "../../src/adapters/redis-tcp.ts";
import { hasBunRedis } from "../../src/adapters/redis-bun.ts";
import { startRedisServer, testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const clients: TcpClient[] = hasBunRedis() ? ["bun", "ioredis"] : ["ioredis"];

describe("normaliseResp3", () => {
  it("flattens maps into field/value arrays like RESP2", () => {
    assert.deepEqual(
      normaliseResp3(["CONFIG", "GET", "maxmemory-policy"], { "maxmemory-policy": "noeviction" }),
      ["maxmemory-policy", "noeviction"],
    );
    assert.deepEqual(normaliseResp3(["HGETALL", "h"], { a: "1", b: "2" }), ["a", "1", "b", "2"]);
  });

  it("interleaves nested score pairs and turns doubles into strings", () => {
    assert.deepEqual(
      normaliseResp3(["ZRANGE", "z", "0", "-1", "WITHSCORES"], [["a", 1.5], ["b", 2]]),
      ["a", "1.5", "b", "2"],
    );
    assert.deepEqual(normaliseResp3(["ZPOPMIN", "z"], [["a", -3]]), ["a", "-3"]);
    assert.equal(normaliseResp3(["ZSCORE", "z", "a"], 1.5), "1.5");
    assert.equal(normaliseResp3(["ZSCORE", "z", "a"], Infinity), "inf");
    assert.equal(normaliseResp3(["ZSCORE", "z", "a"], null), null);
  });

  it("keeps integers, maps booleans like Lua's RESP2 conversion", () => {
    assert.equal(normaliseResp3(["INCR", "k"], 3), 3);
    assert.deepEqual(normaliseResp3(["EVALSHA"], [1, "a", true, false, null]), [
      1,
      "a",
      1,
      null,
      null,
    ]);
    assert.equal(normaliseResp3(["DBSIZE"], 12n), "12");
  });
});

for (const client of clients) {
  describe(`${client} transport`, () => {
    let t: RedisTransport;
    const p = uniquePrefix(`transport-${client}`);

    before(async () => {
      t = connectRedisTcp(await testRedisUrl(), client);
    });
    after(async () => {
      await t.send(["DEL", `${p}:h`, `${p}:z`, `${p}:n`]);
      await t.close();
    });

    it("returns RESP2 shapes: integers, strings, nil, flat maps, scores as strings", async () => {
      assert.equal(t.name, client);
      assert.equal(await t.send(["HSET", `${p}:h`, "a", "1", "b", "2"]), 2);
      assert.deepEqual(await t.send(["HGETALL", `${p}:h`]), ["a", "1", "b", "2"]);
      assert.equal(await t.send(["GET", `${p}:missing`]), null);
      assert.equal(await t.send(["INCR", `${p}:n`]), 1);
      assert.equal(await t.send(["ZADD", `${p}:z`, "1.5", "m"]), 1);
      assert.deepEqual(await t.send(["ZRANGE", `${p}:z`, "0", "-1", "WITHSCORES"]), ["m", "1.5"]);
      assert.equal(await t.send(["ZSCORE", `${p}:z`, "m"]), "1.5");
      assert.deepEqual(await t.send(["CONFIG", "GET", "maxmemory-policy"]), [
        "maxmemory-policy",
        "noeviction",
      ]);
      assert.deepEqual(
        await t.send(["EVAL", "return {1, 'a', false, {2, 3}}", "0"]),
        [1, "a", null, [2, 3]],
      );
    });

    it("rejects server errors with RedisCommandError and keeps per-command pipeline errors", async () => {
      await assert.rejects(t.send(["EVAL", "return redis.error_reply('MYERR boom')", "0"]), (e) => {
        assert.ok(e instanceof RedisCommandError);
        assert.match(e.message, /MYERR boom/);
        return true;
      });
      const replies = await t.pipeline([["PING"], ["NOSUCHCOMMAND"], ["ECHO", "x"]]);
      assert.equal(replies[0], "PONG");
      assert.ok(replies[1] instanceof RedisCommandError);
      assert.equal(replies[2], "x");
    });

    it("delivers published messages to every listener until unsubscribed", async () => {
      const channel = `${p}:ch`;
      const a: string[] = [];
      const b: string[] = [];
      const offA = await t.subscribe(channel, (m) => a.push(m));
      const offB = await t.subscribe(channel, (m) => b.push(m));
      await t.send(["PUBLISH", channel, "one"]);
      await eventually(() => a.length === 1 && b.length === 1, "both listeners got one");
      await offA();
      await t.send(["PUBLISH", channel, "two"]);
      await eventually(() => b.length === 2, "listener b got two");
      assert.deepEqual(a, ["one"]);
      await offB();
      assert.equal(await t.send(["PUBLISH", channel, "three"]), 0, "no subscriber left");
    });
  });

  describe(`${client} transport across a Redis restart`, () => {
    it("reconnects commands and subscribes again", { timeout: 30_000 }, async () => {
      let server = await startRedisServer();
      const { port, url } = server;
      const t = connectRedisTcp(url, client);
      try {
        const got: string[] = [];
        await t.subscribe("ch", (m) => got.push(m));
        await t.send(["PUBLISH", "ch", "before"]);
        await eventually(() => got.length === 1, "message before the restart");
        await server.stop();
        server = await startRedisServer([], { port });
        // Publish until the re-subscribed connection receives one.
        await eventually(
          async () => {
            await t.send(["PUBLISH", "ch", "after"]).catch(() => 0);
            return got.includes("after");
          },
          "message after the restart",
          10_000,
        );
        assert.equal(await t.send(["PING"]), "PONG");
      } finally {
        await t.close();
        await server.stop();
      }
    });
  });
}
