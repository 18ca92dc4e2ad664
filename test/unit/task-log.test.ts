/**
 * Task logs in the worker, below the stores: what a line becomes from odd input, the
 * attempt's buffer (newest lines within the caps, numbered for the store), and the flusher
 * (writes within 5 s, at once past 100 lines, in calls of bounded size, keeping lines a
 * failed write did not store).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../src/core/clock.ts";
import { StorageUnavailableError } from "../../src/core/errors.ts";
import { logLine, logLineJson, utf8Bytes } from "../../src/core/task-log.ts";
import { MAX_LOG_MESSAGE_BYTES, MAX_TASK_LOG_LINES } from "../../src/core/bounds.ts";
import type { AppendLogsParams } from "../../src/storage/storage.ts";
import { AttemptLog } from "../../src/worker/attempt-log.ts";
import { LOG_FLUSH_LINES, LOG_FLUSH_MS, LogFlusher } from "../../src/worker/log-flusher.ts";
import { silentLogger } from "../../src/worker/middleware.ts";
import { Attempt } from "../../src/worker/runner.ts";

const line = (message: string) => logLine(message, undefined, 0, 1);

describe("a log line", () => {
  it("cuts a long message at a character boundary, within the bound, saying how long it was", () => {
    for (const char of ["a", "é", "€", "😀"]) {
      const text = char.repeat(3_000);
      const { message } = line(text);
      assert.ok(utf8Bytes(message) <= MAX_LOG_MESSAGE_BYTES, char);
      assert.ok(message.endsWith(`… [cut: ${utf8Bytes(text)} bytes]`), char);
      assert.ok(!message.includes("\ufffd"), `${char}: no broken character`);
    }
    assert.equal(line("short").message, "short");
  });

  it("copies fields as JSON, so a later change to the object does not show", () => {
    const fields = { n: 1, when: new Date(0) };
    const made = logLine("m", fields, 5, 2);
    fields.n = 2;
    assert.deepEqual(made, {
      at: 5,
      attempt: 2,
      message: "m",
      fields: { n: 1, when: "1970-01-01T00:00:00.000Z" },
    });
    assert.equal(
      logLineJson(made),
      '{"at":5,"attempt":2,"message":"m","fields":{"n":1,' +
        '"when":"1970-01-01T00:00:00.000Z"}}',
    );
    const bigint = logLine("m", { n: 7n }, 0, 1);
    assert.match(bigint.message, /^m \[fields dropped: not JSON \(.+\)\]$/);
    assert.equal(bigint.fields, undefined);
    assert.equal(
      logLine({ toString: null } as never, undefined, 0, 1).message,
      '{"toString":null}',
    );
  });
});

describe("an attempt's buffer", () => {
  it("keeps the newest lines within the caps, numbered so the store can count the dropped", () => {
    const log = new AttemptLog();
    for (let i = 1; i <= MAX_TASK_LOG_LINES + 20; i++) log.add(line(`l${i}`));
    const batch = log.batch()!;
    assert.equal(batch.from, 21, "the first 20 were dropped");
    assert.equal(batch.lines.length, MAX_TASK_LOG_LINES);
    assert.equal(batch.lines[0].message, "l21");
  });

  it("drops on confirm only the lines the store got, also those logged meanwhile stay", () => {
    const log = new AttemptLog();
    for (const m of ["a", "b"]) log.add(line(m));
    const sent = log.batch()!;
    log.add(line("c"));
    log.confirm(sent);
    assert.deepEqual(log.batch(), { from: 3, lines: [line("c")] });
    log.confirm(log.batch()!);
    assert.equal(log.batch(), undefined);
    assert.equal(log.bytes, 0);
  });
});

describe("the log flusher", () => {
  function setup(answer: (p: AppendLogsParams) => Promise<boolean[]>) {
    const clock = new ManualClock(0);
    const calls: AppendLogsParams[] = [];
    const running = new Map<string, Attempt>();
    const storage = { appendLogs: (p: AppendLogsParams) => (calls.push(p), answer(p)) };
    const flusher = new LogFlusher(storage, clock, running, silentLogger);
    const attempt = (id: string) => {
      const a = new Attempt({ id, workerId: "w", token: "1" }, Infinity);
      running.set(id, a);
      return a;
    };
    flusher.start();
    return { clock, calls, flusher, attempt };
  }
  const held = (p: AppendLogsParams) => Promise.resolve(p.leases.map(() => true));

  it("writes within 5 s, at once past 100 lines, and nothing while no line waits", async () => {
    const { clock, calls, flusher, attempt } = setup(held);
    await clock.advance(60_000);
    assert.equal(calls.length, 0, "no line, no write");
    const a = attempt("a");
    flusher.log(a, 1, "first", undefined);
    await clock.advance(LOG_FLUSH_MS - 1);
    assert.equal(calls.length, 0);
    await clock.advance(1);
    assert.deepEqual(calls.map((c) => c.leases[0].logs!.lines.map((l) => l.message)), [["first"]]);
    for (let i = 0; i < LOG_FLUSH_LINES; i++) flusher.log(a, 1, `n${i}`, undefined);
    assert.equal(calls.length, 2, "written at once");
    assert.equal(calls[1].leases[0].logs!.from, 2);
    flusher.stop();
  });

  it("splits a write of many attempts' lines into calls of about 1 MiB", async () => {
    const { clock, calls, flusher, attempt } = setup(held);
    const big = "x".repeat(2_000);
    for (let k = 0; k < 30; k++) {
      const a = attempt(`t${k}`);
      for (let i = 0; i < 20; i++) flusher.log(a, 1, big, undefined);
    }
    await clock.advance(LOG_FLUSH_MS);
    const sizes = calls.map((c) =>
      c.leases.reduce(
        (n, l) => n + l.logs!.lines.reduce((m, x) => m + utf8Bytes(logLineJson(x)), 0),
        0,
      )
    );
    assert.ok(calls.length >= 2, `${calls.length} calls`);
    assert.ok(sizes.every((n) => n <= 1_048_576), `sizes ${sizes}`);
    assert.equal(calls.reduce((n, c) => n + c.leases.length, 0), 30, "every attempt once");
    flusher.stop();
  });

  it("keeps the lines a failed write did not store, and tries again on the timer only", async () => {
    let fail = true;
    const { clock, calls, flusher, attempt } = setup((p) =>
      fail ? Promise.reject(new StorageUnavailableError("unreachable", "test")) : held(p)
    );
    const a = attempt("a");
    for (let i = 0; i < LOG_FLUSH_LINES + 50; i++) flusher.log(a, 1, `n${i}`, undefined);
    await clock.advance(0);
    assert.equal(calls.length, 1, "one write at 100 lines, none per line after it failed");
    fail = false;
    await clock.advance(LOG_FLUSH_MS);
    assert.equal(calls.length, 2);
    assert.equal(calls[1].leases[0].logs!.from, 1, "the failed write's lines again");
    assert.equal(calls[1].leases[0].logs!.lines.length, LOG_FLUSH_LINES + 50);
    assert.equal(a.log!.pending, 0);
    flusher.stop();
  });
});
