/**
 * The stream of finished attempts (src/worker/results.ts): a listener for some statuses gets
 * only those, and an attempt whose status nobody wants is not asked for (`wants`), so a worker
 * builds no record for it; unsubscribing twice changes nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ResultStream } from "../../src/worker/results.ts";
import type { AttemptRecord } from "../../src/core/task.ts";

const record = (status: AttemptRecord["status"]): AttemptRecord => ({
  taskId: `t-${status}`,
  type: "t",
  pool: "default",
  attempt: 1,
  status,
  error: null,
  startedAt: 0,
  finishedAt: 1,
  durationMs: 1,
  workerId: "w",
});

describe("ResultStream", () => {
  it("wants a status only while a listener asks for it or for every status", () => {
    const results = new ResultStream();
    assert.equal(results.wants("succeeded"), false);
    const offDead = results.on(() => {}, ["dead"]);
    assert.equal(results.wants("dead"), true);
    assert.equal(results.wants("succeeded"), false);
    const offAll = results.on(() => {});
    assert.equal(results.wants("succeeded"), true);
    offAll();
    offAll();
    assert.equal(results.wants("succeeded"), false, "a second unsubscribe changes nothing");
    assert.equal(results.wants("dead"), true);
    offDead();
    assert.equal(results.wants("dead"), false);
  });

  it("hands each listener the statuses it asked for, every listener the rest", () => {
    const results = new ResultStream();
    const dead: string[] = [];
    const all: string[] = [];
    results.on((r) => dead.push(r.status), ["dead", "retrying"]);
    results.on((r) => all.push(r.status));
    for (const s of ["succeeded", "retrying", "dead", "cancelled"] as const) {
      results.publish(record(s));
    }
    assert.deepEqual(dead, ["retrying", "dead"]);
    assert.deepEqual(all, ["succeeded", "retrying", "dead", "cancelled"]);
  });
});
