/**
 * HTTP API, callbacks (`callback`): bad fields are 400 naming the field and store nothing
 * (an unknown `on` value, a URL the outbound policy refuses, a routing header); the record
 * shows `callback` with its header values redacted; a callback task appears when the task
 * ends, and carries the final record.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";
const HOOK = "https://hooks.example.com/done";

describe("api: callback", () => {
  it("refuses bad callback fields with 400 naming the field", async () => {
    const f = await apiFixture({ start: false });
    try {
      const cases: [unknown, string][] = [
        [{ url: HOOK, on: ["finished"] }, "callback.on[0]"],
        [{ url: HOOK, on: ["dead", "running"] }, "callback.on[1]"],
        [{ url: HOOK, on: ["dead", "dead"] }, "callback.on[1]"],
        [{ url: HOOK, on: [] }, "callback.on"],
        [{ url: HOOK, on: "dead" }, "callback.on"],
        [{ url: "http://127.0.0.1:9000/hook" }, "callback.url"],
        [{ url: "http://169.254.169.254/latest" }, "callback.url"],
        [{ url: "http://localhost/hook" }, "callback.url"],
        [{ url: "ftp://hooks.example.com/x" }, "callback.url"],
        [{ url: "https://user:pw@hooks.example.com/x" }, "callback.url"],
        [{ url: "not a url" }, "callback.url"],
        [{ url: `${HOOK}?${"x".repeat(2048)}` }, "callback.url"],
        [{ on: ["dead"] }, "callback.url"],
        [{ url: HOOK, headers: { Host: "evil" } }, "callback.headers.Host"],
        [
          { url: HOOK, headers: { "Skedulr-Signature": "v1=0" } },
          "callback.headers.Skedulr-Signature",
        ],
        [{ url: HOOK, headers: { "X-A": "a\r\nInjected: 1" } }, "callback.headers.X-A"],
        [{ url: HOOK, retries: 3 }, "callback.retries"],
      ];
      for (const [callback, path] of cases) {
        const res = await f.call("POST", T, { type: "a", callback });
        assert.equal(res.status, 400, JSON.stringify(callback));
        assert.equal(res.body.error.code, "invalid_request");
        assert.deepEqual(
          res.body.error.issues.map((i: { path: string }) => i.path),
          [path],
          JSON.stringify(callback),
        );
      }
      const batch = await f.call("POST", `${T}/batch`, [
        { type: "a", callback: { url: HOOK } },
        { type: "a", callback: { url: HOOK, on: ["expired", "gone"] } },
      ]);
      assert.equal(batch.status, 400);
      assert.equal(batch.body.error.issues[0].path, "[1].callback.on[1]");
      assert.match(batch.body.error.issues[0].message, /got "gone"/);
      assert.equal(await storedCount(f.s), 0, "nothing stored");
    } finally {
      await f.close();
    }
  });

  it("the record shows callback, header values redacted; the callback task carries the final record", async () => {
    const f = await apiFixture({ handlers: { ok: () => "done" } });
    try {
      const callback = {
        url: HOOK,
        on: ["succeeded"],
        headers: { Authorization: "Bearer s3cret" },
      };
      const res = await f.call("POST", T, { type: "ok", id: "order-1", callback });
      assert.equal(res.status, 201);
      const done = await f.until("order-1", "succeeded");
      assert.deepEqual(done.callback, {
        url: HOOK,
        on: ["succeeded"],
        headers: { Authorization: "[redacted]" },
        pool: "callbacks",
      });
      const cb = (await f.call("GET", `${T}/__cb_order-1_1`)).body;
      assert.deepEqual(
        [cb.type, cb.status, cb.pool, cb.callback, cb.maxRetries],
        ["callback", "queued", "callbacks", null, 8],
      );
      const [record] = (await f.call("GET", `${T}?type=ok`)).body.tasks;
      assert.deepEqual(cb.payload.task, record, "the final record");
      assert.deepEqual(
        [cb.payload.event, cb.payload.taskId, cb.payload.url, cb.payload.headers],
        ["task.succeeded", "order-1", HOOK, { Authorization: "[redacted]" }],
      );
      const text = (await f.call("GET", `${T}?limit=100`)).text;
      assert.equal(text.includes("s3cret"), false, "no answer shows the header value");
      assert.deepEqual((await f.call("GET", `${T}?q=s3cret`)).body.tasks, []);
      // The same spec again under the same id is a retry: answered, nothing new stored.
      const again = await f.call("POST", T, { type: "ok", id: "order-1", callback });
      assert.deepEqual([again.status, again.body.existing], [200, true]);
    } finally {
      await f.close();
    }
  });
});
