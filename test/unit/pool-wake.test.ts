/**
 * A pool's wake-ups at the times its claims answer (`heldUntil`: when a rate limit next
 * allows a start; no event announces that moment): a later time asked for while an earlier
 * wake is armed is kept, and claimed at, even when the earlier wake's claim says nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../src/core/clock.ts";
import { WorkerPool } from "../../src/worker/pool.ts";
import { LogFlusher } from "../../src/worker/log-flusher.ts";
import { silentLogger } from "../../src/worker/middleware.ts";
import type { Claimed, QueryStore, QueueStore } from "../../src/storage/storage.ts";
import { MemoryStorage } from "../../src/storage/memory/memory-storage.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import { eventually } from "../../scripts/tools/wait.ts";

type PoolStore = QueueStore & Pick<QueryStore, "get">;

/** A store whose claims answer no task and the scripted `heldUntil`s, logging when each ran. */
function scriptedStore(answers: (number | undefined)[]) {
  const claims: number[] = [];
  const storage = new Proxy({} as PoolStore, {
    get: (_, name) =>
      name === "claim"
        ? ({ now }: { now: number }): Promise<Claimed> => {
          claims.push(now);
          const out: Claimed = [];
          const at = answers.shift();
          if (at !== undefined) out.heldUntil = at;
          return Promise.resolve(out);
        }
        : () => Promise.reject(new Error(`unexpected ${String(name)}`)),
  });
  return { storage, claims };
}

/** A pool over `storage` (4 slots, no handlers unless given). */
function pool(
  storage: PoolStore,
  clock: ManualClock,
  { name = "p", size = 4, leaseMs = 10_000, handlers = new Map() } = {},
) {
  const running = new Map();
  return new WorkerPool(name, size, {
    storage,
    clock,
    logger: silentLogger,
    workerId: "w",
    leaseMs,
    handlers,
    middleware: [],
    running,
    logs: new LogFlusher(storage, clock, running, silentLogger),
    onAttempt: () => {},
    wantsAttempts: () => false,
    onIdle: () => {},
  });
}

describe("pool wake-ups at heldUntil", () => {
  it("claims at a later wake asked for while an earlier one was armed", async () => {
    const clock = new ManualClock(1_000);
    // Start: wake at 1100. An event's claim: wake at 1300. The 1100 claim: nothing to say.
    const { storage, claims } = scriptedStore([1_100, 1_300, undefined, undefined]);
    const p = pool(storage, clock);
    p.start();
    await clock.advance(0);
    p.wake();
    await clock.advance(0);
    assert.deepEqual(claims, [1_000, 1_000]);
    await clock.advance(400);
    assert.deepEqual(claims, [1_000, 1_000, 1_100, 1_300]);
    p.stop();
  });

  it("an earlier wake asked for replaces the armed one, which still fires after", async () => {
    const clock = new ManualClock(1_000);
    const { storage, claims } = scriptedStore([1_300, 1_100, undefined, undefined]);
    const p = pool(storage, clock);
    p.start();
    await clock.advance(0);
    p.wake();
    await clock.advance(0);
    await clock.advance(400);
    assert.deepEqual(claims, [1_000, 1_000, 1_100, 1_300]);
    p.stop();
  });

  it("a stopped pool arms nothing it was asked for", async () => {
    const clock = new ManualClock(1_000);
    const { storage, claims } = scriptedStore([1_100, 1_300]);
    const p = pool(storage, clock);
    p.start();
    await clock.advance(0);
    p.wake();
    await clock.advance(0);
    p.stop();
    await clock.advance(1_000);
    assert.deepEqual(claims, [1_000, 1_000]);
    assert.equal(clock.pendingTimers, 0);
  });
});

describe("pool wake-ups while the second lane's claim is in flight", () => {
  it("claims work announced during that claim, though the claim came back short", async () => {
    const clock = new ManualClock(1_000);
    const store = new MemoryStorage();
    // The second lane's claim runs at once but its answer waits for `release`.
    let hold: Promise<void> | null = null;
    let release = () => {};
    let claimsRun = 0;
    const storage = new Proxy(store, {
      get(target, name, receiver) {
        if (name !== "claim") return Reflect.get(target, name, receiver);
        return async (p: Parameters<MemoryStorage["claim"]>[0]) => {
          const answer = await target.claim(p);
          claimsRun++;
          if (hold) await hold;
          return answer;
        };
      },
    }) as unknown as PoolStore;
    const started: string[] = [];
    const handlers = new Map([["t", {
      handler: (_: unknown, ctx: { id: string }) => {
        started.push(ctx.id);
        return new Promise(() => {}); // holds its slot
      },
    }]]);
    const p = pool(storage, clock, { name: "default", size: 32, leaseMs: 60_000, handlers });
    const submit = (ids: string[]) =>
      store.enqueue({
        tasks: ids.map((id) => newTask(id, clock.now(), { type: "t" })),
        now: clock.now(),
      });
    // 17 tasks: the first lane (16 slots) comes back full, so the second lane claims the 17th.
    await submit(Array.from({ length: 17 }, (_, i) => `a${i}`));
    p.start();
    p.wake();
    await eventually(() => started.length === 17, "the first 17 started");
    // The second lane's next claim (after a wake) finds nothing, and its answer is held ...
    hold = new Promise((r) => release = r);
    const before = claimsRun;
    p.wake();
    await eventually(() => claimsRun === before + 1, "the second lane's claim ran");
    // ... while a task is queued and announced (the first lane is full: the wake goes to it).
    await submit(["late"]);
    p.wake();
    release();
    hold = null;
    await eventually(() => started.includes("late"), "the late task started", 2_000);
    p.stop();
  });
});
