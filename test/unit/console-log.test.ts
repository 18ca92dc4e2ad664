/**
 * The console of the entry points, in-process: text and JSON lines, levels, the line budget
 * behind the "… and N more" summary, the attempt lines, and the variables that choose them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { consoleLog, firstLine, LineBudget, type LogLevel } from "../../src/worker/console-log.ts";
import { attemptLine } from "../../scripts/entry/console-report.ts";
import { storageTarget } from "../../scripts/entry/start-up.ts";
import { ConfigError, parseWorkerConfig } from "../../src/worker/config.ts";
import type { AttemptRecord } from "../../src/core/task.ts";

function capture(level: LogLevel, format: "text" | "json") {
  const lines: [string, LogLevel][] = [];
  const log = consoleLog({ level, format, write: (l, lv) => lines.push([l, lv]), now: () => 0 });
  return { log, lines };
}

const attempt = (status: AttemptRecord["status"], message?: string): AttemptRecord => ({
  taskId: "t-1",
  type: "report",
  pool: "default",
  attempt: 2,
  status,
  error: message === undefined ? null : { message },
  startedAt: 0,
  finishedAt: 5,
  durationMs: 5,
  workerId: "w",
});

describe("console log", () => {
  it("text: lines as written, library messages tagged by level with their fields", () => {
    const { log, lines } = capture("info", "text");
    log.line("info", "status: running 0");
    log.warn("lease recovery step failed", { error: "ECONNREFUSED", n: 2 });
    log.debug("dropped below the level");
    log.notice("info", "  banner line, whatever the level");
    assert.deepEqual(lines, [
      ["status: running 0", "info"],
      ["warning: lease recovery step failed (error=ECONNREFUSED, n=2)", "warn"],
      ["  banner line, whatever the level", "info"],
    ]);
    const quiet = capture("error", "text");
    quiet.log.line("warn", "held back");
    quiet.log.notice("info", "kept");
    assert.deepEqual(quiet.lines.map((l) => l[0]), ["kept"]);
  });

  it("json: one object per line with time, level, message and fields", () => {
    const { log, lines } = capture("debug", "json");
    log.notice("info", "  storage:   embedded");
    log.line("error", "dead report t-1", { type: "report", attempt: 2 });
    log.info("with an error field", { error: new Error("boom") });
    const parsed = lines.map(([l]) => JSON.parse(l));
    assert.deepEqual(parsed[0], {
      time: "1970-01-01T00:00:00.000Z",
      level: "info",
      message: "storage: embedded",
    });
    assert.deepEqual(parsed[1].attempt, 2);
    assert.equal(parsed[2].error, "boom");
    assert.ok(lines.every(([l]) => !l.includes("\n")));
  });

  it("the budget prints perWindow lines, holds the rest per kind, and a flush sums them", () => {
    let now = 0;
    const b = new LineBudget(3, 10_000, () => now);
    const taken = ["failed", "failed", "dead", "dead", "failed", "dead"].map((k) => b.take(k));
    assert.deepEqual(taken, [true, true, true, false, false, false]);
    assert.equal(b.msLeft(), 10_000);
    now = 12_000; // past the window, but held lines keep it open until flushed
    assert.equal(b.take("dead"), false);
    assert.deepEqual([...b.flush()], [["dead", 3], ["failed", 1]]);
    assert.equal(b.take("dead"), true, "a new window after the flush");
  });

  it("attempt lines: failed and dead with type, id, attempt and the error's first line", () => {
    assert.deepEqual(attemptLine(attempt("retrying", "disk full\n  at write (x.ts:1)")), {
      kind: "failed",
      level: "warn",
      text: "failed report t-1 attempt 2 (will retry): disk full",
      fields: {
        event: "attempt_failed",
        type: "report",
        id: "t-1",
        attempt: 2,
        pool: "default",
        error: "disk full",
      },
    });
    assert.equal(attemptLine(attempt("dead", "boom"))?.text, "dead report t-1 attempt 2: boom");
    assert.equal(attemptLine(attempt("succeeded"))?.level, "debug");
    assert.equal(attemptLine(attempt("cancelled")), null);
    assert.equal(firstLine(""), "(no message)");
    assert.equal(firstLine("x".repeat(500)).length, 200);
  });

  it("SKEDULR_LOG_FORMAT and SKEDULR_STRICT_TYPES: defaults, values, and errors naming them", () => {
    const d = parseWorkerConfig({});
    assert.equal(d.logFormat, "text");
    assert.equal(d.strictTypes, false);
    const c = parseWorkerConfig({ SKEDULR_LOG_FORMAT: "json", SKEDULR_STRICT_TYPES: "1" });
    assert.equal(c.logFormat, "json");
    assert.equal(c.strictTypes, true);
    assert.throws(
      () => parseWorkerConfig({ SKEDULR_LOG_FORMAT: "yaml", SKEDULR_STRICT_TYPES: "yes" }),
      (e: unknown) =>
        e instanceof ConfigError && e.problems.length === 2 &&
        /SKEDULR_LOG_FORMAT: expected text or json, got "yaml"/.test(e.message) &&
        /SKEDULR_STRICT_TYPES: expected 1 or 0/.test(e.message),
    );
  });

  it("names the storage target without its password", () => {
    const target = (env: Record<string, string>) => storageTarget(parseWorkerConfig(env));
    assert.equal(
      target({ REDIS_URL: "redis://:s3cret@10.0.0.5:6380/2" }),
      "redis://10.0.0.5:6380/2",
    );
    assert.equal(
      target({ REDIS_URL: "rediss://user:pw@cache.internal:6379" }),
      "rediss://cache.internal:6379",
    );
    assert.equal(target({}), null);
  });
});
