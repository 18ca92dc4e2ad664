/**
 * The scripts as Redis 7 functions over REST (`functions: "if-proven"`, script-runner.ts): a
 * store's init() loads the libraries and runs one function, and only then calls FCALL; an
 * endpoint that refuses FUNCTION or FCALL, with whatever error, keeps the scripts on EVALSHA
 * and works the same; a store that never ran init() (the edge deliverer's) stays on EVALSHA.
 * Counted at a redis-server of this file's own (`INFO commandstats`).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { type RedisServerHandle, startRedisServer } from "../../scripts/tools/redis-server.ts";
import { restProxy } from "../../scripts/tools/rest-proxy.ts";
import { roundTrip } from "../../scripts/tools/new-task.ts";

const TOKEN = "unit-rest-functions-token";
const T0 = Date.UTC(2026, 0, 5, 8);

describe("scripts as functions over REST", () => {
  let server: RedisServerHandle;
  let admin: RedisTransport;
  let gw: RunningGateway;
  before(async () => {
    server = await startRedisServer();
    admin = connectRedisTcp(server.url);
    gw = await startGateway({ redisUrl: server.url, token: TOKEN });
  });
  after(async () => {
    await gw.stop();
    await admin.close();
    await server.stop();
  });

  /** FCALL and EVALSHA calls Redis served since the last count. */
  async function calls(): Promise<{ fcall: number; evalsha: number }> {
    const info = String(await admin.send(["INFO", "commandstats"]));
    await admin.send(["CONFIG", "RESETSTAT"]);
    const n = (cmd: string) =>
      Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
    return { fcall: n("fcall"), evalsha: n("evalsha") };
  }

  /** FCALL and EVALSHA calls Redis served for one task's round trip through `s`. */
  async function callsOfRoundTrip(s: RedisStorage, id: string) {
    await calls();
    await roundTrip(s, id, T0);
    return await calls();
  }

  it("runs the scripts as functions once init() proved the endpoint runs them", async () => {
    const s = new RestRedisStorage({
      transport: new RestTransport({ url: gw.url, token: TOKEN }),
      prefix: "fn-rest1",
    });
    try {
      await s.init();
      const after = await callsOfRoundTrip(s, "a");
      assert.equal(after.evalsha, 0);
      assert.ok(after.fcall >= 3, `FCALL ${after.fcall} times`);
    } finally {
      await s.close();
    }
  });

  // A command's name opens its array in a request body: `["FCALL",…]` or `[["fcall",…],…]`.
  for (const what of ["FUNCTION", "FCALL"]) {
    const refuse = (body: string) => new RegExp(`\\["${what}"`, "i").test(body);
    it(`keeps the scripts on EVALSHA where the endpoint refuses ${what} (any error)`, async () => {
      const proxy = await restProxy(gw.url, {
        refuse: (body) => (refuse(body) ? `ERR Command is not available: '${what}'` : null),
      });
      const s = new RestRedisStorage({
        transport: new RestTransport({ url: proxy.url, token: TOKEN }),
        prefix: `fn-refused-${what}`,
      });
      try {
        await s.init();
        const after = await callsOfRoundTrip(s, "b");
        assert.equal(after.fcall, 0);
        assert.ok(after.evalsha >= 3, `EVALSHA ${after.evalsha} times`);
        assert.ok(proxy.seen.some(refuse), `the endpoint was asked for ${what}`);
      } finally {
        await s.close();
        await proxy.stop();
      }
    });
  }

  it("a store that never ran init() (the edge deliverer's) stays on EVALSHA", async () => {
    const s = new RedisStorage({
      transport: new RestTransport({ url: gw.url, token: TOKEN }),
      prefix: "fn-rest-edge",
      subscribeEvents: false,
      checkEvictionPolicy: false,
    });
    try {
      await s.prepare();
      const after = await callsOfRoundTrip(s, "c");
      assert.equal(after.fcall, 0);
      assert.ok(after.evalsha >= 3, `EVALSHA ${after.evalsha} times`);
    } finally {
      await s.close();
    }
  });
});
