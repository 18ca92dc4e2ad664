/**
 * The REST gateway (scripts/rest-gateway/gateway.ts) speaks the protocol `@upstash/redis` 1.39
 * expects: bearer auth, `{result}` / 400 `{error}`, pipelines that keep per-command errors,
 * atomic multi-exec, base64 replies that survive binary values, SSE pub/sub, and clear
 * refusals of blocking and connection-state commands. Checked with raw fetch (the wire
 * format) and with the real client.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Redis } from "@upstash/redis/cloudflare";
import {
  parseGatewayConfig,
  type RunningGateway,
  startGateway,
} from "../../scripts/rest-gateway/gateway.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const TOKEN = "unit-gateway-token-0123";

describe("REST gateway", () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway({ redisUrl: await testRedisUrl(), token: TOKEN });
  });
  after(async () => {
    await gw.stop();
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(`${gw.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  const b64 = { "upstash-encoding": "base64" };
  const enc = (s: string) => btoa(s);

  it("answers 401 without the bearer token, or with a wrong one", async () => {
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${TOKEN}x`, TOKEN]) {
      const r = await fetch(`${gw.url}/`, {
        method: "POST",
        headers: authorization ? { authorization } : {},
        body: '["PING"]',
      });
      assert.equal(r.status, 401);
      assert.deepEqual(await r.json(), { error: "Unauthorized" });
    }
    assert.equal((await fetch(`${gw.url}/_gateway/stats`)).status, 401);
  });

  it("runs one command: {result}, with numbers and booleans sent as their text", async () => {
    const k = uniquePrefix("gw");
    assert.deepEqual(await post("/", ["SET", k, 42]), { status: 200, body: { result: "OK" } });
    assert.deepEqual(await post("/", ["GET", k]), { status: 200, body: { result: "42" } });
    assert.deepEqual(await post("/", ["INCRBY", k, 1]), { status: 200, body: { result: 43 } });
    assert.deepEqual(await post("/", ["SET", k, true]), { status: 200, body: { result: "OK" } });
    assert.deepEqual(await post("/", ["GET", k]), { status: 200, body: { result: "true" } });
    assert.deepEqual(await post("/", ["GET", `${k}:none`]), {
      status: 200,
      body: { result: null },
    });
  });

  it("encodes every string at any depth as base64 when asked, numbers and nil untouched", async () => {
    const r = await post("/", ["EVAL", "return {'é', {ARGV[1], 7}, false, 'OK'}", 0, "a,b"], b64);
    assert.deepEqual(r.body, { result: [enc("\xc3\xa9"), [enc("a,b"), 7], null, enc("OK")] });
    assert.deepEqual((await post("/", ["PING"], b64)).body, { result: enc("PONG") });
  });

  it("is binary-safe: base64 carries the exact bytes Redis holds", async () => {
    const k = uniquePrefix("gw");
    const bytes = [0, 255, 128, 10, 13, 0xc3];
    const set = `redis.call('SET', KEYS[1], string.char(${bytes.join(",")})) return 1`;
    await post("/", ["EVAL", set, 1, k]);
    const r = await post("/", ["GET", k], b64);
    const got = Uint8Array.from(atob(r.body.result), (c) => c.charCodeAt(0));
    assert.deepEqual([...got], bytes);
  });

  it("carries multi-byte text of any size both ways: arguments by their byte length", async () => {
    const k = uniquePrefix("gw");
    // ~1.2 MB: its reply reaches the gateway in many socket chunks.
    const text = "héllo wörld 🎉 ".repeat(80_000);
    assert.deepEqual((await post("/", ["SET", k, text])).body, { result: "OK" });
    assert.deepEqual((await post("/", ["STRLEN", k])).body, {
      result: new TextEncoder().encode(text).length,
    });
    assert.equal((await post("/", ["GET", k])).body.result, text);
    const r = await post("/pipeline", [["GET", k], ["APPEND", k, "ü"], ["GET", k]], b64);
    const utf8 = (b: string) =>
      new TextDecoder().decode(Uint8Array.from(atob(b), (c) => c.charCodeAt(0)));
    assert.equal(utf8(r.body[0].result), text);
    assert.equal(r.body[1].result, new TextEncoder().encode(text + "ü").length);
    assert.equal(utf8(r.body[2].result), text + "ü");
    // Many replies over many socket chunks, each read where its chunk left it.
    const many = Array.from({ length: 200 }, (_, i) => `${i}:${"ü".repeat(5_000)}`);
    await post("/pipeline", many.map((v, i) => ["SET", `${k}:${i}`, v]));
    const got = await post("/pipeline", many.map((_, i) => ["GET", `${k}:${i}`]), b64);
    assert.deepEqual(got.body.map((e: { result: string }) => utf8(e.result)), many);
    // A lone surrogate arrives as U+FFFD (3 bytes), counted as it is written: the commands
    // after it on the shared connection still get their own replies.
    const lone = await post("/pipeline", [["SET", k, "a\ud800b"], ["GET", k], ["PING"]]);
    assert.deepEqual(lone.body, [{ result: "OK" }, { result: "a\ufffdb" }, { result: "PONG" }]);
  });

  it("reports server errors as 400 {error} and refuses malformed requests the same way", async () => {
    const k = uniquePrefix("gw");
    await post("/", ["SET", k, "v"]);
    const wrongType = await post("/", ["HGET", k, "f"]);
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.error, /^WRONGTYPE /);
    assert.match((await post("/", ["NOPE"])).body.error, /^ERR unknown command/);
    for (const bad of ["{not json", '{"a":1}', "[]", '["SET","k",{"x":1}]', '["SET","k",null]']) {
      const r = await post("/", bad);
      assert.equal(r.status, 400, bad);
      assert.match(r.body.error, /^ERR /, bad);
    }
    const unknown = await post("/nope", ["PING"]);
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /unknown endpoint \/nope/);
  });

  it("runs a pipeline in order, keeping each command's error in its place", async () => {
    const k = uniquePrefix("gw");
    const r = await post("/pipeline", [
      ["SET", k, "1"],
      ["INCR", k],
      ["HGET", k, "f"],
      ["BLPOP", k, 0],
      ["GET", k],
    ]);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.slice(0, 2), [{ result: "OK" }, { result: 2 }]);
    assert.match(r.body[2].error, /^WRONGTYPE /);
    assert.match(r.body[3].error, /blocking command BLPOP/);
    assert.deepEqual(r.body[4], { result: "2" });
    assert.equal((await post("/pipeline", [])).status, 400);
  });

  it("runs multi-exec atomically; a queueing error aborts it whole", async () => {
    const k = uniquePrefix("gw");
    const r = await post("/multi-exec", [["SET", k, "a"], ["HSET", k, "f", "v"], ["GET", k]], b64);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body[0], { result: enc("OK") });
    assert.match(r.body[1].error, /^WRONGTYPE /);
    assert.deepEqual(r.body[2], { result: enc("a") });
    const aborted = await post("/multi-exec", [["SET", k, "b"], ["GET"]]);
    assert.equal(aborted.status, 400);
    assert.match(aborted.body.error, /EXECABORT/);
    assert.deepEqual((await post("/", ["GET", k])).body, { result: "a" }, "nothing applied");
    const blocking = await post("/multi-exec", [["SET", k, "c"], ["BRPOP", k, 1]]);
    assert.equal(blocking.status, 400);
    assert.match(blocking.body.error, /blocking command BRPOP/);
  });

  it("refuses blocking and connection-state commands with a message saying what to do", async () => {
    const cases: [unknown[], RegExp][] = [
      [["BLPOP", "k", 0], /blocking command BLPOP is not supported over REST/],
      [["BRPOP", "k", 0], /blocking command BRPOP/],
      [["BLMOVE", "a", "b", "LEFT", "RIGHT", 0], /blocking command BLMOVE/],
      [["BZPOPMIN", "z", 0], /blocking command BZPOPMIN/],
      [["XREAD", "BLOCK", 0, "STREAMS", "s", "$"], /blocking command XREAD/],
      [["WAIT", 1, 0], /blocking command WAIT/],
      [["SUBSCRIBE", "ch"], /\/subscribe\/<channel>/],
      [["MULTI"], /\/multi-exec/],
      [["SELECT", 1], /SELECT is not supported over REST/],
      [["CLIENT", "REPLY", "OFF"], /CLIENT REPLY is not supported/],
    ];
    for (const [cmd, message] of cases) {
      const r = await post("/", cmd);
      assert.equal(r.status, 400, JSON.stringify(cmd));
      assert.match(r.body.error, message);
    }
    const nonBlocking = await post("/", ["XREAD", "COUNT", 1, "STREAMS", uniquePrefix("s"), "0"]);
    assert.deepEqual(nonBlocking, { status: 200, body: { result: null } });
  });

  it("streams pub/sub messages over SSE, exactly as published, and ends with the client", async () => {
    const ch = uniquePrefix("ch");
    const abort = new AbortController();
    const r = await fetch(`${gw.url}/subscribe/${encodeURIComponent(ch)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" },
      body: "[]",
      signal: abort.signal,
    });
    assert.equal(r.headers.get("content-type"), "text/event-stream");
    const reader = r.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const until = (want: string) =>
      eventually(async () => {
        const { value } = await reader.read();
        text += decoder.decode(value);
        return text.includes(want);
      }, `SSE text containing ${JSON.stringify(want)}`);
    await until(`data: subscribe,${ch},1\n\n`);
    await post("/", ["PUBLISH", ch, '{"kind":"ready","pool":"a,b"}']);
    await until(`data: message,${ch},{"kind":"ready","pool":"a,b"}\n\n`);
    await post("/", ["PUBLISH", ch, "two\nlines"]);
    await until(`data: message,${ch},two\ndata: lines\n\n`);
    const before = gw.stats().streams;
    assert.ok(before >= 1);
    abort.abort();
    await reader.cancel().catch(() => {});
    await eventually(() => gw.stats().streams === before - 1, "the stream to close");
  });

  it("works with @upstash/redis: auto-pipelining, keepErrors, scripts, subscribe", async () => {
    const redis = new Redis({ url: gw.url, token: TOKEN, enableTelemetry: false });
    const k = uniquePrefix("gw");
    const [set, got, h] = await Promise.all([
      redis.set(k, { a: 1 }),
      redis.get(k),
      redis.hgetall(`${k}:none`),
    ]);
    assert.deepEqual([set, got, h], ["OK", { a: 1 }, null]);
    const p = redis.pipeline();
    p.set(`${k}:s`, "x");
    p.hget(`${k}:s`, "f");
    const out = await p.exec({ keepErrors: true });
    assert.equal(out[0].result, "OK");
    assert.match(String(out[1].error), /WRONGTYPE/);
    const script = redis.createScript<string>("return ARGV[1] .. '!'");
    assert.equal(await script.exec([], ["hi"]), "hi!");
    const sub = redis.subscribe<string>([`${k}:ch`]);
    const got2: unknown[] = [];
    sub.on("message", (m) => got2.push(m.message));
    await new Promise((resolve) => sub.on("subscribe", resolve));
    await redis.publish(`${k}:ch`, "hello");
    await eventually(() => got2.length === 1, "the client's subscriber to get the message");
    assert.deepEqual(got2, ["hello"]);
    await sub.unsubscribe();
  });

  it("counts requests and commands for idle-cost measurements", async () => {
    const start = gw.stats();
    await post("/pipeline", [["PING"], ["PING"], ["PING"]]);
    await post("/", ["PING"]);
    const now = gw.stats();
    assert.equal(now.requests - start.requests, 2);
    assert.equal(now.commands - start.commands, 4);
    const r = await fetch(`${gw.url}/_gateway/stats`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal((await r.json()).requests, now.requests);
  });
});

describe("REST gateway configuration", () => {
  it("names every missing or bad variable", () => {
    assert.throws(() => parseGatewayConfig({}), (e: Error) => {
      assert.match(e.message, /REDIS_URL: required/);
      assert.match(e.message, /GATEWAY_TOKEN: required \(or UPSTASH_REDIS_REST_TOKEN\)/);
      return true;
    });
    assert.throws(
      () => parseGatewayConfig({ REDIS_URL: "http://x", GATEWAY_TOKEN: "short", PORT: "70000" }),
      (e: Error) => {
        assert.match(e.message, /REDIS_URL: expected redis:\/\/host:port, got "http:\/\/x"/);
        assert.match(e.message, /GATEWAY_TOKEN: use at least 16 characters/);
        assert.match(e.message, /PORT: expected an integer 0..65535, got "70000"/);
        return true;
      },
    );
    assert.throws(
      () =>
        parseGatewayConfig({
          REDIS_URL: "redis://h:1",
          GATEWAY_TOKEN: "a".repeat(16),
          UPSTASH_REDIS_REST_TOKEN: "b".repeat(16),
        }),
      /GATEWAY_TOKEN and UPSTASH_REDIS_REST_TOKEN differ/,
    );
    assert.deepEqual(
      parseGatewayConfig({ REDIS_URL: "redis://h:1", UPSTASH_REDIS_REST_TOKEN: "b".repeat(16) }),
      { redisUrl: "redis://h:1", token: "b".repeat(16), port: 8079, hostname: "127.0.0.1" },
    );
  });

  it("exits 2 with the message when started with a bad environment", () => {
    const runtime = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
      ? [process.execPath]
      : [process.execPath, "run", "-A"];
    const r = spawnSync(runtime[0], [...runtime.slice(1), "scripts/rest-gateway/main.ts"], {
      env: { PATH: process.env.PATH ?? "", REDIS_URL: "nope" },
      encoding: "utf8",
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /rest-gateway: Invalid gateway configuration/);
    assert.match(r.stderr, /REDIS_URL: expected redis:\/\/host:port, got "nope"/);
  });
});
