/**
 * @module suite-bounds — user-chosen names and text on every backend: names that plain
 * objects inherit (`constructor`, `toString`, …) round-trip as pools, types and ids;
 * `__proto__` is refused before anything is stored; well-formed text outside the BMP
 * round-trips; a stored error stack holds no absolute path.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { harness, type StorageFactory } from "./harness.ts";
import { ValidationError } from "../../src/core/errors.ts";
import { configureErrorStacks } from "../../src/core/stack-paths.ts";

/** `record[key]` only when it is the record's own (an inherited `constructor` is not a pool). */
const own = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
const refusedAt = (path: string) => (e: unknown) => {
  assert.ok(e instanceof ValidationError, String(e));
  assert.deepEqual(e.issues.map((i) => i.path), [path]);
  return true;
};

export function boundsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: names and text`, () => {
    it("constructor, toString, valueOf and hasOwnProperty work as pools, types and ids", async () => {
      const h = await harness(factory, { pools: { default: 1, constructor: 1, toString: 1 } });
      try {
        h.s.register("constructor", () => "made");
        h.s.register("valueOf", (payload: unknown) => payload);
        const parent = await h.s.submit({
          id: "hasOwnProperty",
          type: "constructor",
          pool: "constructor",
        });
        const child = await h.s.submit({
          id: "toString",
          type: "valueOf",
          pool: "toString",
          payload: { n: 1 },
          onSuccessOf: "hasOwnProperty",
        });
        const parked = await h.s.submit({ type: "valueOf", pool: "valueOf" });
        assert.equal(parent, "hasOwnProperty");
        await h.until(child, "succeeded");
        assert.deepEqual((await h.s.get(child))?.result, { n: 1 });
        assert.equal((await h.s.get(parent))?.result, "made");
        assert.equal((await h.s.get(parked))?.status, "queued");

        const stats = await h.s.stats();
        assert.deepEqual(Object.keys(stats.pools).sort(), [
          "constructor",
          "default",
          "toString",
          "valueOf",
        ]);
        assert.deepEqual(own(stats.pools, "valueOf"), {
          size: 0,
          running: 0,
          queued: 1,
          parked: 0,
          paused: false,
          globalConcurrency: null,
          rateLimit: null,
          startsInWindow: 0,
        });
        assert.equal(own(stats.pools, "constructor")?.size, 1);
        assert.equal(own(stats.pools, "toString")?.running, 0);
        assert.equal(Object.hasOwn(stats.pools, "hasOwnProperty"), false);
        assert.deepEqual(Object.keys(stats.durations).sort(), ["constructor", "valueOf"]);
        assert.equal(own(stats.durations, "constructor")?.count, 1);

        const listed = await h.s.list({ pool: "constructor" });
        assert.deepEqual(listed.items.map((t) => t.id), ["hasOwnProperty"]);
        const attempts = await h.s.history({ type: "valueOf" });
        assert.deepEqual(attempts.items.map((a) => a.taskId), ["toString"]);
      } finally {
        await h.close();
      }
    });

    it("__proto__ is refused as a pool, type or id before anything is stored", async () => {
      const h = await harness(factory);
      try {
        await assert.rejects(h.s.submit({ type: "x", pool: "__proto__" }), refusedAt("pool"));
        await assert.rejects(h.s.submit({ type: "__proto__" }), refusedAt("type"));
        await assert.rejects(h.s.submit({ type: "x", id: "__proto__" }), refusedAt("id"));
        await assert.rejects(h.s.scalePool("__proto__", 1), refusedAt("pool"));
        assert.equal((await h.s.list({})).items.length, 0);
        const stats = await h.s.stats();
        assert.deepEqual(Object.keys(stats.pools), ["default"]);
        assert.equal(Object.getPrototypeOf(stats.pools), Object.prototype);
      } finally {
        await h.close();
      }
    });

    it("well-formed text outside the BMP round-trips; a lone surrogate is refused", async () => {
      const h = await harness(factory);
      try {
        const text = "😀 \u{10FFFF} \u2028 é \u0000";
        h.s.register("echo", (payload: unknown) => payload);
        h.s.register("fail", () => {
          throw new Error(`failed: ${text}`);
        });
        const payload = { [`k${text}`]: [text, { text }] };
        const echo = await h.s.submit({ type: "echo", payload, key: text });
        const done = await h.until(echo, "succeeded");
        assert.deepEqual(done.payload, payload);
        assert.deepEqual(done.result, payload);
        const fail = await h.s.submit({ type: "fail" });
        assert.equal((await h.until(fail, "dead")).error?.message, `failed: ${text}`);
        const found = await h.s.list({ q: "😀" });
        assert.ok(found.items.some((t) => t.id === echo));
        await assert.rejects(
          h.s.submit({ type: "echo", payload: { note: "\ud800" } }),
          refusedAt("payload.note"),
        );
        assert.equal((await h.s.list({})).items.length, 2);
      } finally {
        await h.close();
      }
    });

    it("a stored error stack names files relative to the working directory", async () => {
      const before = configureErrorStacks({ root: process.cwd() });
      const h = await harness(factory);
      try {
        h.s.register("fail", () => {
          throw new Error("nope");
        });
        const id = await h.s.submit({ type: "fail" });
        const stack = (await h.until(id, "dead")).error?.stack ?? "";
        assert.match(stack, /test\/conformance\/suite-bounds\.ts:\d+:\d+/);
        assert.ok(!/(^|[\s(])(\/|file:)/m.test(stack), stack);
        const [attempt] = (await h.s.history({ type: "fail" })).items;
        assert.equal(attempt.error?.stack, stack);
      } finally {
        configureErrorStacks(before);
        await h.close();
      }
    });
  });
}
