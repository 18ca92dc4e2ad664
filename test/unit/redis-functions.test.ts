/**
 * The scripts as Redis 7 functions (src/storage/redis/script-runner.ts): loaded at start, loaded
 * again when the server lost them, other releases' libraries dropped at start, and a server
 * without FCALL served by the same scripts through EVALSHA.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import {
  RedisCommandError,
  type RedisReply,
  type RedisTransport,
} from "../../src/storage/redis/transport.ts";
import { SCRIPTS } from "../../src/storage/redis/scripts.generated.ts";
import { type RedisServerHandle, startRedisServer } from "../../scripts/tools/redis-server.ts";
import { roundTrip } from "../../scripts/tools/new-task.ts";

const T0 = Date.UTC(2026, 0, 5, 8);

/** The library names FUNCTION LIST answers. */
async function libraries(admin: RedisTransport): Promise<string[]> {
  const names: string[] = [];
  const walk = (v: unknown) => {
    if (!Array.isArray(v)) return;
    v.forEach((x, i) => (x === "library_name" ? names.push(String(v[i + 1])) : walk(x)));
  };
  walk(await admin.send(["FUNCTION", "LIST"]));
  return names.sort();
}

describe("redis scripts as functions", () => {
  let server: RedisServerHandle;
  let admin: RedisTransport;
  before(async () => {
    server = await startRedisServer();
    admin = connectRedisTcp(server.url);
  });
  after(async () => {
    await admin.close();
    await server.stop();
  });

  it("loads every library at start, and one the server lost again when it is called", async () => {
    const s = new RedisStorage({ transport: connectRedisTcp(server.url), prefix: "fn1" });
    try {
      await s.init();
      const mine = Object.values(SCRIPTS).map((x) => x.fn!).sort();
      assert.deepEqual(await libraries(admin), mine);
      await roundTrip(s, "a", T0);
      // A restart without persistence, or an operator's FUNCTION FLUSH.
      await admin.send(["FUNCTION", "FLUSH"]);
      await roundTrip(s, "b", T0);
      const loaded = await libraries(admin);
      for (const name of ["enqueue", "claim", "complete"] as const) {
        assert.ok(loaded.includes(SCRIPTS[name].fn!), `${name} loaded again`);
      }
    } finally {
      await s.close();
    }
  });

  it("drops other releases' libraries at start and leaves others' alone", async () => {
    const old = "#!lua name=skedulr_0000000000_claim\n" +
      "redis.register_function('skedulr_0000000000_claim', function() return 1 end)";
    const theirs =
      "#!lua name=someone_else\nredis.register_function('theirs', function() return 2 end)";
    await admin.send(["FUNCTION", "LOAD", "REPLACE", old]);
    await admin.send(["FUNCTION", "LOAD", "REPLACE", theirs]);
    const s = new RedisStorage({ transport: connectRedisTcp(server.url), prefix: "fn2" });
    try {
      await s.init();
      const names = await libraries(admin);
      assert.ok(!names.includes("skedulr_0000000000_claim"), "the old release's library went");
      assert.ok(names.includes("someone_else"), "another application's stays");
    } finally {
      await s.close();
    }
  });

  it("serves a server without FCALL through EVALSHA", async () => {
    const tcp = connectRedisTcp(server.url);
    const refused = (cmd: string[]) => cmd[0] === "FCALL" || cmd[0] === "FUNCTION";
    const unknown = (cmd: string[]) =>
      new RedisCommandError(`ERR unknown command '${cmd[0]}', with args beginning with: `);
    // A Redis 6: a client of one server, which turns out not to know functions.
    const old: RedisTransport = {
      name: "redis-6",
      functions: true,
      send: (cmd) => (refused(cmd) ? Promise.reject(unknown(cmd)) : tcp.send(cmd)),
      pipeline: async (cmds) => {
        const sent = await tcp.pipeline(cmds.filter((c) => !refused(c)));
        let i = 0;
        return cmds.map((c): RedisReply | RedisCommandError => refused(c) ? unknown(c) : sent[i++]);
      },
      subscribe: (channel, onMessage) => tcp.subscribe(channel, onMessage),
      close: () => tcp.close(),
    };
    const s = new RedisStorage({ transport: old, prefix: "fn3" });
    try {
      await s.init();
      await roundTrip(s, "c", T0);
      const calls = String(await admin.send(["INFO", "commandstats"]));
      assert.match(calls, /cmdstat_evalsha:calls=[1-9]/);
    } finally {
      await s.close();
    }
  });
});
