/**
 * @module suite-flow-keys — flow control keys (a spec's `flowControl`): per-key parallelism
 * across instances, no head-of-line blocking of other keys, FIFO within a key, a per-key
 * start rate exact over every window with prompt wake-ups, cancels and expiries of parked
 * tasks, slots of lost workers, the latest submit's limits, and `waitingFor`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory, T0 } from "./harness.ts";
import { gate } from "../../scripts/tools/wait.ts";
import { leaseOf, newTask } from "../../scripts/tools/new-task.ts";

/** A handler that holds each attempt until released, recording start order and peaks. */
function holder() {
  const waiting = new Map<string, () => void>();
  const state = { running: 0, peak: 0, done: 0, started: [] as string[], waiting };
  const handler = async (payload: { name: string }) => {
    state.peak = Math.max(state.peak, ++state.running);
    state.started.push(payload.name);
    const g = gate();
    waiting.set(payload.name, () => g.open());
    await g.promise;
    waiting.delete(payload.name);
    state.running--;
    state.done++;
  };
  const release = (name: string) => {
    const go = waiting.get(name);
    assert.ok(go, `${name} is not running (running: ${[...waiting.keys()].join(", ")})`);
    go();
  };
  return { state, handler, release };
}

const flow = (key: string, parallelism: number) => ({ key, parallelism });

export function flowKeysSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: flow control keys`, () => {
    it("parallelism 2 is never exceeded by two instances sharing the store", async () => {
      const a = await harness(factory, { pools: { default: 5 } });
      const b = await harness(factory, { pools: { default: 5 }, shared: a.storage });
      try {
        const { state, handler, release } = holder();
        for (const h of [a, b]) h.s.register("hold", handler);
        const ids: string[] = [];
        for (let i = 0; i < 10; i++) {
          ids.push(
            await a.s.submit({
              type: "hold",
              payload: { name: `t${i}` },
              flowControl: flow("tenant", 2),
            }),
          );
        }
        while (state.done < 10) {
          await a.eventually(
            () => state.running === Math.min(2, 10 - state.done),
            `the key's 2 slots to fill (${state.done} done)`,
          );
          assert.ok(state.peak <= 2, `peak ${state.peak} > 2`);
          const before = state.done;
          release([...state.waiting.keys()][0]);
          await a.eventually(() => state.done > before, "the released attempt to end");
        }
        for (const id of ids) await a.until(id, "succeeded");
        assert.equal(state.peak, 2);
        // FIFO within the key.
        assert.deepEqual(state.started, ids.map((_, i) => `t${i}`));
      } finally {
        await b.close();
        await a.close();
      }
    });

    it("a key at its limit does not block another key queued behind it; order within a key holds", async () => {
      const h = await harness(factory, { pools: { default: 4 } });
      try {
        const { state, handler, release } = holder();
        h.s.register("hold", handler);
        const a: string[] = [];
        for (let i = 0; i < 30; i++) {
          a.push(
            await h.s.submit({
              type: "hold",
              payload: { name: `a${i}` },
              flowControl: flow("A", 1),
            }),
          );
        }
        const b = await h.s.submit({
          type: "hold",
          payload: { name: "b" },
          flowControl: flow("B", 1),
        });
        // B starts while A's first attempt still runs.
        await h.until(b, "running");
        assert.deepEqual(state.started.slice().sort(), ["a0", "b"]);
        const parked = await h.s.get(a[1]);
        assert.equal(parked?.status, "queued");
        assert.equal(parked?.waitingFor, "parallelism");
        assert.deepEqual(parked?.flowControl, {
          key: "A",
          parallelism: 1,
          rate: null,
          periodMs: null,
        });
        assert.equal((await h.s.stats()).pools.default.queued, 29);
        release("b");
        for (let i = 0; i < 30; i++) {
          await h.eventually(() => state.waiting.has(`a${i}`), `a${i} to start`);
          assert.equal(state.running, 1, `only a${i} runs`);
          assert.equal((await h.s.get(a[i]))?.waitingFor, null);
          release(`a${i}`);
        }
        await h.until(a[29], "succeeded");
        assert.deepEqual(state.started.filter((n) => n !== "b"), a.map((_, i) => `a${i}`));
      } finally {
        await h.close();
      }
    });

    it("rate 5 per 500ms: never more than 5 starts of the key in any window, the next one promptly", async () => {
      const h = await harness(factory, { pools: { default: 10 } });
      try {
        h.s.register("quick", () => "ok");
        const fc = { key: "r", rate: 5, period: "500ms" };
        // One batch: the claim alone parks 8 of them, and only it can arm the key's wake.
        const batch = Array.from({ length: 13 }, () => ({ type: "quick", flowControl: fc }));
        const ids = (await h.s.submitMany(batch)).map((t) => t.id);
        // Another key in the same pool runs at once: no head-of-line blocking.
        const other = await h.s.submit({ type: "quick" });
        await h.until(other, "succeeded");
        await h.eventually(async () => (await h.s.get(ids[12]))?.waitingFor === "rate");
        // 50 ms steps, far below the backstop poll: only the key's wake-up starts the next.
        for (let i = 0; i < 40; i++) {
          const done = await Promise.all(ids.map((id) => h.s.get(id)));
          if (done.every((t) => t?.status === "succeeded")) break;
          await h.clock.advance(50);
        }
        const starts: number[] = [];
        for (const id of ids) starts.push((await h.until(id, "succeeded", 1_000)).startedAt!);
        starts.sort((x, y) => x - y);
        for (const s of starts) {
          const inWindow = starts.filter((t) => t >= s && t < s + 500).length;
          assert.ok(inWindow <= 5, `${inWindow} starts in [${s - T0}, ${s - T0 + 500}) ms`);
        }
        for (let i = 5; i < starts.length; i++) {
          const due = starts[i - 5] + 500;
          assert.ok(starts[i] >= due, `start ${i} at ${starts[i] - T0} before ${due - T0}`);
          assert.ok(starts[i] - due <= 150, `start ${i} at ${starts[i] - T0} ms, due ${due - T0}`);
        }
      } finally {
        await h.close();
      }
    });

    it("a rate-parked key wakes when its next token frees, while its first tasks still run", async () => {
      const h = await harness(factory, { pools: { default: 10 } });
      try {
        const { state, handler } = holder();
        h.s.register("hold", handler);
        const flowControl = { key: "w", rate: 5, period: "500ms" };
        const batch = Array.from({ length: 7 }, (_, i) => ({
          type: "hold",
          payload: { name: `t${i}` },
          flowControl,
        }));
        const ids = (await h.s.submitMany(batch)).map((t) => t.id);
        await h.eventually(() => state.running === 5, "the first five to start");
        assert.equal((await h.s.get(ids[6]))?.waitingFor, "rate");
        // No task ends: only the key's own wake-up (its next token, due at 500 ms) starts more.
        for (let i = 0; i < 12 && state.running < 7; i++) {
          await h.clock.advance(50);
          await h.eventually(() => true);
        }
        await h.eventually(() => state.running === 7, "the last two to start");
        const started = (await h.s.get(ids[6]))!.startedAt!;
        assert.ok(started - T0 >= 500 && started - T0 <= 650, `started at ${started - T0} ms`);
        for (const go of state.waiting.values()) go();
        for (const id of ids) await h.until(id, "succeeded");
      } finally {
        await h.close();
      }
    });

    it("a cancelled parked task never runs, and the key's next task takes the slot", async () => {
      const h = await harness(factory, { pools: { default: 4 } });
      try {
        const { state, handler, release } = holder();
        h.s.register("hold", handler);
        const submit = (name: string) =>
          h.s.submit({ type: "hold", payload: { name }, flowControl: flow("K", 1) });
        const first = await submit("first");
        const parked = await submit("parked");
        const next = await submit("next");
        await h.until(first, "running");
        await h.eventually(async () => (await h.s.get(parked))?.waitingFor === "parallelism");
        await h.s.cancel(parked);
        const cancelled = await h.s.get(parked);
        assert.equal(cancelled?.status, "cancelled");
        assert.equal(cancelled?.waitingFor, null);
        assert.equal((await h.s.stats()).pools.default.queued, 1);
        release("first");
        await h.until(next, "running");
        release("next");
        await h.until(next, "succeeded");
        assert.equal((await h.s.get(parked))?.status, "cancelled");
        assert.deepEqual(state.started, ["first", "next"]);
      } finally {
        await h.close();
      }
    });

    it("a parked task that expires leaves its key's parked set; the key's next task takes the slot", async () => {
      const h = await harness(factory, { pools: { default: 4 } });
      try {
        const { state, handler, release } = holder();
        h.s.register("hold", handler);
        const submit = (name: string, expiresIn?: number) =>
          h.s.submit({ type: "hold", payload: { name }, flowControl: flow("E", 1), expiresIn });
        const first = await submit("first");
        const parked = await submit("parked", 500);
        const next = await submit("next");
        await h.until(first, "running");
        await h.eventually(async () => (await h.s.stats()).pools.default.parked === 2);
        assert.equal((await h.s.get(parked))?.waitingFor, "parallelism");
        await h.clock.advance(500);
        const expired = await h.until(parked, "expired");
        assert.equal(expired.waitingFor, null);
        const stats = await h.s.stats();
        assert.equal(stats.pools.default.parked, 1, "only `next` is still parked");
        assert.deepEqual(stats.flowKeys, [
          { key: "E", parallelism: 1, rate: null, periodMs: null, running: 1, parked: 1 },
        ]);
        release("first");
        await h.until(next, "running");
        release("next");
        await h.until(next, "succeeded");
        assert.deepEqual(state.started, ["first", "next"], "the expired task never ran");
        await h.eventually(async () => (await h.s.stats()).flowKeys.length === 0, "the key idle");
      } finally {
        await h.close();
      }
    });

    it("GET /stats lists a busy key with its limits, running and parked; idle, it leaves the list", async () => {
      const h = await harness(factory, { pools: { default: 4 } });
      try {
        const { handler, release } = holder();
        h.s.register("hold", handler);
        const names = ["b0", "b1", "b2"];
        for (const name of names) {
          await h.s.submit({ type: "hold", payload: { name }, flowControl: flow("busy", 1) });
        }
        await h.eventually(async () => (await h.s.stats()).pools.default.parked === 2);
        const stats = await h.s.stats();
        assert.deepEqual(stats.flowKeys, [
          { key: "busy", parallelism: 1, rate: null, periodMs: null, running: 1, parked: 2 },
        ]);
        assert.equal(stats.pools.default.queued, 2);
        for (const name of names) {
          await h.eventually(() => h.s.stats().then((s) => s.flowKeys[0]?.running === 1));
          await h.eventually(() => {
            try {
              release(name);
              return true;
            } catch {
              return false;
            }
          }, `${name} to run`);
        }
        await h.eventually(async () => (await h.s.stats()).flowKeys.length === 0, "the key idle");
        assert.equal((await h.s.stats()).pools.default.parked, 0);
      } finally {
        await h.close();
      }
    });

    it("a claim that takes a rate key's last tokens answers when its next token frees", async () => {
      const h = await harness(factory, { start: false });
      try {
        const flowControl = { key: "tok", parallelism: null, rate: 2, periodMs: 1_000 };
        const tasks = Array.from({ length: 6 }, (_, i) => newTask(`r${i}`, T0, { flowControl }));
        await h.storage.enqueue({ tasks, now: T0 });
        const owner = { workerId: "w", leaseMs: 60_000 };
        const first = await h.storage.claim({ pool: "default", max: 10, owner, now: T0 });
        assert.deepEqual(first.map((t) => t.id), ["r0", "r1"]);
        assert.equal(first.heldUntil, T0 + 1_000, "the claim that parked the rest");
        // Another process's wheel fires the key's wake: two tasks go back to ready.
        await h.storage.promoteDue({ now: T0 + 1_000, limit: 10 });
        // This claim meets no parked task of the key, yet drains its tokens: it must say when
        // the next one frees, or its worker would wait for the wheel's next tick.
        const second = await h.storage.claim({ pool: "default", max: 10, owner, now: T0 + 1_000 });
        assert.deepEqual(second.map((t) => t.id), ["r2", "r3"]);
        assert.equal(second.heldUntil, T0 + 2_000);
      } finally {
        await h.close();
      }
    });

    it("a claim whose now is older than a peer's that ran first still counts its window's starts", async () => {
      const h = await harness(factory, { start: false });
      try {
        const flowControl = { key: "late", parallelism: null, rate: 3, periodMs: 1_000 };
        const tasks = Array.from({ length: 8 }, (_, i) => newTask(`l${i}`, T0, { flowControl }));
        await h.storage.enqueue({ tasks, now: T0 });
        const claim = (workerId: string, max: number, now: number) =>
          h.storage.claim({ pool: "default", max, owner: { workerId, leaseMs: 60_000 }, now });
        assert.equal((await claim("a", 3, T0)).length, 3, "the rate's 3 at T0");
        // B's call, read at T0 + 1000, runs first and takes one; C's, read at T0 + 900 (its
        // worker was slow to send it), runs after. In C's window (T0 - 100, T0 + 900] A's
        // three starts still count: C may take none, whatever B's call saw.
        assert.equal((await claim("b", 1, T0 + 1_000)).length, 1);
        const late = await claim("c", 10, T0 + 900);
        assert.deepEqual(late.map((t) => t.id), [], "no start beyond the rate in C's window");
        assert.ok(late.heldUntil !== undefined && late.heldUntil > T0 + 900, "C is told when");
        // From T0 + 1000 on, A's starts are out of every window: two more tokens (B took one).
        await h.storage.promoteDue({ now: T0 + 2_000, limit: 10 });
        assert.equal((await claim("d", 10, T0 + 1_001)).length, 2);
      } finally {
        await h.close();
      }
    });

    it("a batch of completions moves back only as many parked tasks as slots freed", async () => {
      const h = await harness(factory, { start: false });
      try {
        const flowControl = { key: "churn", parallelism: 3, rate: null, periodMs: null };
        const tasks = Array.from({ length: 12 }, (_, i) => newTask(`c${i}`, T0, { flowControl }));
        await h.storage.enqueue({ tasks, now: T0 });
        const owner = { workerId: "w", leaseMs: 60_000 };
        const running = await h.storage.claim({ pool: "default", max: 12, owner, now: T0 });
        assert.equal(running.length, 3);
        for (const t of running.slice(0, 2)) {
          await h.storage.complete({ lease: leaseOf(t, "w"), result: null, now: T0 + 1 });
        }
        const parked = (await h.storage.list({ status: "queued", limit: 100 })).items
          .filter((t) => t.waitingFor !== null);
        assert.equal(parked.length, 9 - 2, "two slots freed: two tasks back in ready");
        const next = await h.storage.claim({ pool: "default", max: 12, owner, now: T0 + 2 });
        assert.deepEqual(next.map((t) => t.id), ["c3", "c4"]);
      } finally {
        await h.close();
      }
    });

    it("a lost worker's slot comes back when its lease is recovered", async () => {
      const h = await harness(factory, { pools: { default: 4 }, leaseMs: 3_000, start: false });
      try {
        h.s.register("quick", () => "ok");
        const fc = flow("L", 1);
        const lost = await h.s.submit({ type: "quick", flowControl: fc });
        const waiting = await h.s.submit({ type: "quick", flowControl: fc });
        // A worker that claims the first task and dies (never renews, never settles).
        const owner = { workerId: "ghost", leaseMs: 1_000 };
        const claimed = await h.storage.claim({ pool: "default", max: 5, owner, now: T0 });
        assert.deepEqual(claimed.map((t) => t.id), [lost]);
        assert.equal((await h.s.get(waiting))?.waitingFor, "parallelism");
        await h.s.start();
        for (let i = 0; i < 20; i++) {
          if ((await h.s.get(waiting))?.status === "succeeded") break;
          await h.clock.advance(500);
        }
        await h.until(waiting, "succeeded", 2_000);
        await h.until(lost, "succeeded", 2_000);
      } finally {
        await h.close();
      }
    });

    it("the latest submit's limits are the key's: raising parallelism starts parked tasks", async () => {
      const h = await harness(factory, { pools: { default: 8 } });
      try {
        const { state, handler } = holder();
        h.s.register("hold", handler);
        for (let i = 0; i < 5; i++) {
          await h.s.submit({ type: "hold", payload: { name: `t${i}` }, flowControl: flow("U", 1) });
        }
        await h.eventually(() => state.running === 1, "one running");
        await h.s.submit({ type: "hold", payload: { name: "t5" }, flowControl: flow("U", 3) });
        await h.eventually(() => state.running === 3, "three running");
        assert.deepEqual(state.started, ["t0", "t1", "t2"]);
        assert.equal(state.peak, 3);
        for (const go of state.waiting.values()) go();
        await h.eventually(() => {
          for (const go of state.waiting.values()) go();
          return state.done === 6;
        }, "all six done");
        assert.equal(state.peak, 3);
      } finally {
        await h.close();
      }
    });

    it("a key forgotten while idle keeps its limit: its queued tasks bring it back", async () => {
      const h = await harness(factory, { pools: { default: 4 }, start: false });
      try {
        const { state, handler, release } = holder();
        h.s.register("hold", handler);
        for (let i = 0; i < 3; i++) {
          await h.s.submit({ type: "hold", payload: { name: `t${i}` }, flowControl: flow("Z", 1) });
        }
        // The recovery duty a day later forgets the idle key (nothing of it runs or is parked).
        await h.storage.recoverExpired({ now: T0 + 86_400_000 + 1_000, limit: 10 });
        await h.s.start();
        for (let i = 0; i < 3; i++) {
          await h.eventually(() => state.waiting.has(`t${i}`), `t${i} to start`);
          assert.equal(state.running, 1, `only t${i} runs`);
          release(`t${i}`);
        }
        await h.eventually(() => state.done === 3, "all three done");
        assert.equal(state.peak, 1);
      } finally {
        await h.close();
      }
    });

    it("refuses bad flowControl naming the field", async () => {
      const h = await harness(factory, { pools: { default: 2 } });
      try {
        const bad: [unknown, string][] = [
          [{ key: "k", parallelism: 0 }, "flowControl.parallelism"],
          [{ key: "k", parallelism: 1.5 }, "flowControl.parallelism"],
          [{ key: "k", parallelism: 2_000_000 }, "flowControl.parallelism"],
          [{ key: "k", rate: 5 }, "flowControl.period"],
          [{ key: "k", period: "1s" }, "flowControl.rate"],
          [{ key: "k", rate: 5, period: "0ms" }, "flowControl.period"],
          [{ key: "", parallelism: 1 }, "flowControl.key"],
          [{ key: "x".repeat(257), parallelism: 1 }, "flowControl.key"],
          [{ key: "k" }, "flowControl"],
        ];
        for (const [fc, path] of bad) {
          await assert.rejects(
            h.s.submit({ type: "t", flowControl: fc as never }),
            (e: { issues?: { path: string }[] }) => e.issues?.[0]?.path === path,
            JSON.stringify(fc),
          );
        }
      } finally {
        await h.close();
      }
    });
  });
}
