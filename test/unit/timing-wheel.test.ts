/**
 * @module timing-wheel.test — behaviour of the hierarchical timing wheel, driven by a manual
 * clock, plus a randomized comparison against a brute-force model and one real-clock check.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, systemClock, type TimerHandle } from "../../src/core/clock.ts";
import { TimingWheel } from "../../src/core/timing-wheel.ts";

const START = 1_700_000_000_000;
const DAY = 86_400_000;

/** A manual clock that also counts what the wheel asks of it. */
class CountingClock extends ManualClock {
  armed = 0;
  unrefed: TimerHandle[] = [];
  override setTimer(fn: () => void, ms: number): TimerHandle {
    this.armed++;
    return super.setTimer(fn, ms);
  }
  unrefTimer(handle: TimerHandle): void {
    this.unrefed.push(handle);
  }
}

/** Seeded PRNG (mulberry32): the same seed gives the same run, so failures replay. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("TimingWheel", () => {
  it("validates options and arguments, quoting the value", () => {
    assert.throws(() => new TimingWheel({ tickMs: 0 }), /tickMs must be a positive integer, got 0/);
    assert.throws(() => new TimingWheel({ tickMs: 2.5 }), /got 2\.5/);
    assert.throws(() => new TimingWheel({ wheelSize: 1 }), /wheelSize .* at least 2, got 1/);
    assert.throws(() => new TimingWheel({ maxPerTurn: 0 }), /maxPerTurn/);
    const wheel = new TimingWheel({ clock: new ManualClock(START) });
    assert.throws(
      () => wheel.schedule("x", NaN, () => {}),
      {
        name: "RangeError",
        message: "TimingWheel.schedule: atMs must be a finite number, got NaN",
      },
    );
    assert.throws(() => wheel.schedule("x", Infinity, () => {}), /got Infinity/);
    assert.throws(() => wheel.schedule("x", "5" as unknown as number, () => {}), /got "5"/);
    assert.throws(() => wheel.schedule("x", START, null as unknown as () => void), /callback/);
    assert.equal(wheel.size, 0);
  });

  it("fires within one tick after the due time and never before it", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock, tickMs: 10 });
    const late: number[] = [];
    const offsets = [1, 9, 10, 11, 15.5, 99, 100, 101, 639, 640, 641, 5_000, 41_000, 123_456];
    for (const [i, offset] of offsets.entries()) {
      const at = START + offset;
      wheel.schedule(`e${i}`, at, () => late.push(clock.now() - at));
    }
    wheel.start();
    await clock.advance(200_000);
    assert.equal(late.length, offsets.length);
    for (const lateness of late) {
      assert.ok(lateness >= 0, `fired ${-lateness} ms early`);
      assert.ok(lateness < 10, `fired ${lateness} ms late`);
    }
  });

  it("does not fire a cancelled entry, and reports what was pending", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    let fired = 0;
    wheel.schedule("a", START + 50, () => fired++);
    wheel.schedule("b", START + 60, () => fired++);
    wheel.start();
    assert.equal(wheel.has("a"), true);
    assert.equal(wheel.cancel("a"), true);
    assert.equal(wheel.cancel("a"), false);
    assert.equal(wheel.cancel("never"), false);
    assert.equal(wheel.has("a"), false);
    assert.equal(wheel.size, 1);
    await clock.advance(1_000);
    assert.equal(fired, 1);
    assert.equal(wheel.size, 0);
  });

  it("replaces a pending id: only the new callback fires, at the new time", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    const log: string[] = [];
    wheel.schedule("job", START + 100, () => log.push(`old@${clock.now() - START}`));
    wheel.schedule("job", START + 300, () => log.push(`new@${clock.now() - START}`));
    assert.equal(wheel.size, 1);
    assert.equal(wheel.dueAt("job"), START + 300);
    assert.equal(wheel.dueAt("missing"), undefined);
    wheel.start();
    await clock.advance(1_000);
    assert.deepEqual(log, ["new@300"]);
  });

  it("moves an entry days away down through the levels and fires it once, on time", async () => {
    const clock = new CountingClock(START);
    const wheel = new TimingWheel({ clock, tickMs: 10, wheelSize: 64 });
    const at = START + 3 * DAY + 7_777;
    const fired: number[] = [];
    wheel.schedule("far", at, () => fired.push(clock.now()));
    wheel.schedule("near", START + 5, () => {});
    wheel.start();
    for (let day = 0; day < 3; day++) {
      await clock.advance(DAY);
      assert.equal(clock.pendingTimers, 1);
    }
    await clock.advance(at - clock.now() - 1);
    assert.deepEqual(fired, [], "not before its time");
    await clock.advance(DAY);
    assert.equal(fired.length, 1);
    assert.ok(fired[0] >= at && fired[0] < at + 10, `fired at ${fired[0] - at} ms from due`);
    // One wake-up per level it passes through, not one per tick.
    assert.ok(clock.armed < 20, `driver armed ${clock.armed} times`);
    assert.equal(clock.pendingTimers, 0);
  });

  it("fires an already-due entry on the next turn, not inside schedule()", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    wheel.start();
    const fired: number[] = [];
    wheel.schedule("past", START - 60_000, () => fired.push(clock.now()));
    wheel.schedule("now", START, () => fired.push(clock.now()));
    assert.deepEqual(fired, []);
    await clock.advance(0);
    assert.deepEqual(fired, [START, START]);
  });

  it("keeps 100k pending entries on one driver timer", async () => {
    const clock = new CountingClock(START);
    const wheel = new TimingWheel({ clock });
    const random = prng(7);
    wheel.start();
    let fired = 0;
    for (let i = 0; i < 100_000; i++) {
      wheel.schedule(`t${i}`, START + 1_000 + Math.floor(random() * 3_600_000), () => fired++);
    }
    assert.equal(wheel.size, 100_000);
    assert.equal(clock.pendingTimers, 1);
    // Re-armed only when an earlier bucket appeared, not once per entry.
    assert.ok(clock.armed < 100, `driver armed ${clock.armed} times`);
    for (let i = 0; i < 100_000; i += 2) wheel.cancel(`t${i}`);
    assert.equal(wheel.size, 50_000);
    assert.equal(clock.pendingTimers, 1);
    await clock.advance(4_000);
    assert.equal(clock.pendingTimers, 1);
    assert.ok(fired > 0 && fired < 50_000);
  });

  it("keeps going when a callback throws or its promise rejects", async () => {
    const clock = new ManualClock(START);
    const errors: [unknown, string][] = [];
    const wheel = new TimingWheel({ clock, onError: (error, id) => errors.push([error, id]) });
    const fired: string[] = [];
    wheel.schedule("a", START + 10, () => fired.push("a"));
    wheel.schedule("boom", START + 10, () => {
      throw new Error("boom");
    });
    wheel.schedule("reject", START + 10, async () => {
      throw new Error("async boom");
    });
    wheel.schedule("b", START + 10, () => fired.push("b"));
    wheel.schedule("c", START + 50, () => fired.push("c"));
    wheel.start();
    await clock.advance(100);
    assert.deepEqual(fired, ["a", "b", "c"]);
    assert.deepEqual(errors.map(([error, id]) => [(error as Error).message, id]), [
      ["boom", "boom"],
      ["async boom", "reject"],
    ]);
  });

  it("bounds each driver turn by maxPerTurn; the backlog fires on following turns", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock, maxPerTurn: 1_000 });
    const perTurn: number[] = [];
    let fired = 0;
    let inTurn = false;
    const onFire = () => {
      // The first callback of a turn counts when the turn's synchronous run is over.
      if (!inTurn) {
        inTurn = true;
        const before = fired;
        queueMicrotask(() => {
          perTurn.push(fired - before);
          inTurn = false;
        });
      }
      fired++;
    };
    for (let i = 0; i < 10_500; i++) wheel.schedule(`t${i}`, START + 500 + (i % 3), onFire);
    wheel.start();
    await clock.advance(1_000);
    assert.equal(fired, 10_500);
    assert.ok(perTurn.length >= 11, `${perTurn.length} turns`);
    assert.ok(perTurn.every((n) => n <= 1_000), `turn sizes ${perTurn}`);
  });

  it("stop() stops firing and start() resumes", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    const fired: string[] = [];
    wheel.schedule("early", START + 100, () => fired.push("early"));
    wheel.schedule("late", START + 200, () => fired.push("late"));
    await clock.advance(150);
    assert.deepEqual(fired, [], "nothing fires before start()");
    wheel.start();
    await clock.advance(0);
    assert.deepEqual(fired, ["early"]);
    wheel.stop();
    assert.equal(clock.pendingTimers, 0);
    await clock.advance(500);
    assert.deepEqual(fired, ["early"]);
    assert.equal(wheel.has("late"), true);
    wheel.start();
    await clock.advance(0);
    assert.deepEqual(fired, ["early", "late"]);
  });

  it("clear() drops every pending entry", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    let fired = 0;
    for (let i = 0; i < 1_000; i++) wheel.schedule(`t${i}`, START + i * 37, () => fired++);
    wheel.start();
    wheel.clear();
    assert.equal(wheel.size, 0);
    assert.equal(wheel.has("t5"), false);
    await clock.advance(100_000);
    assert.equal(fired, 0);
    wheel.schedule("again", clock.now() + 20, () => fired++);
    await clock.advance(30);
    assert.equal(fired, 1);
  });

  it("lets a callback cancel, replace and schedule siblings during a flush", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    const fired: string[] = [];
    wheel.schedule("a", START + 10, () => {
      fired.push("a");
      wheel.cancel("b");
      wheel.schedule("c", START + 5, () => fired.push("c2"));
      wheel.schedule("a", START + 40, () => fired.push("a-again"));
    });
    wheel.schedule("b", START + 10, () => fired.push("b"));
    wheel.schedule("c", START + 10, () => fired.push("c"));
    wheel.start();
    await clock.advance(100);
    assert.deepEqual(fired, ["a", "c2", "a-again"]);
  });

  it("unref: true unrefs every driver timer it arms", async () => {
    const clock = new CountingClock(START);
    const wheel = new TimingWheel({ clock, unref: true });
    wheel.schedule("a", START + 100, () => {});
    wheel.schedule("b", START + 5_000, () => {});
    wheel.start();
    await clock.advance(10_000);
    assert.ok(clock.armed >= 2);
    assert.equal(clock.unrefed.length, clock.armed);
  });

  // Each driver turn costs a real macrotask in ManualClock.advance, so the configurations are
  // separate tests to keep each within the runner's per-test timeout.
  for (
    const config of [
      { seed: 1, ops: 4_000, tickMs: 10, wheelSize: 64, maxPerTurn: 10_000 },
      // The defaults.
      { seed: 4, ops: 2_000, tickMs: 10, wheelSize: 256, maxPerTurn: 10_000 },
      // Two buckets per level: every entry cascades through many levels.
      { seed: 2, ops: 2_000, tickMs: 5, wheelSize: 2, maxPerTurn: 10_000 },
      // Tiny turns: every flush is split across yields.
      { seed: 3, ops: 2_000, tickMs: 7, wheelSize: 4, maxPerTurn: 3 },
    ]
  ) {
    const { seed, tickMs, wheelSize, maxPerTurn } = config;
    const name = `matches a brute-force model (seed ${seed}, tick ${tickMs}, size ${wheelSize}, ` +
      `max ${maxPerTurn})`;
    it(name, { timeout: 30_000 }, () => runModel(config));
  }

  it("fires on the real clock, not before its time", async () => {
    const wheel = new TimingWheel({ clock: systemClock });
    const at = Date.now() + 30;
    const fired = new Promise<number>((resolve) =>
      wheel.schedule("real", at, () => resolve(Date.now()))
    );
    wheel.start();
    let deadline: TimerHandle;
    const timeout = new Promise<never>((_, reject) => {
      deadline = setTimeout(() => reject(new Error("did not fire within 2 s")), 2_000);
    });
    try {
      const firedAt = await Promise.race([fired, timeout]);
      assert.ok(firedAt >= at, `fired ${at - firedAt} ms early`);
    } finally {
      clearTimeout(deadline! as number);
      wheel.stop();
    }
  });
});

interface ModelConfig {
  seed: number;
  ops: number;
  tickMs: number;
  wheelSize: number;
  maxPerTurn: number;
}

/**
 * Thousands of random operations, each mirrored in a plain Map; every firing is checked
 * against the model (no early, late, double or stale fires) and nothing due may stay pending.
 */
async function runModel({ seed, ops, tickMs, wheelSize, maxPerTurn }: ModelConfig): Promise<void> {
  const random = prng(seed);
  const clock = new ManualClock(START + seed * 1_234);
  const wheel = new TimingWheel({ clock, tickMs, wheelSize, maxPerTurn });
  const model = new Map<string, { at: number; version: number; earliest: number }>();
  const failures: string[] = [];
  let version = 0;
  let fires = 0;
  const ids = Array.from({ length: 100 }, (_, i) => `id${i}`);
  wheel.start();

  for (let op = 0; op < ops; op++) {
    const roll = random();
    const id = ids[Math.floor(random() * ids.length)];
    if (roll < 0.55) {
      const r = random();
      const delay = r < 0.1
        ? -Math.floor(random() * 500)
        : r < 0.15
        ? Math.floor(random() * 3 * DAY)
        : Math.floor(random() * 2_500) + (random() < 0.2 ? 0.25 : 0);
      const at = clock.now() + delay;
      const v = ++version;
      model.set(id, { at, version: v, earliest: Math.max(at, clock.now()) });
      wheel.schedule(id, at, () => {
        const now = clock.now();
        const want = model.get(id);
        if (!want || want.version !== v) failures.push(`${id} v${v}: stale or double fire`);
        else if (now < want.at) failures.push(`${id}: ${want.at - now} ms early`);
        else if (now >= want.earliest + tickMs) failures.push(`${id}: ${now - want.at} ms late`);
        model.delete(id);
        fires++;
      });
    } else if (roll < 0.75) {
      assert.equal(wheel.cancel(id), model.delete(id), `cancel(${id})`);
    } else if (roll < 0.9) {
      assert.equal(wheel.dueAt(id), model.get(id)?.at, `dueAt(${id})`);
      assert.equal(wheel.size, model.size);
    } else {
      const r = random();
      if (r < 0.1) {
        // The process stalled (a long GC, a laptop lid): time leaps with no timer firing, and
        // everything now overdue must fire on the next turn, in whatever order.
        clock.jump(clock.now() + Math.floor(random() * 20_000));
        for (const entry of model.values()) {
          entry.earliest = Math.max(entry.earliest, clock.now());
        }
        continue;
      }
      const step = r < 0.15 ? Math.floor(random() * DAY) : Math.floor(random() * 300);
      await clock.advance(step);
      for (const [key, entry] of model) {
        if (entry.earliest + tickMs <= clock.now()) failures.push(`${key}: missed`);
      }
    }
    assert.deepEqual(failures, [], `seed ${seed}, op ${op}`);
  }
  await clock.advance(4 * DAY);
  assert.deepEqual(failures, [], `seed ${seed}, final drain`);
  assert.equal(model.size, 0, `seed ${seed}: ${model.size} never fired`);
  assert.equal(wheel.size, 0);
  assert.ok(fires > ops / 5, `seed ${seed}: only ${fires} fires`);
}
