/**
 * `bun run worker` as a real process, driven over HTTP like any language would.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { ready, startWorker, type WorkerProcess } from "../helpers/worker-process.ts";
import { eventually } from "../helpers/wait.ts";
import { verifySignature } from "../../src/mod.ts";

const SIGNING_KEY = "e2e-signing-key-abcdef";

async function api(w: WorkerProcess, path: string, body?: unknown, method = body ? "POST" : "GET") {
  const r = await fetch(`${w.url}/api${path}`, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.json() };
}

const taskIs = (w: WorkerProcess, id: string, status: string) =>
  eventually(
    async () => {
      const r = await api(w, `/tasks/${id}`);
      return r.body.status === status ? r.body : null;
    },
    `task ${id} ${status}`,
    10_000,
  );

describe("bun run worker over HTTP (embedded store)", () => {
  let w: WorkerProcess;
  before(async () => {
    w = await ready(
      await startWorker({
        SKEDULR_JOBS: "test/e2e/fixtures/jobs.ts",
        SKEDULR_SIGNING_KEY: SIGNING_KEY,
        SKEDULR_POOLS: "default=4",
      }),
    );
  });
  after(async () => {
    await w.stop();
  });

  it("submit → run → get round trip", async () => {
    const created = await api(w, "/tasks", { type: "echo", payload: { hello: "world" } });
    assert.equal(created.status, 201);
    const t = await taskIs(w, created.body.id, "succeeded");
    assert.deepEqual(t.result, { hello: "world" });
  });

  it("cancels a running task", async () => {
    const { body } = await api(w, "/tasks", { type: "forever", maxRetries: 3 });
    await taskIs(w, body.id, "running");
    const r = await api(w, `/tasks/${body.id}/cancel`, {});
    assert.deepEqual(r, { status: 200, body: { id: body.id, status: "cancelled" } });
    const t = await taskIs(w, body.id, "cancelled");
    assert.equal(t.attempt, 1, "no retry after cancel");
    assert.equal((await api(w, `/tasks/${body.id}/cancel`, {})).status, 409);
  });

  it("dead → resubmit → succeeded", async () => {
    const { body } = await api(w, "/tasks", { type: "fails_once" });
    const dead = await taskIs(w, body.id, "dead");
    assert.equal(dead.error.message, "first run fails");
    const r = await api(w, `/tasks/${body.id}/resubmit`, {});
    assert.deepEqual(r, { status: 200, body: { id: body.id, status: "queued" } });
    const t = await taskIs(w, body.id, "succeeded");
    assert.equal(t.result, "second run ok");
  });

  it("delivers an http task to a local receiver that verifies the signature", async () => {
    const got: { verified: boolean; body: string }[] = [];
    const receiver = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      const verified = await verifySignature(
        SIGNING_KEY,
        String(req.headers["skedulr-timestamp"]),
        body,
        String(req.headers["skedulr-signature"]),
      );
      got.push({ verified, body });
      res.writeHead(verified ? 200 : 401).end(verified ? "ok" : "bad signature");
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const port = (receiver.address() as { port: number }).port;
      const { body } = await api(w, "/tasks", {
        type: "http",
        payload: { url: `http://127.0.0.1:${port}/hook`, body: { order: 42 } },
      });
      const t = await taskIs(w, body.id, "succeeded");
      assert.deepEqual(got, [{ verified: true, body: '{"order":42}' }]);
      assert.equal(t.result.status, 200);
    } finally {
      receiver.close();
    }
  });

  it("rejects bad input with 400 naming the field and stores nothing", async () => {
    const r = await api(w, "/tasks", { type: "echo", delay: "soon" });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, "invalid_request");
    assert.equal(r.body.error.issues[0].path, "delay");
  });
});

describe("worker process lifecycle", () => {
  it("drains on SIGTERM: running handlers finish, then it exits 0", async () => {
    const w = await ready(await startWorker({ SKEDULR_JOBS: "test/e2e/fixtures/jobs.ts" }));
    const { body } = await api(w, "/tasks", { type: "sleep", payload: { ms: 500 } });
    await taskIs(w, body.id, "running");
    const code = await w.stop("SIGTERM");
    assert.equal(code, 0);
    assert.match(w.output(), /SIGTERM: draining/);
    assert.match(w.output(), /stopped/);
  });

  it("fails at start naming the variable when configuration is bad", async () => {
    for (
      const [env, pattern] of [
        [{ REDIS_URL: "localhost:6379" }, /REDIS_URL: expected redis:\/\/host:port/],
        [{ SKEDULR_POOLS: "default=lots" }, /SKEDULR_POOLS: expected name=size pairs/],
        [
          { SKEDULR_JOBS: "./missing-jobs.ts" },
          /SKEDULR_JOBS: module "\.\/missing-jobs\.ts" not found/,
        ],
      ] as const
    ) {
      const w = await startWorker(env as Record<string, string>);
      const code = await w.exited;
      assert.notEqual(code, 0);
      assert.match(w.output(), pattern);
    }
  });

  it("with SKEDULR_TOKEN, requires the bearer token", async () => {
    const token = "e2e-token-0123456789abcdef";
    const w = await ready(
      await startWorker({ SKEDULR_TOKEN: token, SKEDULR_JOBS: "test/e2e/fixtures/jobs.ts" }),
    );
    try {
      assert.equal((await fetch(`${w.url}/api/stats`)).status, 401);
      const ok = await fetch(`${w.url}/api/stats`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(ok.status, 200);
      assert.match(w.output(), /bearer token required/);
    } finally {
      await w.stop();
    }
  });
});
