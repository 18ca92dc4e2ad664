/**
 * RestRedisStorage beyond the behaviour suite: what keeps an idle worker over REST cheap
 * (claims of a drained pool answered locally until an event, a local write, a re-opened
 * stream or the backstop says there may be work) and the local echo of its own events.
 * Requests are counted at the transport; times are the `now` the scheduler would pass.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import type { NewTask } from "../../src/core/task.ts";
import type { StorageEvent } from "../../src/storage/storage.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { freePort, testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { newTask } from "../../scripts/tools/new-task.ts";

const TOKEN = "unit-rest-storage-token";
const T0 = Date.UTC(2026, 0, 5, 8);
const OWNER = { workerId: "w1", leaseMs: 30_000 };

function task(id: string, extra: Partial<NewTask> = {}): NewTask {
  return newTask(id, T0, extra);
}

describe("RestRedisStorage", () => {
  let redisUrl: string;
  let port: number;
  let gw: RunningGateway;
  before(async () => {
    redisUrl = await testRedisUrl();
    port = await freePort();
    gw = await startGateway({ redisUrl, token: TOKEN, port });
  });
  after(async () => {
    await gw.stop();
  });

  /**
   * A REST store and a TCP store (another process, as far as events go) on one prefix;
   * `sseDelayMs` holds back every event that arrives over the stream.
   */
  async function pair(sseDelayMs = 0) {
    const prefix = uniquePrefix("reststore");
    const transport = new RestTransport({ url: gw.url, token: TOKEN });
    if (sseDelayMs > 0) {
      const subscribe = transport.subscribe.bind(transport);
      transport.subscribe = (channel, onMessage) =>
        subscribe(channel, (m) => setTimeout(() => onMessage(m), sseDelayMs));
    }
    const rest = new RestRedisStorage({ transport, prefix, backstopMs: 10_000 });
    const tcp = new RedisStorage({ transport: connectRedisTcp(redisUrl), prefix });
    await rest.init();
    await tcp.init();
    const events: StorageEvent[] = [];
    rest.subscribe((e) => events.push(e));
    return {
      rest,
      tcp,
      transport,
      events,
      close: async () => {
        await rest.close();
        await tcp.close();
      },
    };
  }

  it("answers claims of a drained pool locally until an event or the backstop", async () => {
    const { rest, tcp, transport, events, close } = await pair();
    try {
      assert.deepEqual(await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 }), []);
      const requests = transport.requests;
      for (const dt of [1_000, 5_000, 9_999]) {
        assert.deepEqual(
          await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + dt }),
          [],
        );
      }
      assert.equal(transport.requests, requests, "no request within the backstop");

      await tcp.enqueue({ tasks: [task("a")], now: T0 });
      await eventually(() => events.some((e) => e.kind === "ready"), "ready over SSE");
      const claimed = await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 10_000 });
      assert.deepEqual(claimed.map((t) => t.id), ["a"]);
      const after = transport.requests;
      assert.deepEqual(
        await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 10_001 }),
        [],
      );
      assert.equal(transport.requests, after, "drained again: answered locally");

      assert.deepEqual(
        await rest.claim({ pool: "other", max: 4, owner: OWNER, now: T0 + 10_001 }),
        [],
      );
      assert.equal(transport.requests, after + 1, "each pool has its own state");

      assert.deepEqual(
        await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 20_001 }),
        [],
      );
      assert.equal(transport.requests, after + 2, "the backstop claims for real");
    } finally {
      await close();
    }
  });

  it("claims again after its own writes and after a control change", async () => {
    const { rest, transport, close } = await pair();
    try {
      await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 });
      await rest.enqueue({ tasks: [task("b")], now: T0 });
      assert.deepEqual(
        (await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 1 })).map((t) => t.id),
        ["b"],
      );
      await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 2 });
      const requests = transport.requests;
      await rest.setPaused({ pool: null, paused: false });
      await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 3 });
      assert.ok(transport.requests > requests + 1, "resume re-opened the gate");
    } finally {
      await close();
    }
  });

  it("claims at once after its own promotion, before the SSE copy of `ready`", async () => {
    const { rest, transport, events, close } = await pair(300);
    try {
      await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 });
      await rest.enqueue({ tasks: [task("e", { runAt: T0 + 5 })], now: T0 });
      // The stream has caught up: the SSE copy of `delayed` is here.
      await eventually(() => events.filter((e) => e.kind === "delayed").length === 2, "SSE");
      const requests = transport.requests;
      await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 1 });
      assert.equal(transport.requests, requests, "still drained: answered locally");
      assert.equal(await rest.promoteDue({ now: T0 + 5, limit: 10 }), 1);
      const claimed = await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 5 });
      assert.deepEqual(claimed.map((t) => t.id), ["e"]);
    } finally {
      await close();
    }
  });

  it("echoes the events of its own writes before the call returns; SSE repeats them", async () => {
    const { rest, events, close } = await pair();
    try {
      await rest.enqueue({ tasks: [task("d", { runAt: T0 + 60_000 })], now: T0 });
      // Here already (the SSE copy may have beaten the reply, never the echo).
      assert.deepEqual(events[0], { kind: "delayed", id: "d", runAt: T0 + 60_000 });
      await rest.cancel({ id: "d", reason: "no longer needed", now: T0 + 1 });
      await eventually(
        () => events.filter((e) => e.kind === "delayed").length === 2,
        "the same event again over SSE",
      );
    } finally {
      await close();
    }
  });

  it("claims for real after the event stream was re-opened (events may have been lost)", async () => {
    const { rest, transport, close } = await pair();
    let reconnected = false;
    transport.onReconnect(() => (reconnected = true));
    try {
      await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 });
      await gw.stop();
      gw = await startGateway({ redisUrl, token: TOKEN, port });
      await eventually(() => reconnected, "the stream to re-open", 10_000);
      const requests = transport.requests;
      await rest.claim({ pool: "default", max: 4, owner: OWNER, now: T0 + 1 });
      assert.equal(transport.requests, requests + 1);
    } finally {
      await close();
    }
  });
});
