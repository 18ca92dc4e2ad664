/**
 * @module suite-callback-delivery — a callback task on its way: a worker running the
 * callbacks pool POSTs `{event, task}` through the `http` machinery (signed, the callback's
 * headers sent, none shown by the API), retries a failing receiver with back-off and ends
 * dead with its last error; a schedule's runs carry the template's callback. The receiver
 * is a stand-in fetcher (test/unit/callback-task.test.ts has a real one).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { harness, type StorageFactory } from "./harness.ts";
import type { TaskRecord } from "../../src/core/task.ts";
import { callbackTaskHandler } from "../../src/worker/callback-task.ts";
import type { HttpFetcher, OutboundRequest } from "../../src/worker/http-task.ts";
import { callbacksOf, HOOK, json, oneCallback } from "./suite-callbacks.ts";

/** A fetcher standing in for the receiver: answers `status(n)` to the n-th request. */
function receiver(status: (n: number) => number) {
  const got: OutboundRequest[] = [];
  const fetcher: HttpFetcher = (r) => {
    got.push(r);
    return Promise.resolve({ status: status(got.length), body: null });
  };
  return { got, fetcher };
}

/**
 * A worker running pools default and callbacks, which sends its callbacks (signed with key
 * "k") to a stand-in receiver answering `status(n)`; type `t` succeeds.
 */
async function delivering(factory: StorageFactory, status: (n: number) => number) {
  const h = await harness(factory, { pools: { default: 2, callbacks: 1 } });
  const r = receiver(status);
  h.s.register("callback", callbackTaskHandler({ signingKey: "k", fetcher: r.fetcher }));
  h.s.register("t", () => "done");
  return { h, r };
}

export function callbackDeliverySuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: callbacks delivered`, () => {
    it("a worker POSTs {event, task} signed through the http machinery; the callback succeeds", async () => {
      const { h, r } = await delivering(factory, () => 204);
      try {
        const headers = { Authorization: "Bearer s3cret" };
        const id = await h.s.submit({
          type: "t",
          id: "delivered",
          callback: { url: HOOK, headers },
        });
        const cb = await h.until(`__cb_${id}_1`, "succeeded");
        assert.equal(r.got.length, 1);
        const [req] = r.got;
        assert.deepEqual([req.method, req.url.href], ["POST", HOOK]);
        assert.equal(req.headers.get("authorization"), "Bearer s3cret", "its headers are sent");
        assert.equal(req.headers.get("skedulr-task-id"), cb.id);
        assert.match(req.headers.get("skedulr-signature") ?? "", /^v1=[0-9a-f]{64}$/);
        const body = JSON.parse(req.body!);
        assert.equal(body.event, "task.succeeded");
        assert.deepEqual(body.task, json(await h.s.get(id)));
        assert.deepEqual(body.task.callback.headers, { Authorization: "[redacted]" });
        assert.equal(JSON.stringify(cb).includes("s3cret"), false, "the API shows no secret");
        assert.deepEqual((await h.s.list({ q: "s3cret" })).items, [], "q never matches it");
      } finally {
        await h.close();
      }
    });

    it("a receiver that keeps failing: the callback retries with back-off, then is dead with its error", async () => {
      const { h, r } = await delivering(factory, () => 503);
      try {
        const id = await h.s.submit({ type: "t", id: "unheard", callback: { url: HOOK } });
        const cbId = `__cb_${id}_1`;
        await h.until(cbId, "retrying");
        const dead = await h.eventually(async () => {
          await h.clock.advance(60_000);
          const t = await h.s.get(cbId);
          return t?.status === "dead" ? t : null;
        }, "the callback dead after its retries");
        assert.equal(r.got.length, 9, "1 attempt and 8 retries");
        assert.equal(dead.attempt, 9);
        assert.match(dead.error!.message, /^HTTP 503 from https:\/\/hooks\.example\.com/);
        assert.deepEqual((await h.s.deadLetters()).items.map((t) => t.id), [cbId]);
        assert.deepEqual(await callbacksOf(h, cbId), [], "a callback has no callback");
        assert.equal((await h.s.get(id))?.status, "succeeded");
      } finally {
        await h.close();
      }
    });

    it("a schedule's runs carry its callback; the template shows its header values redacted", async () => {
      const h = await harness(factory);
      try {
        h.s.register("tick", () => "tock");
        const callback = { url: HOOK, on: ["succeeded"], headers: { "X-Key": "k1" } };
        const sid = await h.s.submit({ type: "tick", every: "1s", callback });
        const schedule = json(await h.s.getSchedule(sid));
        assert.deepEqual(schedule.template.callback, {
          url: HOOK,
          on: ["succeeded"],
          headers: { "X-Key": "[redacted]" },
          pool: "callbacks",
        });
        await h.clock.advance(1_000);
        const run = await h.eventually(async () =>
          (await h.s.list({ type: "tick", status: "succeeded" })).items[0]
        );
        const cb = await oneCallback(h, run.id, "succeeded");
        const task = (cb.payload as { task: TaskRecord }).task;
        assert.equal(task.scheduleId, sid);
        assert.equal(task.callback?.headers["X-Key"], "k1", "kept for the worker");
      } finally {
        await h.close();
      }
    });
  });
}
