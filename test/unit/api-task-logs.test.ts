/**
 * HTTP API, `GET /tasks/:id/logs`: a task's `ctx.log` lines, paged and filtered by attempt,
 * 404 for an unknown task and 400 naming a bad query parameter, through `app.request()`
 * against a real Scheduler on the embedded store.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { TaskContext } from "../../src/mod.ts";
import { apiFixture } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";

/** Logs three lines an attempt; the first attempt fails, the second succeeds. */
function twice(_p: unknown, ctx: TaskContext) {
  for (const step of ["fetch", "parse", "store"]) {
    ctx.log(`${step} <b>${ctx.attempt}</b>`, { step, attempt: ctx.attempt });
  }
  if (ctx.attempt === 1) throw new Error("first attempt fails");
  return "ok";
}

describe("api: a task's log", () => {
  it("GET /tasks/:id/logs answers its lines oldest first, paged and filtered by attempt", async () => {
    const f = await apiFixture({ handlers: { twice } });
    try {
      const id = (await f.call("POST", T, {
        type: "twice",
        maxRetries: 1,
        backoff: { type: "fixed", delay: "10ms" },
      })).body.id;
      await f.until(id, "succeeded");
      const all = await f.call("GET", `${T}/${id}/logs`);
      assert.equal(all.status, 200);
      assert.deepEqual(Object.keys(all.body).sort(), ["dropped", "logs", "next"]);
      assert.equal(all.body.dropped, 0);
      assert.equal(all.body.next, null);
      const lines = all.body.logs as { at: number; attempt: number; message: string }[];
      assert.deepEqual(lines.map((l) => `${l.attempt} ${l.message}`), [
        "1 fetch <b>1</b>",
        "1 parse <b>1</b>",
        "1 store <b>1</b>",
        "2 fetch <b>2</b>",
        "2 parse <b>2</b>",
        "2 store <b>2</b>",
      ]);
      assert.deepEqual(Object.keys(lines[0]).sort(), ["at", "attempt", "fields", "message"]);
      assert.deepEqual(all.body.logs[3].fields, { step: "fetch", attempt: 2 });
      assert.ok(lines.every((l, i) => typeof l.at === "number" && l.at >= (lines[i - 1]?.at ?? 0)));

      const second = await f.call("GET", `${T}/${id}/logs?attempt=2&limit=2`);
      assert.deepEqual(second.body.logs.map((l: { message: string }) => l.message), [
        "fetch <b>2</b>",
        "parse <b>2</b>",
      ]);
      assert.ok(second.body.next);
      const cursor = encodeURIComponent(second.body.next);
      const rest = await f.call("GET", `${T}/${id}/logs?attempt=2&limit=2&cursor=${cursor}`);
      assert.deepEqual(rest.body.logs.map((l: { message: string }) => l.message), [
        "store <b>2</b>",
      ]);
      assert.equal(rest.body.next, null);
    } finally {
      await f.close();
    }
  });

  it("is empty for a task that logged nothing, 404 for an unknown one", async () => {
    const f = await apiFixture({ start: false });
    try {
      const id = (await f.call("POST", T, { type: "quiet" })).body.id;
      const empty = await f.call("GET", `${T}/${id}/logs`);
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, { logs: [], dropped: 0, next: null });
      const missing = await f.call("GET", `${T}/no-such-task/logs`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, "not_found");
    } finally {
      await f.close();
    }
  });

  it("a bad query is 400 naming the parameter", async () => {
    const f = await apiFixture({ start: false });
    try {
      const id = (await f.call("POST", T, { type: "quiet" })).body.id;
      const cases: [string, string][] = [
        ["limit=0", "limit"],
        ["limit=1001", "limit"],
        ["attempt=0", "attempt"],
        ["attempt=first", "attempt"],
        [`cursor=${"9".repeat(300)}`, "cursor"],
        ["attmept=1", "attmept"],
      ];
      for (const [query, param] of cases) {
        const res = await f.call("GET", `${T}/${id}/logs?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, "invalid_request");
        assert.equal(res.body.error.issues[0].path, param, query);
      }
    } finally {
      await f.close();
    }
  });
});
