/**
 * Task events on Redis beyond the behaviour suite: a batch whose pub/sub message was lost is
 * read from the stream before the next one is delivered; one the stream lost too is reported
 * as missed; a second instance's subscriber sees the first's events; big calls are chunked.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import type { TaskEvent } from "../../src/core/task-event.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { newTask } from "../../scripts/tools/new-task.ts";

const T0 = Date.UTC(2026, 0, 5, 8);

describe("redis task events", () => {
  let url: string;
  let admin: RedisTransport;
  before(async () => {
    url = await testRedisUrl();
    admin = connectRedisTcp(url);
  });
  after(async () => {
    await admin.close();
  });

  async function open(prefix: string): Promise<RedisStorage> {
    const storage = new RedisStorage({ transport: connectRedisTcp(url), prefix });
    await storage.init();
    return storage;
  }

  /** Records a batch the way a script would, but without its pub/sub message (lost). */
  async function lostBatch(s: RedisStorage, id: string): Promise<number> {
    const n = Number(await admin.send(["INCR", `${s.prefix}tevseq`]));
    const e = ["created", id, "t", "default", String(T0), "queued"];
    await admin.send(["XADD", `${s.prefix}tevents`, `${n}-0`, "e", e.join("|")]);
    return n;
  }

  it("reads a batch whose message was lost from the stream, in order, before the next", async () => {
    const s = await open(uniquePrefix("tev"));
    const got: { events: TaskEvent[]; missed: boolean }[] = [];
    const sub = s.subscribeTaskEvents((events, missed) => got.push({ events, missed }));
    await sub.ready;
    try {
      // The subscription must be live before the first batch: wait for one to arrive (each
      // try a new task: a batch recorded before the subscription was live is not delivered).
      let warm = 0;
      await eventually(async () => {
        await s.enqueue({ tasks: [newTask(`warm${++warm}`, T0)], now: T0 });
        return got.length > 0;
      }, "the subscription to deliver");
      const lost = await lostBatch(s, "lost");
      await s.enqueue({ tasks: [newTask("after", T0)], now: T0 });
      await eventually(() => got.some((b) => b.events[0].id === "after"), "the next batch");
      const ids = got.map((b) => b.events[0].id);
      assert.deepEqual(ids.slice(-2), ["lost", "after"]);
      assert.equal(got.at(-2)!.events[0].eventId, `${lost}/0`);
      assert.ok(got.every((b) => !b.missed), "nothing was missed: the stream had it");
    } finally {
      sub.close();
      await s.close();
    }
  });

  it("reports a batch gone from the stream too as missed, and resuming past it says so", async () => {
    const s = await open(uniquePrefix("tev"));
    const got: { events: TaskEvent[]; missed: boolean }[] = [];
    const sub = s.subscribeTaskEvents((events, missed) => got.push({ events, missed }));
    await sub.ready;
    try {
      let warm = 0;
      await eventually(async () => {
        await s.enqueue({ tasks: [newTask(`warm${++warm}`, T0)], now: T0 });
        return got.length > 0;
      }, "the subscription to deliver");
      await eventually(() => got.some((b) => b.events[0].id === `warm${warm}`), "the last warm");
      const seen = got.at(-1)!.events[0].eventId;
      const lost = await lostBatch(s, "lost");
      await admin.send(["XDEL", `${s.prefix}tevents`, `${lost}-0`]);
      await s.enqueue({ tasks: [newTask("after", T0)], now: T0 });
      await eventually(() => got.some((b) => b.events[0].id === "after"), "the next batch");
      assert.equal(got.at(-1)!.missed, true);
      assert.ok(!got.some((b) => b.events[0].id === "lost"));
      const page = await s.taskEventsAfter(seen, 100);
      assert.equal(page.missed, true);
      assert.deepEqual(page.events.map((e) => e.id), ["after"]);
    } finally {
      sub.close();
      await s.close();
    }
  });

  it("a subscriber on one instance sees another instance's events", async () => {
    const prefix = uniquePrefix("tev");
    const [a, b] = [await open(prefix), await open(prefix)];
    const seen: TaskEvent[] = [];
    const sub = a.subscribeTaskEvents((events) => seen.push(...events));
    await sub.ready;
    try {
      await eventually(async () => {
        await b.enqueue({ tasks: [newTask(`t${seen.length}-${Date.now()}`, T0)], now: T0 });
        return seen.length > 0;
      }, "b's event on a");
      assert.equal(seen[0].kind, "created");
    } finally {
      sub.close();
      await a.close();
      await b.close();
    }
  });

  it("leaves out of a batch what repeats the event before it, and reads it back whole", async () => {
    const s = await open(uniquePrefix("tev"));
    try {
      await s.enqueue({
        tasks: [
          newTask("r1", T0),
          newTask("r2", T0),
          newTask("r3", T0, { type: "u", pool: "p" }),
          newTask("r4", T0, { type: "u", pool: "p" }),
          newTask("r5", T0, { type: "u", pool: "p", runAt: T0 + 60_000 }),
          newTask("r6", T0, { type: "u", pool: "p", runAt: T0 + 60_000 }),
        ],
        now: T0,
      });
      const entries = await admin.send(["XRANGE", `${s.prefix}tevents`, "-", "+"]) as unknown[];
      assert.deepEqual(entries.map((e) => (e as [string, string[]])[1][1].split("|\n|")), [[
        `created|r1|t|default|${T0}|queued`,
        "r2",
        "|r3|u|p||queued",
        "r4",
        "|r5||||scheduled",
        "r6",
      ]]);
      const page = await s.taskEventsAfter("0/0", 10);
      assert.deepEqual(
        page.events.map((e) => [e.kind, e.id, e.type, e.pool, e.at, e.status]),
        [
          ["created", "r1", "t", "default", T0, "queued"],
          ["created", "r2", "t", "default", T0, "queued"],
          ["created", "r3", "u", "p", T0, "queued"],
          ["created", "r4", "u", "p", T0, "queued"],
          ["created", "r5", "u", "p", T0, "scheduled"],
          ["created", "r6", "u", "p", T0, "scheduled"],
        ],
      );
    } finally {
      await s.close();
    }
  });

  it("records a call's events as stream entries of at most 100", async () => {
    const s = await open(uniquePrefix("tev"));
    try {
      const tasks = Array.from({ length: 250 }, (_, i) => newTask(`b${i}`, T0));
      await s.enqueue({ tasks, now: T0 });
      // 250 created events: entries of 100, 100 and 50.
      const entries = await admin.send(["XRANGE", `${s.prefix}tevents`, "-", "+"]) as unknown[];
      assert.deepEqual(
        entries.map((e) => (e as [string, string[]])[1][1].split("|\n|").length),
        [100, 100, 50],
      );
    } finally {
      await s.close();
    }
  });
});
