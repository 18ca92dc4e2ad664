/**
 * @module due-duty-parts.test — the timed duties on a partitioned store: each look-ahead scan
 * reads one partition, the next each time, far enough ahead to cover it until its turn comes
 * round (so an idle worker's scans cost the same for any number of partitions), and each
 * wheel entry fires a pass over its own partition only.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../src/core/clock.ts";
import { TimingWheel } from "../../src/core/timing-wheel.ts";
import { DueDuty } from "../../src/worker/due-duty.ts";
import { silentLogger } from "../../src/worker/middleware.ts";

describe("a due duty over 3 partitions", () => {
  it("scans one partition per step in turn, and passes over the partition that is due", async () => {
    const clock = new ManualClock(0);
    const wheel = new TimingWheel({ tickMs: 10, clock });
    const scans: [number, number | undefined][] = [];
    const passes: (number | undefined)[] = [];
    const duty = new DueDuty(
      { clock, wheel, logger: silentLogger, tickMs: 10, lookAheadMs: 60_000, parts: 3 },
      {
        name: "promote",
        scanName: "scan",
        // Partition 2 has work due in 2 minutes: beyond one look-ahead, inside its turn's.
        due: (until, _limit, part) => {
          scans.push([until, part]);
          return Promise.resolve(part === 2 ? [120_000] : []);
        },
        pass: (_now, part) => {
          passes.push(part);
          return Promise.resolve(false);
        },
      },
    );
    wheel.start();
    for (let i = 0; i < 4; i++) await duty.step();
    assert.deepEqual(scans.map(([, part]) => part), [0, 1, 2, 0]);
    // A partition is scanned every 3 × 30 s: each scan looks 60 s + 2 × 30 s ahead.
    assert.deepEqual(scans.map(([until]) => until), [120_000, 120_000, 120_000, 120_000]);
    await clock.advance(120_000);
    assert.deepEqual(passes, [2], "one pass, over partition 2");
    duty.arm(clock.now() + 5_000, 1);
    await clock.advance(5_000);
    assert.deepEqual(passes, [2, 1]);
    duty.stop();
    wheel.stop();
  });
});
