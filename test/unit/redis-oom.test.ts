/**
 * A full Redis (maxmemory reached, noeviction) refuses new work but never the transitions
 * that finish work: they are declared `allow-oom` (scripts/tools/gen-lua.ts turns a script's
 * FLAGS header line into its Redis 7 shebang); a running attempt's log write waits for room.
 * Own redis-server, own prefix.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { StorageUnavailableError } from "../../src/core/errors.ts";
import {
  type RedisServerHandle,
  startRedisServer,
  uniquePrefix,
} from "../../scripts/tools/redis-server.ts";
import { leaseOf, newTask } from "../../scripts/tools/new-task.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";

const T0 = Date.UTC(2026, 0, 5, 8);

describe("redis store at maxmemory", () => {
  let server: RedisServerHandle;
  let admin: RedisTransport;
  let s: RedisStorage;
  before(async () => {
    server = await startRedisServer();
    admin = connectRedisTcp(server.url);
    s = new RedisStorage({ transport: connectRedisTcp(server.url), prefix: uniquePrefix("oom") });
    await s.init();
  });
  after(async () => {
    await s.close();
    await admin.close();
    await server.stop();
  });

  it("refuses submits with a `full` fault, and still completes, fails, renews, releases, recovers and cancels", async () => {
    const owner = { workerId: "w", leaseMs: 1_000 };
    const ids = ["a", "b", "c", "d", "e", "f"];
    await s.enqueue({
      tasks: ids.map((id) => newTask(id, T0, { maxRetries: id === "b" ? 1 : 0 })),
      now: T0,
    });
    const claimed = await s.claim({ pool: "default", max: 5, owner, now: T0 });
    const [a, b, c, d, e] = claimed;
    await admin.send(["CONFIG", "SET", "maxmemory", "1"]);
    try {
      await assert.rejects(
        s.enqueue({ tasks: [newTask("new", T0)], now: T0 }),
        (error: unknown) =>
          error instanceof StorageUnavailableError && error.fault === "full" &&
          /full/.test(error.message),
      );
      // A running attempt's periodic log write waits for room; its settle stores the lines.
      const logs = { from: 1, lines: [{ at: T0, attempt: 1, message: "kept" }] };
      await assert.rejects(
        s.appendLogs({ leases: [{ ...leaseOf(a, "w"), logs }], now: T0 }),
        (error: unknown) => error instanceof StorageUnavailableError && error.fault === "full",
      );
      assert.equal(
        await s.complete({ lease: leaseOf(a, "w"), result: { ok: 1 }, now: T0 + 1, logs }),
        true,
      );
      assert.deepEqual((await s.taskLogs("a"))?.items.map((l) => l.message), ["kept"]);
      assert.equal(
        await s.fail({
          lease: leaseOf(b, "w"),
          error: { message: "x" },
          retryAt: T0 + 500,
          now: T0 + 1,
        }),
        "retrying",
      );
      assert.deepEqual(
        await s.renewLeases({ leases: [leaseOf(c, "w")], leaseMs: 1_000, now: T0 + 900 }),
        [],
      );
      assert.equal(
        await s.setProgress({ lease: leaseOf(c, "w"), progress: 40, now: Date.now() }),
        true,
      );
      assert.equal(await s.release({ leases: [leaseOf(d, "w")], now: T0 + 3 }), 1);
      assert.equal((await s.cancel({ id: "f", reason: "stop", now: T0 + 4 })).status, "cancelled");
      // e's lease runs out: recovery puts it back (stalled), c's was renewed.
      assert.deepEqual(await s.recoverExpired({ now: T0 + 1_500, limit: 10 }), {
        recovered: 1,
        cascadesPending: false,
      });
      assert.equal(await s.promoteDue({ now: T0 + 600, limit: 10 }), 1, "b's retry is promoted");
      const again = await s.claim({ pool: "default", max: 10, owner, now: T0 + 1_600 });
      assert.deepEqual(again.map((t) => t.id).sort(), ["b", "d", "e"]);
      assert.equal((await s.get("e"))?.stalls, 1);
      assert.equal((await s.get("a"))?.status, "succeeded");
    } finally {
      await admin.send(["CONFIG", "SET", "maxmemory", "0"]);
    }
    assert.equal(e.id, "e");
    const [stored] = await s.enqueue({ tasks: [newTask("new", T0)], now: T0 });
    assert.equal(stored.status, "queued", "submits work again once there is room");
  });
});
