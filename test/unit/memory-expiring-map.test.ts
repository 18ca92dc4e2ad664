/**
 * The embedded store's dedupe and debounce entries (an ExpiringMap): expired ones are
 * dropped, so the map holds only the keys still live however many submits went by.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ExpiringMap } from "../../src/storage/memory/expiring-map.ts";

describe("memory: expiring map (dedupe and debounce keys)", () => {
  it("answers a key until its expiry and drops expired entries", () => {
    const m = new ExpiringMap<string>();
    for (let i = 0; i < 1000; i++) m.set(`k${i}`, `id${i}`, i + 100 + (i % 7));
    assert.equal(m.get("k999", 1000), "id999");
    assert.equal(m.get("k0", 100), undefined, "expired at its last ms");
    m.prune(1000);
    assert.ok(m.size < 120, `only live entries stay, got ${m.size}`);
    m.prune(10_000);
    assert.equal(m.size, 0);
  });

  it("keeps a key set again, whatever its older expiry said", () => {
    const m = new ExpiringMap<string>();
    m.set("k", "first", 10);
    m.set("k", "second", 1000);
    m.prune(500);
    assert.equal(m.get("k", 500), "second");
    assert.equal(m.size, 1);
  });
});
