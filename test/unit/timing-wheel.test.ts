/**
 * @module timing-wheel.test — behaviour of the hierarchical timing wheel (entries by string id
 * and by integer handle), driven by a manual clock, plus a randomized comparison against a
 * brute-force model and one real-clock check.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, systemClock, type TimerHandle } from "../../src/core/clock.ts";
import { TimingWheel } from "../../src/core/timing-wheel.ts";
import { prng } from "../../scripts/tools/prng.ts";

const START = 1_700_000_000_000;
const DAY = 86_400_000;

/** A manual clock that also counts what the wheel asks of it. */
class CountingClock extends ManualClock {
  armed = 0;
  reads = 0;
  unrefed: TimerHandle[] = [];
  override now(): number {
    this.reads++;
    return super.now();
  }
  override setTimer(fn: () => void, ms: number): TimerHandle {
    this.armed++;
    return super.setTimer(fn, ms);
  }
  unrefTimer(handle: TimerHandle): void {
    this.unrefed.push(handle);
  }
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

  it("add/remove/pending by handle: safe integers, true only while pending", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    const fired: string[] = [];
    const a = wheel.add(START + 50, () => fired.push("a"));
    const b = wheel.add(START + 60, () => fired.push("b"));
    const c = wheel.add(START + 70, () => fired.push("c"));
    for (const h of [a, b, c]) assert.ok(Number.isSafeInteger(h) && h >= 0, `handle ${h}`);
    assert.equal(new Set([a, b, c]).size, 3);
    wheel.schedule("id", START + 80, () => fired.push("id"));
    assert.equal(wheel.size, 4, "size counts handles and ids");
    assert.equal(wheel.pending(a), true);
    assert.equal(wheel.remove(a), true);
    assert.equal(wheel.remove(a), false);
    assert.equal(wheel.pending(a), false);
    assert.equal(wheel.size, 3);
    wheel.start();
    await clock.advance(65);
    assert.deepEqual(fired, ["b"]);
    assert.equal(wheel.pending(b), false, "not pending once fired");
    assert.equal(wheel.remove(b), false);
    assert.equal(wheel.pending(c), true);
    await clock.advance(100);
    assert.deepEqual(fired, ["b", "c", "id"]);
    assert.equal(wheel.size, 0);
  });

  it("a stale handle is false and never touches the entry that reused its slot", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    const fired: string[] = [];
    // Removed, then its slot reused (the most recently freed slot is taken first).
    const old = wheel.add(START + 100, () => fired.push("old"));
    wheel.remove(old);
    const reused = wheel.add(START + 100, () => fired.push("reused"));
    assert.notEqual(reused, old);
    assert.equal(wheel.pending(old), false);
    assert.equal(wheel.remove(old), false);
    assert.equal(wheel.pending(reused), true);
    // Fired, then its slot reused, by a handle and by an id.
    wheel.start();
    await clock.advance(100);
    assert.deepEqual(fired, ["reused"]);
    const next = wheel.add(START + 300, () => fired.push("next"));
    wheel.schedule("by-id", START + 300, () => fired.push("by-id"));
    for (const stale of [old, reused]) {
      assert.equal(wheel.remove(stale), false);
      assert.equal(wheel.pending(stale), false);
    }
    assert.equal(wheel.pending(next), true);
    assert.equal(wheel.size, 2);
    // Numbers that were never handles.
    for (const junk of [-1, 0, 1.5, NaN, Infinity, 2 ** 53, next + 1, "1" as unknown as number]) {
      assert.equal(wheel.remove(junk), false, `remove(${String(junk)})`);
      assert.equal(wheel.pending(junk), false, `pending(${String(junk)})`);
    }
    await clock.advance(1_000);
    assert.deepEqual(fired, ["reused", "next", "by-id"]);
  });

  it("validates add() arguments and reports a failing handle entry as #<handle>", async () => {
    const clock = new ManualClock(START);
    const errors: [string, string][] = [];
    const wheel = new TimingWheel({
      clock,
      onError: (error, id) => errors.push([(error as Error).message, id]),
    });
    assert.throws(() => wheel.add(NaN, () => {}), {
      name: "RangeError",
      message: "TimingWheel.add: atMs must be a finite number, got NaN",
    });
    assert.throws(() => wheel.add(START, 5 as unknown as () => void), /callback must be a func/);
    assert.throws(() => wheel.firesAt(Infinity), /firesAt: atMs must be a finite number/);
    assert.equal(wheel.size, 0);
    const fired: string[] = [];
    const boom = wheel.add(START + 10, () => {
      throw new Error("boom");
    });
    wheel.add(START + 10, () => fired.push("after"));
    wheel.add(START + 10, async () => {
      throw new Error("async boom");
    });
    wheel.start();
    await clock.advance(50);
    assert.deepEqual(fired, ["after"]);
    assert.equal(errors.length, 2);
    assert.deepEqual(errors[0], ["boom", `#${boom}`]);
    assert.equal(errors[1][0], "async boom");
    assert.match(errors[1][1], /^#\d+$/);
  });

  it("clear() drops entries by handle too, and their handles stay stale", async () => {
    const clock = new ManualClock(START);
    const wheel = new TimingWheel({ clock });
    let fired = 0;
    const before = Array.from({ length: 100 }, (_, i) => wheel.add(START + 10 * i, () => fired++));
    wheel.schedule("id", START + 5, () => fired++);
    wheel.start();
    wheel.clear();
    assert.equal(wheel.size, 0);
    const after = Array.from({ length: 100 }, (_, i) => wheel.add(START + 10 * i, () => fired++));
    for (const h of before) {
      assert.equal(wheel.pending(h), false);
      assert.equal(wheel.remove(h), false);
    }
    assert.ok(after.every((h) => wheel.pending(h)));
    await clock.advance(2_000);
    assert.equal(fired, 100);
  });

  it("does not read the clock for each add or schedule on a busy wheel", () => {
    const clock = new CountingClock(START);
    const wheel = new TimingWheel({ clock });
    wheel.start();
    const reads = clock.reads;
    for (let i = 0; i < 10_000; i++) {
      wheel.add(START + 1_000 + ((i * 7_919) % 3_600_000), () => {});
      wheel.schedule(`t${i}`, START + 1_000 + ((i * 104_729) % 3_600_000), () => {});
    }
    // Only re-arming for an earlier bucket reads it; the first add found an idle wheel.
    assert.ok(clock.reads - reads <= clock.armed + 1, `${clock.reads - reads} reads`);
    assert.ok(clock.reads - reads < 50, `${clock.reads - reads} reads for 20k inserts`);
  });

  it("firesAt(x): x's tick start, >= x, one per tick; entries there fire together", async () => {
    // A fractional clock, as performance.timeOrigin + performance.now() gives.
    for (const [start, tickMs] of [[START + 0.3721, 10], [START, 7], [1_234.5, 1]]) {
      const clock = new ManualClock(start);
      const wheel = new TimingWheel({ clock, tickMs });
      const random = prng(11);
      for (let i = 0; i < 2_000; i++) {
        const x = start + (random() - 0.1) * 100_000 + (i % 3 === 0 ? 0 : random());
        const at = wheel.firesAt(x);
        assert.ok(at >= x, `firesAt(${x}) = ${at} is before it`);
        assert.ok(at - x < tickMs, `firesAt(${x}) = ${at} is a tick or more after it`);
        assert.ok(at % tickMs === 0, `tick starts are whole multiples of the tick (${at})`);
        assert.equal(wheel.firesAt(at), at, `firesAt(firesAt(${x}))`);
        assert.equal(wheel.firesAt(at - tickMs + 0.001), at, "anywhere within the tick");
        assert.equal(wheel.firesAt(at + 0.001), at + tickMs, "just after it: the next tick");
      }
      // Entries for x and for firesAt(x) are due in the same tick, so fire in the same driver
      // turn (callbacks of one turn run back to back, before any microtask).
      let turn = 0;
      let inTurn = false;
      const fired: [string, number][] = [];
      const log = (name: string) => () => {
        if (!inTurn) {
          inTurn = true;
          turn++;
          queueMicrotask(() => (inTurn = false));
        }
        fired.push([name, turn]);
      };
      const xs = [start + 1, start + 333.3, start + 5_000.01, start + 86_400_123.4];
      for (const [i, x] of xs.entries()) {
        wheel.add(x, log(`x${i}`));
        wheel.schedule(`tick:${x}`, wheel.firesAt(x), log(`tick${i}`));
      }
      wheel.start();
      for (const [i, x] of xs.entries()) {
        const tickStart = wheel.firesAt(x);
        await clock.advance(tickStart - clock.now() - 0.001);
        assert.equal(fired.length, 2 * i, `nothing fires before ${tickStart}`);
        // The driver sleeps whole ms (rounded up), so it wakes within 1 ms of the tick start.
        await clock.advance(1);
        assert.deepEqual(fired.slice(2 * i).sort(), [[`tick${i}`, turn], [`x${i}`, turn]]);
      }
      wheel.stop();
    }
  });

  it("keeps due times exact across 2 ** 32 ticks and long stalls", async () => {
    const clock = new ManualClock(START);
    // 1 ms ticks: 2 ** 32 ticks is 49.7 days; with 2 buckets per level, levels whose buckets
    // span more than 2 ** 32 ticks are reached at 2 ** 33 ms (99 days).
    for (const wheelSize of [256, 2]) {
      const wheel = new TimingWheel({ clock, tickMs: 1, wheelSize });
      const base = clock.now();
      const late: Record<string, number> = {};
      const add = (name: string, at: number) =>
        wheel.add(at, () => {
          late[name] = clock.now() - at;
        });
      add("soon", base + 10);
      add("49.8 days", base + 2 ** 32 + 86_400_000 * 0.1);
      add("200 days", base + 200 * DAY + 0.5);
      add("2**41 ms", base + 2 ** 41 + 3);
      wheel.schedule("3 years", base + 3 * 365 * DAY, () => {
        late["3 years"] = clock.now() - (base + 3 * 365 * DAY);
      });
      wheel.start();
      await clock.advance(50 * DAY);
      assert.deepEqual(Object.keys(late).sort(), ["49.8 days", "soon"], `size ${wheelSize}`);
      // Overdue by more than 2 ** 32 ticks relative to the buckets fired so far.
      add("100 days overdue", base - 100 * DAY);
      await clock.advance(0);
      assert.equal(late["100 days overdue"], 150 * DAY);
      await clock.advance(50 * DAY);
      assert.equal(Object.keys(late).length, 3);
      // Stopped for 60 days: on restart whatever fell due fires at once, the rest stays put.
      wheel.stop();
      clock.jump(clock.now() + 150 * DAY);
      const stalled = clock.now();
      add("overdue on restart", stalled - 5);
      wheel.start();
      await clock.advance(0);
      assert.equal(late["200 days"], stalled - (base + 200 * DAY + 0.5));
      assert.ok(late["overdue on restart"] >= 5);
      assert.equal(late["3 years"], undefined);
      await clock.advance(4 * 365 * DAY);
      assert.equal(late["2**41 ms"], undefined, "2 ** 41 ms is 69 years");
      await clock.advance(base + 2 ** 41 + 3 - clock.now() - 1);
      assert.equal(late["2**41 ms"], undefined);
      await clock.advance(1);
      for (const [name, lateness] of Object.entries(late)) {
        if (name === "200 days" || name.includes("overdue")) continue;
        assert.ok(
          lateness >= 0 && lateness < 1,
          `${name}: ${lateness} ms late (size ${wheelSize})`,
        );
      }
      assert.equal(Object.keys(late).length, 7);
      assert.equal(wheel.size, 0);
      wheel.stop();
    }
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
 * About 40% of the operations address entries by handle (key `h<handle>` in the model), among
 * them removes and checks of handles that are stale by then, so a stale handle that touched a
 * newer entry would show up as a missed fire or a wrong answer.
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
  /** Handles issued so far (the latest 300), pending or stale. */
  const handles: number[] = [];
  const pickHandle = () => handles[Math.floor(random() * handles.length)];
  wheel.start();

  /** The callback for model entry `key`, version `v`, whose tick starts at `tickStart`. */
  const check = (key: string, v: number, tickStart: number) => () => {
    const now = clock.now();
    const want = model.get(key);
    if (!want || want.version !== v) failures.push(`${key} v${v}: stale or double fire`);
    else if (now < want.at) failures.push(`${key}: ${want.at - now} ms early`);
    else if (now < tickStart) failures.push(`${key}: before firesAt, ${tickStart - now} ms`);
    else if (now >= want.earliest + tickMs) failures.push(`${key}: ${now - want.at} ms late`);
    model.delete(key);
    fires++;
  };

  for (let op = 0; op < ops; op++) {
    const roll = random();
    const id = ids[Math.floor(random() * ids.length)];
    const byHandle = random() < 0.4;
    if (roll < 0.55) {
      const r = random();
      const delay = r < 0.1
        ? -Math.floor(random() * 500)
        : r < 0.15
        ? Math.floor(random() * 3 * DAY)
        : Math.floor(random() * 2_500) + (random() < 0.2 ? 0.25 : 0);
      const at = clock.now() + delay;
      const tickStart = wheel.firesAt(at);
      assert.ok(tickStart >= at && tickStart - at < tickMs, `firesAt(${at}) = ${tickStart}`);
      const v = ++version;
      const entry = { at, version: v, earliest: Math.max(at, clock.now()) };
      if (byHandle) {
        let key = "";
        const handle = wheel.add(at, () => check(key, v, tickStart)());
        key = `h${handle}`;
        assert.equal(model.has(key), false, `handle ${handle} issued twice while pending`);
        model.set(key, entry);
        handles.push(handle);
        if (handles.length > 300) handles.shift();
      } else {
        model.set(id, entry);
        wheel.schedule(id, at, check(id, v, tickStart));
      }
    } else if (roll < 0.75) {
      if (byHandle && handles.length) {
        const handle = pickHandle();
        assert.equal(wheel.remove(handle), model.delete(`h${handle}`), `remove(${handle})`);
      } else {
        assert.equal(wheel.cancel(id), model.delete(id), `cancel(${id})`);
      }
    } else if (roll < 0.9) {
      if (byHandle && handles.length) {
        const handle = pickHandle();
        assert.equal(wheel.pending(handle), model.has(`h${handle}`), `pending(${handle})`);
      } else {
        assert.equal(wheel.dueAt(id), model.get(id)?.at, `dueAt(${id})`);
      }
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
