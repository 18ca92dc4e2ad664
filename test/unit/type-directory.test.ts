/**
 * The live workers' task types as a submitting node caches them (client/type-directory.ts):
 * a submit of handled types is answered from a fresh view without waiting on a read, and a
 * view older than the refresh interval is read again, so a type whose last worker left is
 * flagged from the next submit after that read.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, MemoryStorage, silentLogger } from "../../src/mod.ts";
import { checkTypes, TypeDirectory } from "../../src/client/type-directory.ts";

const ONE = { batch: false, strict: false };

describe("TypeDirectory", () => {
  it("answers from a fresh view at once, and reads again once it is refreshMs old", async () => {
    const clock = new ManualClock(1_000_000);
    const storage = new MemoryStorage();
    const beat = (id: string, types: string[]) =>
      storage.heartbeat({
        info: {
          id,
          host: "h",
          pid: 1,
          pools: { default: 1 },
          types,
          running: 0,
          startedAt: clock.now(),
          lastSeen: clock.now(),
        },
        ttlMs: 3_000,
        now: clock.now(),
      });
    const directory = new TypeDirectory({
      storage,
      clock,
      logger: silentLogger,
      isLocal: () => false,
      refreshMs: 5_000,
    });
    try {
      await beat("a", ["report"]);
      await beat("b", ["mail"]);
      // The first submit waits for the first read; then a fresh view answers at once.
      assert.deepEqual(await checkTypes(directory, ["report"], ONE), []);
      const answered = checkTypes(directory, ["report"], ONE);
      assert.ok(!(answered instanceof Promise), "a fresh view answers without a promise");
      assert.deepEqual(answered, []);

      // Worker a stops beating; b goes on. Past refreshMs the view is read again.
      await clock.advance(4_000);
      await beat("b", ["mail"]);
      assert.deepEqual(await checkTypes(directory, ["report"], ONE), [], "still in view");
      await clock.advance(1_500);
      await beat("b", ["mail"]);
      // This submit starts the read (and is answered from the old view); the next one learns.
      await checkTypes(directory, ["report"], ONE);
      const after = await checkTypes(directory, ["report"], ONE);
      assert.match(after[0]?.[0] ?? "", /no live worker handles type "report"/);
    } finally {
      await storage.close();
    }
  });
});
