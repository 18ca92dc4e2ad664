/**
 * HTTP API: a submit of a task type no live worker handles. `POST /tasks` answers it with
 * `warnings`, a batch with a top-level `warnings` naming each `[i]`; in strict mode both are
 * 422 `unknown_type` and nothing is stored.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";

/** A started worker handling `known` behind the app; strict or not. */
async function node(strictTypes: boolean) {
  const storage = new MemoryStorage();
  const s = new Scheduler({ storage, logger: silentLogger, pools: { default: 1 }, strictTypes });
  s.register("known", () => "ok");
  await s.start();
  const app = createApp({ scheduler: s });
  const call = async (path: string, body: unknown) => {
    const res = await app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    s,
    call,
    close: async () => {
      await s.shutdown({ timeoutMs: 0 });
      await storage.close();
    },
  };
}

describe("api: task types no live worker handles", () => {
  it("POST /tasks stores it and answers warnings; a handled type answers none", async () => {
    const f = await apiFixture({ handlers: { known: () => "ok" } });
    try {
      const res = await f.call("POST", T, { type: "unknown", delay: "1h" });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ["id", "status", "warnings"]);
      assert.deepEqual(res.body.warnings, [
        'no live worker handles type "unknown" (they handle known): a worker that claims the ' +
        'task fails it ("No handler registered")',
      ]);
      assert.equal((await f.call("GET", `${T}/${res.body.id}`)).body.status, "scheduled");
      const known = await f.call("POST", T, { type: "known" });
      assert.deepEqual(Object.keys(known.body).sort(), ["id", "status"]);
    } finally {
      await f.close();
    }
  });

  it("POST /tasks/batch answers a top-level warnings naming each [i]", async () => {
    const f = await apiFixture({ handlers: { known: () => "ok" } });
    try {
      const res = await f.call("POST", `${T}/batch`, [
        { type: "known" },
        { type: "report", delay: "1h" },
        { type: "known" },
        { type: "report", every: "1h" },
      ]);
      assert.equal(res.status, 201);
      assert.equal(res.body.warnings.length, 2);
      assert.match(res.body.warnings[0], /^\[1\]: no live worker handles type "report"/);
      assert.match(res.body.warnings[1], /^\[3\]: no live worker handles type "report"/);
      for (const t of res.body.tasks) assert.equal(t.warnings, undefined, "only top-level");
      const clean = await f.call("POST", `${T}/batch`, [{ type: "known" }]);
      assert.deepEqual(Object.keys(clean.body), ["tasks"]);
    } finally {
      await f.close();
    }
  });

  it("strict mode: 422 unknown_type with issues, nothing stored; handled types pass", async () => {
    const n = await node(true);
    try {
      const one = await n.call(T, { type: "unknown" });
      assert.equal(one.status, 422);
      assert.equal(one.body.error.code, "unknown_type");
      assert.deepEqual(one.body.error.issues.map((i: { path: string }) => i.path), ["type"]);
      const batch = await n.call(`${T}/batch`, [{ type: "known" }, { type: "unknown" }]);
      assert.equal(batch.status, 422);
      assert.deepEqual(batch.body.error.issues.map((i: { path: string }) => i.path), ["[1].type"]);
      assert.equal(await storedCount(n.s), 0, "nothing stored");
      const ok = await n.call(T, { type: "known" });
      assert.equal(ok.status, 201);
      assert.equal(ok.body.warnings, undefined);
    } finally {
      await n.close();
    }
  });
});
