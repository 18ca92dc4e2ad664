/**
 * The request deadline's timer (routes/deadline.ts): with the runtime's unref it stays armed
 * between requests (one timer under steady traffic, not one per request) and still fails a
 * request the store answers too late; without unref none is left once nothing is in flight.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RequestDeadlines } from "../../routes/deadline.ts";
import { runtimeClock } from "../../src/adapters/runtime.ts";
import { StorageUnavailableError } from "../../src/mod.ts";

const MS = 100;

describe("the request deadline's timer", () => {
  it("with unref: one timer for 200 requests in a row, and a late store still fails the request in time", async () => {
    const unrefs: unknown[] = [];
    const deadlines = new RequestDeadlines(MS, (timer) => {
      unrefs.push(timer);
      runtimeClock.unrefTimer!(timer);
    });
    for (let i = 0; i < 200; i++) {
      assert.equal(await deadlines.run(() => Promise.resolve(i)), i);
    }
    assert.equal(unrefs.length, 1, "the first request's timer served all of them");
    // A store that answers long after the deadline (its socket, here a timer, keeps the
    // process up: the deadline's own timer is unref'd and would not).
    let late: ReturnType<typeof setTimeout> | undefined;
    const started = performance.now();
    await assert.rejects(
      deadlines.run(() => new Promise((resolve) => (late = setTimeout(resolve, MS * 5)))),
      (e) => e instanceof StorageUnavailableError,
    );
    const took = performance.now() - started;
    clearTimeout(late);
    // Its deadline falls MS after it began; the kept timer may fire first and re-arm.
    assert.ok(took >= MS - 1 && took < MS * 3, `failed after ${took} ms`);
  });

  it("without unref: a timer per request that finds none in flight, none left behind", async () => {
    const deadlines = new RequestDeadlines(MS);
    for (let i = 0; i < 20; i++) await deadlines.run(() => Promise.resolve(i));
    // Deno's test sanitizer fails this test if a timer is still pending here.
  });
});
