/**
 * @module suite-pool-limits — cluster-wide pool limits: global concurrency across instances
 * sharing one store, a start rate exact over every sliding window, the wake-ups both need,
 * and start-up limits that never undo an operator's change. Run from suite-pools.ts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type Harness,
  harness,
  partitionsOf,
  type StorageFactory,
  T0,
  TOGETHER,
} from "./harness.ts";
import { gate } from "../../scripts/tools/wait.ts";
import { Faults } from "../helpers/faulty-storage.ts";
import { newTask } from "../../scripts/tools/new-task.ts";

/** A handler that holds each attempt until the test lets it go, counting the peak. */
function holder() {
  const waiting: (() => void)[] = [];
  const state = { running: 0, peak: 0, done: 0, waiting };
  const handler = async () => {
    state.peak = Math.max(state.peak, ++state.running);
    const g = gate();
    waiting.push(() => g.open());
    await g.promise;
    state.running--;
    state.done++;
  };
  return { state, handler };
}

/**
 * A limit as these tests set it: on a partitioned store each partition enforces a share of
 * a pool's limit (they sum to it), so the tests give the pool `n` times the limit and keep
 * their tasks in one partition (TOGETHER), whose share is then the limit they check. The
 * shares' sum across partitions is tested in test/unit/partitioned-storage.test.ts.
 */
const scaled = (h: Harness, limit: number) => limit * partitionsOf(h);

/** Two started Schedulers over one store, each with `default` of size `size`. */
async function pair(factory: StorageFactory, size: number): Promise<[Harness, Harness]> {
  const a = await harness(factory, { pools: { default: size } });
  const b = await harness(factory, { pools: { default: size }, shared: a.storage });
  return [a, b];
}

export function poolLimitsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: cluster-wide pool limits`, () => {
    it("globalConcurrency 3 over two instances of size 5 never runs more than 3; null lets 10 run", async () => {
      const [a, b] = await pair(factory, 5);
      try {
        const { state, handler } = holder();
        for (const h of [a, b]) h.s.register("hold", handler);
        await a.s.setPoolLimits("default", { globalConcurrency: scaled(a, 3) });
        const ids: string[] = [];
        for (let i = 0; i < 12; i++) ids.push(await a.s.submit({ type: "hold", ...TOGETHER }));
        // Let them go one at a time: each freed slot is taken again, never past the limit.
        while (state.done < 12) {
          await a.eventually(
            () => state.running === Math.min(3, 12 - state.done),
            `the limit to fill (${state.done} done)`,
          );
          assert.ok(state.peak <= 3, `peak ${state.peak} > 3`);
          const before = state.done;
          state.waiting.shift()!();
          await a.eventually(() => state.done > before, "the released attempt to end");
        }
        for (const id of ids) await a.until(id, "succeeded");
        assert.equal(state.peak, 3);
        assert.equal((await a.s.stats()).pools.default.globalConcurrency, scaled(a, 3));

        await b.s.setPoolLimits("default", { globalConcurrency: null });
        for (let i = 0; i < 12; i++) await b.s.submit({ type: "hold" });
        await a.eventually(() => state.running === 10, "both instances full: 10 running");
        assert.equal((await a.s.stats()).pools.default.globalConcurrency, null);
        await a.eventually(() => {
          for (const release of state.waiting.splice(0)) release();
          return state.done === 24;
        }, "all 24 done");
      } finally {
        await b.close();
        await a.close();
      }
    });

    it("waitingFor reads pool_limit, rate or paused while the pool holds a queued task back", async () => {
      const h = await harness(factory, { pools: { default: 4 } });
      try {
        const { state, handler } = holder();
        h.s.register("hold", handler);
        h.s.register("quick", () => "ok");
        await h.s.setPoolLimits("default", { globalConcurrency: scaled(h, 1) });
        const first = await h.s.submit({ type: "hold", ...TOGETHER });
        await h.until(first, "running");
        const second = await h.s.submit({ type: "hold", ...TOGETHER });
        assert.equal((await h.s.get(second))?.waitingFor, "pool_limit");
        const listed = (await h.s.list({ status: "queued" })).items;
        assert.deepEqual(listed.map((t) => [t.id, t.waitingFor]), [[second, "pool_limit"]]);
        state.waiting.shift()!();
        await h.until(second, "running");
        assert.equal((await h.s.get(second))?.waitingFor, null);
        state.waiting.shift()!();
        await h.until(second, "succeeded");

        // One start per hour: the second quick task waits for the rate window.
        await h.s.setPoolLimits("default", {
          globalConcurrency: null,
          rateLimit: { max: scaled(h, 1), per: "1h" },
        });
        await h.until(await h.s.submit({ type: "quick", ...TOGETHER }), "succeeded");
        const rated = await h.s.submit({ type: "quick", ...TOGETHER });
        assert.equal((await h.s.get(rated))?.waitingFor, "rate");
        await h.s.pause("default");
        assert.equal((await h.s.get(rated))?.waitingFor, "paused");
        await h.s.resume("default");
        await h.s.setPoolLimits("default", { rateLimit: null });
        const ran = await h.until(rated, "succeeded");
        assert.equal(ran.waitingFor, null);
      } finally {
        await h.close();
      }
    });

    it("a slot freed while an instance is full wakes another instance's claim at once", async () => {
      // A takes every global slot; B has room but the limit refuses it. Cancelling one of
      // A's attempts frees the slot; A's own claims are refused from then on (a fault), so
      // only the freed slot's `ready` event can start the queued task on B.
      const faults = new Faults();
      const a = await harness(factory, { pools: { default: 3 }, faults });
      const b = await harness(factory, { pools: { default: 5 }, shared: a.storage, start: false });
      try {
        const hold = gate();
        const ranOn: string[] = [];
        for (const h of [a, b]) {
          const who = h === a ? "a" : "b";
          h.s.register("hold", async () => {
            ranOn.push(who);
            await hold.promise;
          });
        }
        await a.s.setPoolLimits("default", { globalConcurrency: scaled(a, 3) });
        const held = [];
        for (let i = 0; i < 3; i++) held.push(await a.s.submit({ type: "hold", ...TOGETHER }));
        for (const id of held) await a.until(id, "running");
        await b.s.start();
        const queued = await b.s.submit({ type: "hold", ...TOGETHER });
        await b.eventually(async () => (await b.s.get(queued))?.status === "queued");
        assert.deepEqual(ranOn, ["a", "a", "a"]);
        faults.inject("claim", "reject");
        await a.s.cancel(held[0]);
        // Neither clock moves: no poll can start it, only the wake-up.
        await b.until(queued, "running");
        assert.deepEqual(ranOn, ["a", "a", "a", "b"]);
        hold.open();
      } finally {
        await b.close();
        await a.close();
      }
    });

    it("rateLimit 5 per 500ms: never more than 5 starts in any window, the next start as soon as one leaves it", async () => {
      const h = await harness(factory, { pools: { default: 10 } });
      try {
        h.s.register("quick", () => "ok");
        await h.s.setPoolLimits("default", { rateLimit: { max: scaled(h, 5), per: "500ms" } });
        const ids: string[] = [];
        for (let i = 0; i < 13; i++) ids.push(await h.s.submit({ type: "quick", ...TOGETHER }));
        // 50 ms steps, far below the 5 s backstop poll: only the pool's own wake-up (at the
        // time the claim answered) can start the next batch in time.
        const steps = 33;
        for (let i = 0; i < steps; i++) {
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
        // Batch k starts when batch k-1's first start leaves the window (due), promptly.
        for (let i = 5; i < starts.length; i++) {
          const due = starts[i - 5] + 500;
          assert.ok(starts[i] >= due, `start ${i} at ${starts[i] - T0} before ${due - T0}`);
          assert.ok(starts[i] - due <= 150, `start ${i} at ${starts[i] - T0} ms, due ${due - T0}`);
        }
        const stats = (await h.s.stats()).pools.default;
        assert.deepEqual(stats.rateLimit, { max: scaled(h, 5), perMs: 500 });
        assert.equal(stats.startsInWindow, 3);
      } finally {
        await h.close();
      }
    });

    it("rateLimit: a claim whose now is older than a peer's that ran first still counts its window's starts", async () => {
      const h = await harness(factory, { start: false });
      try {
        await h.storage.setPoolLimits({
          pool: "default",
          limits: { rateLimit: { max: scaled(h, 3), perMs: 1_000 } },
        });
        const tasks = Array.from(
          { length: 8 },
          (_, i) => newTask(`p${i}`, T0, { partitionKey: TOGETHER.partitionKey }),
        );
        await h.storage.enqueue({ tasks, now: T0 });
        const claim = (workerId: string, max: number, now: number) =>
          h.storage.claim({ pool: "default", max, owner: { workerId, leaseMs: 60_000 }, now });
        assert.equal((await claim("a", 3, T0)).length, 3, "the rate's 3 at T0");
        // B's call (read at T0 + 1000) runs before C's (read at T0 + 900, sent late): A's
        // starts are still in C's window, so C takes none (see the flow key's case).
        assert.equal((await claim("b", 1, T0 + 1_000)).length, 1);
        assert.equal((await claim("c", 10, T0 + 900)).length, 0, "no start beyond the rate");
        assert.equal((await claim("d", 10, T0 + 1_001)).length, 2, "B took one of three");
      } finally {
        await h.close();
      }
    });

    it("limits given at start are stored only where none is: an operator's change survives a restart", async () => {
      const pools = (global: number) => ({
        default: { concurrency: 2, globalConcurrency: global, rateLimit: { max: 9, per: "1s" } },
      });
      const a = await harness(factory, { pools: pools(3) });
      const b = await harness(factory, { pools: pools(4), shared: a.storage, start: false });
      try {
        const limits = async (h: Harness) => {
          const c = (await h.storage.poolControls()).find((x) => x.pool === "default");
          return { global: c?.globalConcurrency, rate: c?.rateLimit };
        };
        assert.deepEqual(await limits(a), { global: 3, rate: { max: 9, perMs: 1000 } });
        await a.s.setPoolLimits("default", { globalConcurrency: 7, rateLimit: null });
        await a.s.shutdown({ timeoutMs: 0 });
        // B restarts the pool with other start-up limits: the stored global limit stays, and
        // the rate limit removed by the operator is absent again, so B's is stored.
        await b.s.start();
        assert.deepEqual(await limits(b), { global: 7, rate: { max: 9, perMs: 1000 } });
      } finally {
        await b.close();
        await a.close();
      }
    });

    it("refuses bad limits naming the field, and an unknown pool", async () => {
      const h = await harness(factory, { pools: { default: 2 } });
      try {
        const bad: [unknown, string][] = [
          [{ globalConcurrency: 0 }, "globalConcurrency"],
          [{ globalConcurrency: 1.5 }, "globalConcurrency"],
          [{ rateLimit: { max: 0, per: "1s" } }, "rateLimit.max"],
          [{ rateLimit: { max: 5, per: "0ms" } }, "rateLimit.per"],
          [{ rateLimit: { max: 5, per: "soon" } }, "rateLimit.per"],
          [{ burst: 2 }, "burst"],
        ];
        for (const [spec, path] of bad) {
          await assert.rejects(
            h.s.setPoolLimits("default", spec as never),
            (e: { issues?: { path: string }[] }) => e.issues?.[0]?.path === path,
            JSON.stringify(spec),
          );
        }
        await assert.rejects(h.s.setPoolLimits("nope", { globalConcurrency: 2 }), /nope/);
        const c = (await h.storage.poolControls()).find((x) => x.pool === "default");
        assert.equal(c?.globalConcurrency ?? null, null);
      } finally {
        await h.close();
      }
    });
  });
}
