/**
 * @module suite-events — task events (GET /events underneath): each transition's event, in
 * order, once; filters; resuming after an event id; events off.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, harness, partitionsOf, type StorageFactory } from "./harness.ts";
import {
  parsePosition,
  positionAfter,
  type TaskEvent,
  type TaskEventFeedOptions,
} from "../../src/mod.ts";
import { gate } from "../../scripts/tools/wait.ts";

/** A live feed's events, kept; `missed` counts its onMissed calls. */
async function collect(h: Harness, options: Omit<TaskEventFeedOptions, "onEvents"> = {}) {
  const events: TaskEvent[] = [];
  let missed = 0;
  const feed = h.s.taskEvents({
    ...options,
    onEvents: (batch) => events.push(...batch),
    onMissed: () => missed++,
  });
  await feed.ready;
  return { events, feed, missed: () => missed };
}

/**
 * The stream as a reader can rely on it: each partition's events in order, each known by
 * its place in its partition. One partition: the events as they are. Partitions interleave
 * as their batches arrive (live) or by time (a resume), so only their own order counts,
 * and an id also says where the reader is in the other partitions (docs/PARTITIONS.md).
 */
function perPartition(events: TaskEvent[]): unknown {
  const parts = new Map<number, unknown[]>();
  for (const e of events) {
    const p = parsePosition(e.eventId)!;
    const own = p.batches.length === 1 ? e : { ...e, eventId: `${p.batches[p.part]}/${p.index}` };
    parts.set(p.part, [...(parts.get(p.part) ?? []), own]);
  }
  return [...parts].sort(([a], [b]) => a - b);
}

/** kind[:attempt] of each event of task `id`, in order. */
const story = (events: TaskEvent[], id: string) =>
  events.filter((e) => e.id === id).map((e) => (e.attempt ? `${e.kind}:${e.attempt}` : e.kind));

export function eventsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: task events`, () => {
    it("tells a task's life in order, each event once: created, started, progress, retrying, succeeded", async () => {
      const h = await harness(factory);
      const c = await collect(h);
      try {
        h.s.register("flaky", async (_p, ctx) => {
          await ctx.progress(50);
          if (ctx.attempt === 1) throw new Error("first attempt fails");
          return "ok";
        });
        const id = await h.s.submit({
          type: "flaky",
          pool: "default",
          maxRetries: 1,
          backoff: { type: "fixed", delay: "1s" },
        });
        await h.until(id, "retrying");
        await h.clock.advance(1_000);
        await h.until(id, "succeeded");
        await h.eventually(() => story(c.events, id).includes("succeeded:2"), "the last event");
        assert.deepEqual(story(c.events, id), [
          "created",
          "started:1",
          "progress",
          "retrying:1",
          "started:2",
          "progress",
          "succeeded:2",
        ]);
        const created = c.events.find((e) => e.id === id && e.kind === "created")!;
        assert.equal(created.status, "queued");
        assert.equal(created.type, "flaky");
        assert.equal(created.pool, "default");
        const retrying = c.events.find((e) => e.kind === "retrying")!;
        assert.equal(retrying.runAt, retrying.at + 1_000);
        assert.equal(c.events.find((e) => e.kind === "progress")!.progress, 50);
        // Ids grow in the order the events happened (each after the position before it).
        const ids = c.events.map((e) => parsePosition(e.eventId)!);
        for (let i = 1; i < ids.length; i++) {
          assert.ok(positionAfter(ids[i], ids[i - 1]), `${c.events[i].eventId} after`);
        }
        assert.equal(c.missed(), 0);
      } finally {
        c.feed.close();
        await h.close();
      }
    });

    it("tells of dead, cancelled (queued and running), expired and resubmitted tasks", async () => {
      const h = await harness(factory);
      const c = await collect(h);
      try {
        h.s.register("fail", () => {
          throw new Error("no");
        });
        const hold = gate();
        h.s.register("slow", () => hold.promise);
        const dead = await h.s.submit({ type: "fail" });
        await h.until(dead, "dead");
        const running = await h.s.submit({ type: "slow" });
        await h.until(running, "running");
        await h.s.cancel(running);
        const queued = await h.s.submit({ type: "slow", delay: "1m" });
        await h.s.cancel(queued);
        const expiring = await h.s.submit({ type: "slow", delay: "1m", expiresIn: "10s" });
        await h.clock.advance(10_000);
        await h.until(expiring, "expired");
        await h.s.resubmit(dead);
        await h.until(dead, "dead");
        hold.open();
        await h.eventually(() => story(c.events, dead).length === 6, "the resubmitted task's end");
        // A resubmitted task starts over: its attempts count from 1 again.
        assert.deepEqual(story(c.events, dead), [
          "created",
          "started:1",
          "dead:1",
          "resubmitted",
          "started:1",
          "dead:1",
        ]);
        assert.deepEqual(story(c.events, running), ["created", "started:1", "cancelled:1"]);
        assert.deepEqual(story(c.events, queued), ["created", "cancelled"]);
        assert.equal(c.events.find((e) => e.id === queued)!.status, "scheduled");
        assert.deepEqual(story(c.events, expiring), ["created", "expired"]);
      } finally {
        c.feed.close();
        await h.close();
      }
    });

    it("filters by task id, type, pool and kind", async () => {
      const h = await harness(factory, { pools: { default: 4, other: 4 } });
      const byKind = await collect(h, { filter: { kinds: ["succeeded"], pools: ["other"] } });
      try {
        h.s.register("a", () => 1);
        h.s.register("b", () => 2);
        const ids = [
          await h.s.submit({ type: "a" }),
          await h.s.submit({ type: "b", pool: "other" }),
          await h.s.submit({ type: "a", pool: "other" }),
        ];
        for (const id of ids) await h.until(id, "succeeded");
        // From the buffer's start: in partitions the first event a live feed gets may be any
        // task's (partitions interleave as their batches arrive), even ids[2]'s `created`.
        const byId = await collect(h, { after: "0/0", filter: { ids: [ids[2]] } });
        const byType = await collect(h, { after: "0/0", filter: { types: ["b"] } });
        await Promise.all([byId.feed.ready, byType.feed.ready]);
        await h.eventually(() => byKind.events.length === 2, "both succeeded in pool other");
        assert.deepEqual(byKind.events.map((e) => e.id).sort(), [ids[1], ids[2]].sort());
        assert.deepEqual(story(byId.events, ids[2]), ["created", "started:1", "succeeded:1"]);
        assert.deepEqual(new Set(byId.events.map((e) => e.id)), new Set([ids[2]]));
        assert.deepEqual(new Set(byType.events.map((e) => e.type)), new Set(["b"]));
        byId.feed.close();
        byType.feed.close();
      } finally {
        byKind.feed.close();
        await h.close();
      }
    });

    it("resumes after an event id with every later event once, then goes on live", async () => {
      const h = await harness(factory);
      const live = await collect(h);
      try {
        h.s.register("t", () => "ok");
        const first = await h.s.submit({ type: "t" });
        await h.until(first, "succeeded");
        await h.eventually(() => live.events.length === 3, "three events");
        const second = await h.s.submit({ type: "t" });
        await h.until(second, "succeeded");
        await h.eventually(() => live.events.length === 6, "six events");
        // A reader that saw only the first task's start resumes from there.
        const resumed = await collect(h, { after: live.events[1].eventId });
        await resumed.feed.ready;
        assert.deepEqual(perPartition(resumed.events), perPartition(live.events.slice(2)));
        const third = await h.s.submit({ type: "t" });
        await h.until(third, "succeeded");
        await h.eventually(() => resumed.events.length === 7, "the live events after");
        assert.deepEqual(perPartition(resumed.events), perPartition(live.events.slice(2)));
        assert.equal(resumed.missed(), 0);
        resumed.feed.close();
        // Events that happen while a resume reads the buffer arrive live too: each once.
        const racing = await collect(h, { after: live.events[1].eventId });
        const fourth = await h.s.submit({ type: "t" });
        await racing.feed.ready;
        await h.until(fourth, "succeeded");
        await h.eventually(() => story(racing.events, fourth).length === 3, "the racing task");
        const ids = racing.events.map((e) => JSON.stringify(perPartition([e])));
        assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids}`);
        if (partitionsOf(h) === 1) {
          assert.deepEqual(racing.events.slice(0, 8), live.events.slice(2, 10));
        } else {
          const others = (events: TaskEvent[]) => events.filter((e) => e.id !== fourth);
          assert.deepEqual(
            perPartition(others(racing.events)),
            perPartition(others(live.events.slice(2))),
          );
        }
        racing.feed.close();
        // An id this store never gave (e.g. from before a reset) says events were missed.
        const stranger = await collect(h, { after: "999999999/0" });
        await stranger.feed.ready;
        assert.equal(stranger.missed(), 1);
        stranger.feed.close();
      } finally {
        live.feed.close();
        await h.close();
      }
    });

    it("records nothing while the deployment's events are off", async () => {
      const h = await harness(factory, { storageOptions: { taskEvents: false } });
      const c = await collect(h);
      try {
        h.s.register("t", () => "ok");
        const id = await h.s.submit({ type: "t" });
        await h.until(id, "succeeded");
        const marker = await h.s.submit({ type: "t", delay: "1h" });
        await h.s.cancel(marker);
        // The buffer is read directly: nothing was recorded, so nothing can arrive later.
        assert.deepEqual(await h.storage.taskEventsAfter("0/0", 100), {
          events: [],
          missed: false,
        });
        assert.deepEqual(c.events, []);
      } finally {
        c.feed.close();
        await h.close();
      }
    });
  });
}
