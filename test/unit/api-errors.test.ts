/**
 * HTTP API, errors: the error body, malformed JSON, wrong top-level type, wrong content
 * type, oversize bodies (declared, streamed, and lying about their length), unknown routes,
 * capacity, and no 500 for any bad input.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ApiError, httpStatus } from "../../routes/app.ts";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";
const JSON_TYPE = { "content-type": "application/json" };

function assertErrorBody(body: any, code: string): void {
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, "string");
  for (const key of Object.keys(body.error)) assert.ok(["code", "message", "issues"].includes(key));
}

function stream(text: string, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

describe("api errors: the mapping", () => {
  it("maps every code to its status in one place", () => {
    const expected: Record<string, number> = {
      invalid_request: 400,
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      payload_too_large: 413,
      unsupported_media_type: 415,
      capacity: 503,
      storage: 503,
      shutdown: 503,
      internal: 500,
      something_new: 500,
    };
    for (const [code, status] of Object.entries(expected)) assert.equal(httpStatus(code), status);
    assert.equal(new ApiError("conflict", "x").code, "conflict");
  });
});

describe("api errors: bad bodies", () => {
  it("malformed JSON is 400 invalid_request", async () => {
    const f = await apiFixture({ start: false });
    try {
      for (const body of ["{", '{"type": "a",}', "nul", "\u0000"]) {
        const res = await f.raw(T, { method: "POST", headers: JSON_TYPE, body });
        assert.equal(res.status, 400, body);
        assertErrorBody(res.body, "invalid_request");
        assert.match(res.body.error.message, /Malformed JSON/);
      }
      const badUtf8 = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
      const res = await f.raw(T, { method: "POST", headers: JSON_TYPE, body: badUtf8 });
      assert.equal(res.status, 400);
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });

  it("a wrong top-level type or a missing body is 400", async () => {
    const f = await apiFixture({ start: false });
    try {
      for (const body of ["[]", '[{"type":"a"}]', "null", "42", '"task"', "true"]) {
        const res = await f.raw(T, { method: "POST", headers: JSON_TYPE, body });
        assert.equal(res.status, 400, body);
        assertErrorBody(res.body, "invalid_request");
        assert.equal(res.body.error.issues[0].path, "");
      }
      const empty = await f.raw(T, { method: "POST", headers: JSON_TYPE });
      assert.equal(empty.status, 400);
      assert.match(empty.body.error.message, /body required/);
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });

  it("a body that is not application/json is 415; +json and charset are fine", async () => {
    const f = await apiFixture({ start: false });
    try {
      const body = JSON.stringify({ type: "a" });
      for (
        const type of [undefined, "text/plain", "application/x-www-form-urlencoded", "text/json"]
      ) {
        const headers: Record<string, string> = type ? { "content-type": type } : {};
        const res = await f.raw(T, {
          method: "POST",
          headers,
          body: new TextEncoder().encode(body),
        });
        assert.equal(res.status, 415, String(type));
        assertErrorBody(res.body, "unsupported_media_type");
      }
      const form = new FormData();
      form.set("type", "a");
      assert.equal((await f.raw(T, { method: "POST", body: form })).status, 415);
      assert.equal(await storedCount(f.s), 0);
      for (
        const type of [
          "application/json; charset=utf-8",
          "Application/JSON",
          "application/vnd.x+json",
        ]
      ) {
        const res = await f.raw(T, { method: "POST", headers: { "content-type": type }, body });
        assert.equal(res.status, 201, type);
      }
    } finally {
      await f.close();
    }
  });

  it("over maxBodyBytes is 413 (declared length) and nothing is stored", async () => {
    const f = await apiFixture({ start: false });
    try {
      const big = JSON.stringify({ type: "a", payload: "x".repeat(1024 * 1024) });
      const res = await f.raw(T, { method: "POST", headers: JSON_TYPE, body: big });
      assert.equal(res.status, 413);
      assertErrorBody(res.body, "payload_too_large");
      const batch = JSON.stringify(
        Array.from({ length: 600 }, () => ({ type: "a", payload: "y".repeat(2000) })),
      );
      assert.equal(
        (await f.raw(`${T}/batch`, { method: "POST", headers: JSON_TYPE, body: batch })).status,
        413,
      );
      const fits = JSON.stringify({ type: "a", payload: "x".repeat(1024 * 1024 - 100) });
      assert.equal(
        (await f.raw(T, { method: "POST", headers: JSON_TYPE, body: fits })).status,
        201,
      );
      assert.equal(await storedCount(f.s), 1);
    } finally {
      await f.close();
    }
  });

  it("413 on the bytes read: a streamed body, and one longer than its Content-Length", async () => {
    const f = await apiFixture({ start: false, maxBodyBytes: 1000 });
    try {
      const big = JSON.stringify({ type: "a", payload: "x".repeat(5000) });
      const streamed = await f.raw(T, {
        method: "POST",
        headers: JSON_TYPE,
        body: stream(big, 512),
        duplex: "half",
      } as RequestInit);
      assert.equal(streamed.status, 413);
      const lying = await f.raw(T, {
        method: "POST",
        headers: { ...JSON_TYPE, "content-length": "20" },
        body: big,
      });
      assert.equal(lying.status, 413);
      assertErrorBody(lying.body, "payload_too_large");
      const small = await f.raw(T, {
        method: "POST",
        headers: JSON_TYPE,
        body: stream(JSON.stringify({ type: "a" })),
        duplex: "half",
      } as RequestInit);
      assert.equal(small.status, 201);
      assert.equal(await storedCount(f.s), 1);
    } finally {
      await f.close();
    }
  });
});

describe("api errors: routes and capacity", () => {
  it("unknown routes and methods under /skedulr/api are 404 not_found", async () => {
    const f = await apiFixture({ start: false });
    try {
      for (
        const [method, path] of [
          ["GET", "/skedulr/api/nope"],
          ["POST", "/skedulr/api/nope"],
          ["POST", "/skedulr/api"],
          ["DELETE", T],
          ["PUT", `${T}/x`],
          ["GET", `${T}/x/cancel`],
          ["GET", "/skedulr/nothing-here"],
        ]
      ) {
        const res = await f.call(method, path);
        assert.equal(res.status, 404, `${method} ${path}`);
        assertErrorBody(res.body, "not_found");
      }
    } finally {
      await f.close();
    }
  });

  it("a full store answers 503 capacity with Retry-After; nothing stored", async () => {
    const f = await apiFixture({ start: false, storage: { maxUnfinished: 1 } });
    try {
      assert.equal((await f.call("POST", T, { type: "a" })).status, 201);
      const res = await f.call("POST", T, { type: "a" });
      assert.equal(res.status, 503);
      assertErrorBody(res.body, "capacity");
      assert.equal(res.headers.get("retry-after"), "1");
      const batch = await f.call("POST", `${T}/batch`, [{ type: "b" }, { type: "b" }]);
      assert.equal(batch.status, 503);
      assert.equal(await storedCount(f.s), 1);
    } finally {
      await f.close();
    }
  });

  it("never answers 500 for bad input", async () => {
    const f = await apiFixture({ start: false });
    try {
      const junk = [
        "{}",
        '{"type":{}}',
        '{"type":"a","payload":{"deep":' + "[".repeat(100) + "]".repeat(100) + "}}",
        '{"type":"a","runAt":"yesterday"}',
        '{"type":"a","cron":"61 * * * *"}',
        '{"type":"a","every":"1h","dependsOn":["x"]}',
        '{"type":"a","dependsOn":["missing"]}',
        '{"type":"a","backoff":{"type":"linear"}}',
        '{"type":"a","timezone":"Mars/Olympus"}',
        '{"__proto__":{"type":"a"}}',
        '{"type":"a","priority":1e400}',
      ];
      const paths = [
        T,
        `${T}/batch`,
        `${T}/resubmit`,
        "/skedulr/api/pause",
        "/skedulr/api/pools/p",
      ];
      for (const path of paths) {
        for (const body of junk) {
          const wrapped = path.endsWith("batch") ? `[${body}]` : body;
          const res = await f.raw(path, { method: "POST", headers: JSON_TYPE, body: wrapped });
          assert.ok(res.status < 500, `${path} ${body} → ${res.status}`);
          if (path.startsWith(T)) assert.ok(res.status >= 400, `${path} ${body} → ${res.status}`);
          if (res.status >= 400) assert.ok(res.body.error?.code, `${path} ${body}`);
        }
      }
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });
});
