/**
 * `bun run worker` as a real process, driven over HTTP like any language would. Its `http`
 * tasks reach the local receivers through SKEDULR_HTTP_ALLOW=localhost, the only internal
 * target it opens: everything else internal is refused, at submit or once resolved.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { DEFAULT_OUTBOUND_POLICY } from "../../src/core/outbound-policy.ts";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { verifySignature } from "../../src/mod.ts";

const SIGNING_KEY = "e2e-signing-key-abcdef";

/** A receiver on 127.0.0.1 that records each request and its body. */
async function receiver(
  answer: (req: IncomingMessage, body: string) => Promise<number> | number = () => 200,
): Promise<{ port: number; got: { req: IncomingMessage; body: string }[]; server: Server }> {
  const got: { req: IncomingMessage; body: string }[] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    got.push({ req, body });
    const status = await answer(req, body);
    res.writeHead(status).end(status === 200 ? "ok" : "bad signature");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as { port: number }).port, got, server };
}

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
        SKEDULR_HTTP_ALLOW: "localhost",
        SKEDULR_HISTORY: "quiet=0",
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

  it("SKEDULR_HISTORY=quiet=0 keeps quiet's successes out of history, in durations and totals", async () => {
    const quiet = await api(w, "/tasks", { type: "quiet", payload: 1 });
    const loud = await api(w, "/tasks", { type: "echo", payload: 2 });
    await taskIs(w, quiet.body.id, "succeeded");
    await taskIs(w, loud.body.id, "succeeded");
    const filed = async (type: string) => (await api(w, `/history?type=${type}`)).body.attempts;
    assert.deepEqual(await filed("quiet"), []);
    assert.ok((await filed("echo")).some((a: { taskId: string }) => a.taskId === loud.body.id));
    const stats = (await api(w, "/stats")).body;
    assert.equal(stats.durations.quiet.count, 1);
  });

  it("GET /tasks/:id/wait outlasts the request deadline and the server's idle timeout", {
    timeout: 30_000,
  }, async () => {
    const { body } = await api(w, "/tasks", { type: "sleep", payload: { ms: 12_000 } });
    const started = Date.now();
    const r = await fetch(`${w.url}/api/tasks/${body.id}/wait?timeout=25s`);
    assert.equal(r.status, 200);
    const record = JSON.parse(await r.text());
    assert.equal(record.status, "succeeded");
    assert.ok(Date.now() - started >= 11_000, "it waited for the task, not for a timeout");
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
    const r = await receiver(async (req, body) => {
      const verified = await verifySignature(
        SIGNING_KEY,
        String(req.headers["skedulr-timestamp"]),
        body,
        String(req.headers["skedulr-signature"]),
      );
      return verified ? 200 : 401;
    });
    try {
      const { body } = await api(w, "/tasks", {
        type: "http",
        payload: { url: `http://localhost:${r.port}/hook`, body: { order: 42 } },
      });
      const t = await taskIs(w, body.id, "succeeded");
      assert.deepEqual(r.got.map((g) => g.body), ['{"order":42}']);
      assert.equal(t.result.status, 200);
      assert.match(w.output(), /http: +tasks may call public addresses and localhost/);
    } finally {
      r.server.close();
    }
  });

  it("a task's callback reaches a local receiver, signed, from the callbacks pool the worker runs", async () => {
    const r = await receiver(async (req, body) => {
      const at = String(req.headers["skedulr-timestamp"]);
      const ok = await verifySignature(
        SIGNING_KEY,
        at,
        body,
        String(req.headers["skedulr-signature"]),
      );
      return ok ? 200 : 401;
    });
    try {
      const callback = { url: `http://localhost:${r.port}/done`, on: ["succeeded"] };
      const { body } = await api(w, "/tasks", { type: "echo", payload: { n: 1 }, callback });
      const done = await taskIs(w, body.id, "succeeded");
      const cb = await taskIs(w, `__cb_${body.id}_1`, "succeeded");
      assert.equal(cb.pool, "callbacks");
      assert.equal(cb.result.status, 200, "the signature verified");
      const sent = JSON.parse(r.got[0].body);
      assert.equal(sent.event, "task.succeeded");
      const { parents: _p, children: _c, childrenNext: _n, ...record } = done;
      assert.deepEqual(sent.task, record);
      assert.match(w.output(), /pools: +default=4, callbacks=2 \(callbacks run in callbacks\)/);
      const refused = await api(w, "/tasks", {
        type: "echo",
        callback: { url: "http://127.0.0.1/done" },
      });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.issues[0].path, "callback.url");
    } finally {
      r.server.close();
    }
  });

  it("refuses internal targets written as addresses: 400 naming payload.url", async () => {
    for (const host of ["127.0.0.1", "0x7f.1", "[::1]", "169.254.169.254", "10.0.0.1"]) {
      const r = await api(w, "/tasks", { type: "http", payload: { url: `http://${host}/` } });
      assert.equal(r.status, 400, host);
      assert.equal(r.body.error.issues[0].path, "payload.url", host);
      assert.match(r.body.error.issues[0].message, /refused by the outbound policy/);
    }
    const h = await api(w, "/tasks", {
      type: "http",
      payload: { url: "https://example.com/", headers: { "Transfer-Encoding": "chunked" } },
    });
    assert.equal(h.status, 400);
    assert.equal(h.body.error.issues[0].path, "payload.headers.Transfer-Encoding");
  });

  it("a name that resolves to an internal address is dead at once, never retried", async () => {
    // The machine's own name resolves to a loopback or private address (Debian, Docker, CI).
    const name = hostname();
    const found = await lookup(name, { all: true }).catch(() => []);
    const refused = found.map((a) => DEFAULT_OUTBOUND_POLICY.checkResolved(name, a.address));
    assert.ok(
      found.length > 0 && refused.every(Boolean),
      `this test needs the host name ${name} to resolve to loopback or private addresses only; ` +
        `it resolves to ${JSON.stringify(found)}`,
    );
    const r = await receiver();
    try {
      const { body } = await api(w, "/tasks", {
        type: "http",
        payload: { url: `http://${name}:${r.port}/hook` },
        maxRetries: 3,
      });
      const t = await taskIs(w, body.id, "dead");
      assert.equal(t.attempt, 1);
      assert.match(t.error.message, /^Refused by the outbound policy: .* resolves to /);
      assert.equal(r.got.length, 0);
    } finally {
      r.server.close();
    }
  });

  it("shows header values as redacted and never matches them in search", async () => {
    const r = await receiver();
    const secret = "Bearer e2e-s3cr3t-token";
    try {
      const { body } = await api(w, "/tasks", {
        type: "http",
        payload: { url: `http://localhost:${r.port}/hook`, headers: { Authorization: secret } },
      });
      const t = await taskIs(w, body.id, "succeeded");
      assert.equal(r.got[0].req.headers.authorization, secret, "the target gets the value");
      assert.deepEqual(t.payload.headers, { Authorization: "[redacted]" });
      const found = await api(w, "/tasks?q=e2e-s3cr3t");
      assert.deepEqual(found.body.tasks, []);
      assert.ok(!JSON.stringify((await api(w, "/tasks")).body).includes("s3cr3t"));
    } finally {
      r.server.close();
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
        [{ SKEDULR_HTTP_ALLOW: "10.0.0.0/33" }, /SKEDULR_HTTP_ALLOW: .*"10\.0\.0\.0\/33"/],
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
      assert.match(w.output(), /bearer (token|credential) required/);
    } finally {
      await w.stop();
    }
  });
});
