/**
 * Exact due times (src/worker/exact-timer.ts, `exactDue` in due-duty.ts): on the embedded
 * store and on Redis a delayed task starts at its due millisecond (or at its due time rounded
 * up to a grid), not at the end of the wheel tick it falls in, and never before it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  ManualClock,
  MemoryStorage,
  Scheduler,
  silentLogger,
  type Storage,
} from "../../src/mod.ts";
import { ExactTimer } from "../../src/worker/exact-timer.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const T0 = 1_700_000_000_000;

/** A scheduler on a manual clock whose `noop` handler records the time it started at. */
async function started(exactDue?: boolean | number, storage: Storage = new MemoryStorage()) {
  const clock = new ManualClock(T0);
  const s = new Scheduler({
    storage,
    clock,
    logger: silentLogger,
    pools: { default: 4 },
    ...(exactDue === undefined ? {} : { exactDue }),
  });
  const starts = new Map<string, number>();
  s.register("noop", (_p, ctx) => void starts.set(ctx.id, clock.now()));
  await s.start();
  return { s, clock, starts };
}

/** Advances the clock 1 ms at a time (each step lets the scheduler's reactions settle). */
async function walk(clock: ManualClock, ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) await clock.advance(1);
}

describe("exact due times", () => {
  it("starts each delayed task at its due millisecond on the embedded store, never before", async () => {
    const { s, clock, starts } = await started();
    try {
      const delays = [3, 7, 11, 12, 25, 26, 39];
      const ids = await Promise.all(delays.map((delay) => s.submit({ type: "noop", delay })));
      await walk(clock, 45);
      for (const [i, id] of ids.entries()) {
        assert.equal(starts.get(id), T0 + delays[i], `task due at +${delays[i]} ms`);
      }
    } finally {
      await s.shutdown({ timeoutMs: 0 });
    }
  });

  it("with exactDue off, a task starts at the end of its wheel tick (10 ms), never before", async () => {
    const { s, clock, starts } = await started(false);
    try {
      const id = await s.submit({ type: "noop", delay: 3 });
      await walk(clock, 15);
      assert.equal(starts.get(id), T0 + 10);
    } finally {
      await s.shutdown({ timeoutMs: 0 });
    }
  });

  it("starts each delayed task at its due millisecond on Redis too, never before", async () => {
    const storage = new RedisStorage({
      transport: connectRedisTcp(await testRedisUrl()),
      prefix: uniquePrefix("exact"),
    });
    await storage.init();
    const { s, clock, starts } = await started(undefined, storage);
    try {
      const delays = [3, 8, 11, 25];
      const ids = await Promise.all(delays.map((delay) => s.submit({ type: "noop", delay })));
      // Redis answers in real time: the clock holds at each due instant until that task has
      // started (or 2 s pass, and it starts late: the assertion below fails).
      for (let at = 1; at <= 30; at++) {
        await clock.advance(1);
        const due = ids.filter((_, i) => delays[i] === at);
        await eventually(() => due.every((id) => starts.has(id)), "a start", 2_000)
          .catch(() => {});
      }
      for (const [i, id] of ids.entries()) {
        assert.equal(starts.get(id), T0 + delays[i], `task due at +${delays[i]} ms`);
      }
    } finally {
      await s.shutdown({ timeoutMs: 0 });
      await storage.close();
    }
  });

  it("takes a grid of whole ms up to the tick, naming exactDue otherwise", async () => {
    const { s, clock, starts } = await started(5);
    try {
      const id = await s.submit({ type: "noop", delay: 6 });
      await walk(clock, 12);
      assert.equal(starts.get(id), T0 + 10);
    } finally {
      await s.shutdown({ timeoutMs: 0 });
    }
    for (const bad of [0, 11, 1.5]) {
      assert.throws(
        () => new Scheduler({ exactDue: bad }),
        /exactDue: expected true, false or whole ms from 1 to 10/,
      );
    }
  });

  it("the timer fires once per instant reached, never early, and again for later ones", async () => {
    const clock = new ManualClock(T0);
    const fired: number[] = [];
    const timer = new ExactTimer(clock, () => fired.push(clock.now()));
    timer.add(T0 + 5);
    timer.add(T0 + 5);
    timer.add(T0 + 2);
    timer.add(T0 + 9);
    await clock.advance(1);
    assert.deepEqual(fired, []);
    await clock.advance(1);
    assert.deepEqual(fired, [T0 + 2]);
    await clock.advance(7);
    assert.deepEqual(fired, [T0 + 2, T0 + 5, T0 + 9]);
    timer.add(T0);
    await clock.advance(0);
    assert.deepEqual(fired.at(-1), T0 + 9, "a passed instant fires at once");
    assert.equal(fired.length, 4);
    assert.equal(timer.size, 0);
  });
});
