/**
 * The quick check of task specs (src/core/spec-quick-check.ts) never says yes to a spec the
 * schema refuses: random specs of known and unknown fields with good, bad and odd values are
 * judged by both, and every spec it passes gets the same issues (none but cross-field ones)
 * as through the schema. It must also pass the usual specs, or it saves nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import { quickValid } from "../../src/core/spec-quick-check.ts";
import { collectSpecIssues, TaskSpecSchema } from "../../src/core/task-schema.ts";
import { prng } from "../../scripts/tools/prng.ts";

const TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const FAR = Date.now() + 200 * 365 * 86_400_000;

/** Per field, values the schema accepts and values it refuses or that are borderline. */
const VALUES: Record<string, unknown[]> = {
  type: ["noop", "a.b:c-d_e", "", "..", "__proto__", "x".repeat(129), 5, null, "sp ace"],
  payload: [1, "x", null, { a: [1, { b: true }] }, [], undefined, NaN, Infinity, () => 1, {
    d: new Date(0),
  }],
  id: ["my-id", "", "a/b", 7, undefined],
  key: ["k", "", "x".repeat(256), "x".repeat(257), 3],
  priority: [0, -1e9, 1e9, 1e9 + 1, 1.5, "1", NaN, undefined],
  pool: ["default", "", "p q", 1],
  delay: [0, 1500, "30s", "1.5s", " 2m ", "-1", -1, "soon", "40000d", NaN, Infinity, true],
  runAt: [0, 1_700_000_000_000, -1, 1.5, FAR, "2026-01-31T09:00:00Z", "nope", null],
  maxRetries: [0, 1000, 1001, -1, 2.5, "3"],
  maxStalls: [0, 3, 1001, null],
  timeout: [1, "1s", 0, "0s", -5, "x"],
  expiresIn: [0, "1h", "x", -1],
  traceparent: [TRACE, "00-bad", 5, ""],
  // Fields the quick check leaves to the schema.
  dependsOn: [["a"], []],
  dedupe: [{ key: "d", ttl: "1h" }],
  every: ["1m"],
  extra: [1],
};
const FIELDS = Object.keys(VALUES);

function randomSpec(rand: () => number): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (rand() < 0.9) spec.type = VALUES.type[Math.floor(rand() * 3)];
  const n = Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) {
    const field = FIELDS[Math.floor(rand() * FIELDS.length)];
    const values = VALUES[field];
    spec[field] = values[Math.floor(rand() * values.length)];
  }
  return spec;
}

describe("spec quick check", () => {
  it("passes only specs the schema accepts, with the same issues as through it", () => {
    const rand = prng(18);
    let passed = 0;
    for (let i = 0; i < 20_000; i++) {
      const spec = randomSpec(rand);
      if (!quickValid(spec)) continue;
      passed++;
      const full = v.safeParse(TaskSpecSchema, spec, { abortPipeEarly: true });
      assert.ok(full.success, `quick check passed a spec the schema refuses: ${show(spec)}`);
      assert.deepEqual(collectSpecIssues(spec), collectSpecIssues({ ...spec, dependsOn: [] }));
    }
    assert.ok(passed > 2_000, `only ${passed} specs passed: the check is too strict to help`);
  });

  it("passes the usual specs", () => {
    for (
      const spec of [
        { type: "noop" },
        { type: "send_email", payload: { to: "a@b.c" }, delay: "30s", maxRetries: 3 },
        { type: "report", id: "r-1", pool: "bulk", priority: 5, timeout: 60_000 },
        { type: "t", runAt: 1_700_000_000_000, traceparent: TRACE, key: "k" },
      ]
    ) {
      assert.equal(quickValid(spec), true, show(spec));
    }
  });

  it("leaves to the schema what it does not know: other fields, ISO times, non-plain objects", () => {
    assert.equal(quickValid({ type: "t", runAt: "2026-01-31T09:00:00Z" }), false);
    assert.equal(quickValid({ type: "t", dedupe: { key: "d", ttl: "1h" } }), false);
    assert.equal(quickValid(Object.assign(Object.create({ inherited: 1 }), { type: "t" })), false);
    assert.equal(quickValid(JSON.parse('{"type":"t","__proto__":{}}')), false);
    assert.equal(quickValid([{ type: "t" }]), false);
  });
});

function show(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, x) => (typeof x === "number" && !Number.isFinite(x) ? String(x) : x),
  );
}
