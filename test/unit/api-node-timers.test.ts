/**
 * A Scheduler that only submits (an API node: `npm run serve`, the Cloudflare Worker) holds no
 * timers, however much delayed work passes through it: the running half arms the wheel only
 * once started. Before, 20k delayed submits left thousands of entries in a wheel that never
 * fired (unbounded growth on a long-running API node).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";

describe("an API-only scheduler", () => {
  it("holds no timers after 2000 delayed and immediate submits", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5));
    const s = new Scheduler({ storage: new MemoryStorage(), clock, logger: silentLogger });
    for (let i = 0; i < 1_000; i++) {
      await s.submitMany([
        { type: "later", delay: `${1 + (i % 50)}s` },
        { type: "now" },
      ]);
    }
    assert.equal((await s.stats()).byStatus.scheduled, 1_000);
    assert.equal(s.pendingTimers, 0, "nothing on the wheel of a scheduler that never started");
    assert.equal(clock.pendingTimers, 0, "and no timer");
  });
});
