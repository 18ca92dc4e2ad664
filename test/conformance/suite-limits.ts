/**
 * @module suite-limits — the shared sliding-window limit (Storage.hitRateLimit) that caps
 * failed logins per client address across every node.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type StorageFactory, T0 } from "./harness.ts";
import { ValidationError } from "../../src/core/errors.ts";

const MIN = 60_000;

export function limitsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: rate limits`, () => {
    it("allows `limit` hits in a window, refuses the next with the time to wait", async () => {
      const { storage, dispose } = await factory();
      try {
        const hit = (now: number, key = "login:a") =>
          storage.hitRateLimit({ key, limit: 3, windowMs: MIN, now });
        for (const at of [T0, T0 + 1000, T0 + 2000]) {
          assert.deepEqual(await hit(at), { allowed: true, retryAfterMs: 0 });
        }
        assert.deepEqual(await hit(T0 + 5000), { allowed: false, retryAfterMs: MIN - 5000 });
        // A refused hit is not counted: the wait still ends when the first hit leaves.
        assert.deepEqual(await hit(T0 + 30_000), { allowed: false, retryAfterMs: MIN - 30_000 });
        assert.deepEqual(await hit(T0 + 5000, "login:b"), { allowed: true, retryAfterMs: 0 });
        // Sliding: at T0 + 60 s the first hit has left, the other two are still inside.
        assert.equal((await hit(T0 + MIN)).allowed, true);
        assert.deepEqual(await hit(T0 + MIN + 500), { allowed: false, retryAfterMs: 500 });
        assert.equal((await hit(T0 + MIN + 1000)).allowed, true);
      } finally {
        await dispose();
      }
    });

    it("lets exactly `limit` of a concurrent burst through", async () => {
      const { storage, dispose } = await factory();
      try {
        const burst = await Promise.all(
          Array.from(
            { length: 60 },
            () => storage.hitRateLimit({ key: "login:burst", limit: 10, windowMs: MIN, now: T0 }),
          ),
        );
        assert.equal(burst.filter((r) => r.allowed).length, 10);
        for (const r of burst.filter((r) => !r.allowed)) assert.equal(r.retryAfterMs, MIN);
      } finally {
        await dispose();
      }
    });

    it("refuses bad arguments with a validation error and counts nothing", async () => {
      const { storage, dispose } = await factory();
      try {
        const bad: [string, number, number, number][] = [
          ["", 3, MIN, T0],
          ["k", 0, MIN, T0],
          ["k", 1.5, MIN, T0],
          ["k", 3, 0, T0],
          ["k", 3, MIN, Number.NaN],
        ];
        for (const args of bad) {
          const [key, limit, windowMs, now] = args;
          await assert.rejects(
            storage.hitRateLimit({ key, limit, windowMs, now }),
            ValidationError,
            String(args),
          );
        }
        assert.equal(
          (await storage.hitRateLimit({ key: "k", limit: 1, windowMs: MIN, now: T0 })).allowed,
          true,
        );
      } finally {
        await dispose();
      }
    });
  });
}
