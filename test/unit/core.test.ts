/**
 * Unit tests of the pure core: durations, back-off, recurrence (DST), the spec schema.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { durationMs, parseDuration } from "../../src/core/duration.ts";
import { backoffDelay } from "../../src/core/backoff.ts";
import { nextOccurrence } from "../../src/core/recurrence.ts";
import { collectSpecIssues, parseTaskSpec } from "../../src/core/task-schema.ts";
import { Heap } from "../../src/core/heap.ts";

describe("durations", () => {
  it("parses ms numbers and strings with units", () => {
    assert.deepEqual(parseDuration(1500), { ms: 1500 });
    assert.deepEqual(parseDuration("1500ms"), { ms: 1500 });
    assert.deepEqual(parseDuration("30s"), { ms: 30_000 });
    assert.deepEqual(parseDuration("1.5s"), { ms: 1_500 });
    assert.deepEqual(parseDuration("5m"), { ms: 300_000 });
    assert.deepEqual(parseDuration("2h"), { ms: 7_200_000 });
    assert.deepEqual(parseDuration("1d"), { ms: 86_400_000 });
    assert.deepEqual(parseDuration("250"), { ms: 250 });
  });

  it("rejects anything else, quoting the value", () => {
    for (const bad of ["soon", "-5s", "5 weeks", "", -1, NaN, Infinity, null, {}]) {
      assert.ok("error" in parseDuration(bad), `rejects ${String(bad)}`);
    }
    assert.throws(() => durationMs("soon", "timeout"), /timeout: .*got "soon"/);
  });
});

describe("back-off", () => {
  it("fixed waits the same each time; none retries at once", () => {
    assert.equal(backoffDelay({ type: "fixed", delayMs: 250 }, 1), 250);
    assert.equal(backoffDelay({ type: "fixed", delayMs: 250 }, 5), 250);
    assert.equal(backoffDelay(null, 3), 0);
  });

  it("exponential doubles from base and caps at max", () => {
    const p = { type: "exponential" as const, baseMs: 500, maxMs: 10_000, jitter: 0 };
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(p, a)), [
      500,
      1_000,
      2_000,
      4_000,
      8_000,
      10_000,
      10_000,
    ]);
  });

  it("jitter spreads within ±jitter and never exceeds max", () => {
    const p = { type: "exponential" as const, baseMs: 1_000, maxMs: 1_100, jitter: 0.2 };
    assert.equal(backoffDelay(p, 1, () => 0), 800);
    assert.equal(backoffDelay(p, 1, () => 0.5), 1_000);
    assert.equal(backoffDelay(p, 1, () => 0.9999), 1_100, "capped at max");
  });
});

describe("recurrence", () => {
  const berlin = (cron: string) => ({
    kind: "cron" as const,
    everyMs: null,
    cron,
    timezone: "Europe/Berlin",
    startAt: 0,
  });
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

  it("anchors intervals to the start, so late evaluation never drifts", () => {
    const s = {
      kind: "every" as const,
      everyMs: 1_000,
      cron: null,
      timezone: null,
      startAt: 5_000,
    };
    assert.equal(nextOccurrence(s, 0), 5_000);
    assert.equal(nextOccurrence(s, 5_000), 6_000);
    assert.equal(nextOccurrence(s, 6_999), 7_000);
    assert.equal(nextOccurrence(s, 7_000), 8_000);
  });

  it("fires once, at the end of the gap, when the time does not exist (spring forward)", () => {
    // 2026-03-29 02:30 does not exist in Berlin (02:00 → 03:00): it fires at 03:00 CEST.
    let t = Date.UTC(2026, 2, 28, 12);
    const fired: string[] = [];
    for (let i = 0; i < 3; i++) fired.push(iso(t = nextOccurrence(berlin("30 2 * * *"), t)!)!);
    assert.deepEqual(fired, [
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:00.000Z",
      "2026-03-31T00:30:00.000Z",
    ]);
  });

  it("fires a repeated wall-clock time once (fall back)", () => {
    // 2026-10-25 02:30 happens twice in Berlin (03:00 CEST → 02:00 CET): the first counts.
    let t = Date.UTC(2026, 9, 24, 12);
    const fired: string[] = [];
    for (let i = 0; i < 3; i++) fired.push(iso(t = nextOccurrence(berlin("30 2 * * *"), t)!)!);
    assert.deepEqual(fired, [
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z",
      "2026-10-27T01:30:00.000Z",
    ]);
  });
});

describe("task spec schema", () => {
  it("normalises durations, instants and back-off", () => {
    const p = parseTaskSpec({
      type: "send_email",
      payload: { to: "a@b.c" },
      delay: "30s",
      timeout: "1m",
      maxRetries: 3,
      backoff: { type: "exponential", base: "500ms", max: "10s", jitter: 0.2 },
    }, 1_000);
    assert.equal(p.runAt, 31_000);
    assert.equal(p.timeoutMs, 60_000);
    assert.equal(p.pool, "default");
    assert.equal(p.priority, 0);
    assert.deepEqual(p.backoff, { type: "exponential", baseMs: 500, maxMs: 10_000, jitter: 0.2 });
    assert.equal(
      parseTaskSpec({ type: "x", runAt: "2026-01-01T00:00:00Z" }, 0).runAt,
      Date.UTC(2026, 0, 1),
    );
  });

  it("names every bad field with a reason", () => {
    const issues = collectSpecIssues({
      type: "",
      pool: "a b",
      delay: "1h",
      runAt: 5,
      every: "0s",
      cron: "* * * * *",
      maxRetries: 1.5,
      backoff: { type: "fixed" },
      payload: { f: Number.NaN },
    });
    const paths = issues.map((i) => i.path);
    for (const p of ["type", "pool", "every", "maxRetries", "backoff.delay", "payload"]) {
      assert.ok(paths.includes(p), `mentions ${p}: ${JSON.stringify(issues)}`);
    }
    assert.deepEqual(collectSpecIssues({ type: "x", delay: 1, runAt: 5 }), [
      { path: "runAt", message: "cannot be combined with delay" },
    ]);
    assert.deepEqual(collectSpecIssues({ type: "x", every: "1s", cron: "* * * * *" }), [
      { path: "cron", message: "cannot be combined with every" },
    ]);
    assert.deepEqual(collectSpecIssues({ type: "x", timezone: "UTC" }), [
      { path: "timezone", message: "needs cron" },
    ]);
    assert.deepEqual(collectSpecIssues({ type: "x", every: "1s", key: "k" }), [
      { path: "key", message: "is not allowed on a recurring or cron schedule" },
    ]);
    assert.deepEqual(collectSpecIssues("nope"), [{
      path: "",
      message: 'expected an object, got "nope"',
    }]);
  });
});

describe("heap", () => {
  it("pops in order under random pushes", () => {
    const h = new Heap<number>((a, b) => a < b);
    const values = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1000);
    values.forEach((v) => h.push(v));
    const out: number[] = [];
    while (h.size) out.push(h.pop()!);
    assert.deepEqual(out, [...values].sort((a, b) => a - b));
  });
});
