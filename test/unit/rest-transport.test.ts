/**
 * The REST transport (src/storage/redis/rest-transport.ts) through the project's gateway:
 * the same RESP2 reply shapes as the TCP transport, server errors as RedisCommandError,
 * NOSCRIPT fallback through the shared ScriptRunner, batching into one request, replies in
 * issue order, failures that are not server errors, and SSE pub/sub that survives a
 * gateway restart.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import {
  isNoScript,
  RedisCommandError,
  type RedisTransport,
} from "../../src/storage/redis/transport.ts";
import { ScriptRunner } from "../../src/storage/redis/script-runner.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import {
  freePort,
  startRedisServer,
  testRedisUrl,
  uniquePrefix,
} from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const TOKEN = "unit-transport-token-0123";

describe("RestTransport", () => {
  let gw: RunningGateway;
  let rest: RestTransport;
  let tcp: RedisTransport;
  before(async () => {
    const url = await testRedisUrl();
    gw = await startGateway({ redisUrl: url, token: TOKEN });
    rest = new RestTransport({ url: gw.url, token: TOKEN });
    tcp = connectRedisTcp(url);
  });
  after(async () => {
    await rest.close();
    await tcp.close();
    await gw.stop();
  });

  it("gives the same RESP2 replies as the TCP transport", async () => {
    const k = uniquePrefix("rt");
    const setup = [
      ["HSET", `${k}:h`, "a", "1", "json", '{"x":1}', "n", "007"],
      ["ZADD", `${k}:z`, "1.5", "m1", "2", "m2", "-inf", "m0"],
      ["SET", `${k}:s`, "héllo, wörld"],
    ];
    for (const cmd of setup) await tcp.send(cmd);
    const cmds = [
      ["HGETALL", `${k}:h`],
      ["HGETALL", `${k}:none`],
      ["ZRANGE", `${k}:z`, "0", "-1"],
      ["ZRANGE", `${k}:z`, "0", "-1", "WITHSCORES"],
      ["ZRANGEBYSCORE", `${k}:z`, "-inf", "1.5", "WITHSCORES", "LIMIT", "0", "10"],
      ["ZSCORE", `${k}:z`, "m1"],
      ["GET", `${k}:s`],
      ["GET", `${k}:none`],
      ["INCRBY", `${k}:i`, "0"],
      ["PING"],
      ["EVAL", "return {1, 'a', true, false, {ARGV[1]}}", "0", "x,y"],
      ["SCRIPT", "LOAD", "return 1"],
      ["CONFIG", "GET", "maxmemory-policy"],
      ["EXISTS", `${k}:s`, `${k}:h`],
    ];
    for (const cmd of cmds) {
      assert.deepEqual(await rest.send(cmd), await tcp.send(cmd), cmd.join(" "));
    }
  });

  it("reports server error replies as RedisCommandError, NOSCRIPT included", async () => {
    const k = uniquePrefix("rt");
    await rest.send(["SET", k, "v"]);
    await assert.rejects(rest.send(["HGET", k, "f"]), (e: Error) => {
      assert.ok(e instanceof RedisCommandError);
      assert.match(e.message, /^WRONGTYPE /);
      return true;
    });
    const noscript = await rest.send(["EVALSHA", "0".repeat(40), "0"]).catch((e) => e);
    assert.ok(isNoScript(noscript), String(noscript));
    await assert.rejects(rest.send(["BLPOP", k, "0"]), /blocking command BLPOP/);
  });

  it("keeps each command's error in its place in a pipeline", async () => {
    const k = uniquePrefix("rt");
    const replies = await rest.pipeline([["SET", k, "1"], ["HGET", k, "f"], ["INCR", k]]);
    assert.equal(replies[0], "OK");
    assert.ok(replies[1] instanceof RedisCommandError);
    assert.equal(replies[2], 2);
  });

  it("batches the commands of one tick into one request and answers in issue order", async () => {
    const k = uniquePrefix("rt");
    const before = gw.stats().requests;
    const order: number[] = [];
    const sends = Array.from(
      { length: 50 },
      () =>
        rest.send(["EVAL", "return redis.call('INCR', KEYS[1])", "1", k]).then((n) => {
          order.push(n as number);
          return n;
        }),
    );
    sends.push(rest.send(["HGETALL", `${k}:h`]).then(() => 0));
    await Promise.all(sends);
    assert.equal(gw.stats().requests - before, 1, "one /pipeline request");
    assert.deepEqual(order, Array.from({ length: 50 }, (_, i) => i + 1), "in issue order");
  });

  it("a later command's reply never arrives before an earlier one's", async () => {
    const k = uniquePrefix("rt");
    const seen: string[] = [];
    const first = rest.send(["EVAL", "return redis.call('SET', KEYS[1], 'x')", "1", k])
      .then(() => seen.push("write"));
    // Issued a tick later, so it cannot share the first request.
    await new Promise((r) => setTimeout(r, 0));
    const second = rest.send(["GET", k]).then((v) => seen.push(`read ${v}`));
    await Promise.all([first, second]);
    assert.deepEqual(seen, ["write", "read x"]);
  });

  it("runs scripts with the NOSCRIPT fallback after the server lost its script cache", async () => {
    const server = await startRedisServer();
    const gw2 = await startGateway({ redisUrl: server.url, token: TOKEN });
    const t = new RestTransport({ url: gw2.url, token: TOKEN });
    try {
      const runner = new ScriptRunner(t);
      const script = { name: "echo", numKeys: 1, source: "return {KEYS[1], ARGV[1]}" };
      assert.deepEqual(await runner.run(script, ["k"], ["a"]), ["k", "a"]);
      await t.send(["SCRIPT", "FLUSH"]);
      assert.deepEqual(await runner.run(script, ["k"], ["b"]), ["k", "b"]);
      await t.send(["SCRIPT", "FLUSH"]);
      const many = await runner.runMany([
        { script, keys: ["k"], args: ["c"] },
        { script, keys: ["k"], args: ["d"] },
      ]);
      assert.deepEqual(many, [["k", "c"], ["k", "d"]]);
    } finally {
      await t.close();
      await gw2.stop();
      await server.stop();
    }
  });

  it("reports a refused token or an unreachable endpoint as a failure, not a server error", async () => {
    const wrong = new RestTransport({ url: gw.url, token: "wrong-token-0123456789" });
    const e1 = await wrong.send(["PING"]).catch((e) => e);
    assert.ok(!(e1 instanceof RedisCommandError));
    assert.match(e1.message, /Redis REST request to .* failed: Unauthorized/);
    const down = new RestTransport({
      url: `http://127.0.0.1:${await freePort()}`,
      token: TOKEN,
      retries: 0,
    });
    const e2 = await down.send(["PING"]).catch((e) => e);
    assert.ok(e2 instanceof Error && !(e2 instanceof RedisCommandError));
    assert.match(e2.message, /Redis REST request to http:\/\/127\.0\.0\.1:\d+ failed/);
    await assert.rejects(down.subscribe("ch", () => {}), /Subscribing to ch .* failed/);
    await down.close();
    await wrong.close();
    assert.throws(() => new RestTransport({ url: "redis://x", token: TOKEN }), /http\(s\) URL/);
  });

  it("also works through the client's own auto-pipelining", async () => {
    const t = new RestTransport({ url: gw.url, token: TOKEN, pipelineMode: "client" });
    try {
      const k = uniquePrefix("rt");
      const [a, b] = await Promise.all([t.send(["SET", k, "v"]), t.send(["HGETALL", `${k}:h`])]);
      assert.deepEqual([a, b], ["OK", []]);
      assert.ok(isNoScript(await t.send(["EVALSHA", "0".repeat(40), "0"]).catch((e) => e)));
    } finally {
      await t.close();
    }
  });
});

describe("RestTransport pub/sub over SSE", () => {
  it("delivers messages as published and re-subscribes after the gateway restarts", async () => {
    const url = await testRedisUrl();
    const port = await freePort();
    let gw = await startGateway({ redisUrl: url, token: TOKEN, port });
    const t = new RestTransport({ url: gw.url, token: TOKEN });
    const pub = connectRedisTcp(url);
    try {
      const ch = uniquePrefix("ch");
      const got: string[] = [];
      let reconnects = 0;
      t.onReconnect(() => reconnects++);
      const off = await t.subscribe(ch, (m) => got.push(m));
      await pub.send(["PUBLISH", ch, '{"kind":"ready","pool":"a,b"}']);
      await pub.send(["PUBLISH", ch, "line one\nline two"]);
      await eventually(() => got.length === 2, "two messages");
      assert.deepEqual(got, ['{"kind":"ready","pool":"a,b"}', "line one\nline two"]);

      await gw.stop();
      gw = await startGateway({ redisUrl: url, token: TOKEN, port });
      await eventually(() => reconnects === 1, "the stream to re-open", 10_000);
      await pub.send(["PUBLISH", ch, "after restart"]);
      await eventually(() => got.includes("after restart"), "a message after the restart");

      await off();
      await eventually(() => gw.stats().streams === 0, "the stream to close after unsubscribe");
      await pub.send(["PUBLISH", ch, "after unsubscribe"]);
      await t.send(["PING"]); // a round trip later, nothing more arrived
      assert.ok(!got.includes("after unsubscribe"));
    } finally {
      await t.close();
      await pub.close();
      await gw.stop();
    }
  });
});
