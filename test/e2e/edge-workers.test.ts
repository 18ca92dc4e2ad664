/**
 * The Cloudflare Worker (scripts/entry/cloudflare-worker.ts) running locally in workerd through
 * `wrangler dev --local`, in front of the REST gateway and the test run's throwaway Redis,
 * with a resident Bun worker over TCP on the same Redis and key prefix: tasks submitted to
 * the Worker over HTTP run on the Bun worker; cancel and resubmit through the Worker take
 * effect; the dashboard loads from the Worker.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { readSse, taskEventsOf } from "../helpers/sse.ts";
import {
  API_TOKEN,
  FIRST_START_MS,
  GATEWAY_TOKEN,
  startWrangler,
  type Wrangler,
  wranglerReady,
} from "../helpers/wrangler.ts";

const SLOW = { timeout: 30_000 };

describe("Cloudflare Worker in workerd (wrangler dev --local) with a Bun worker over TCP", () => {
  let gateway: RunningGateway;
  let wrangler: Wrangler;
  let bun: WorkerProcess;

  // Start-up runs in a test, not in `before`: Bun ignores a hook's own timeout, and a cold
  // workerd start can take longer than the default. `before` only starts it.
  let starting: Promise<void>;
  const start = async () => {
    const redisUrl = await testRedisUrl();
    const prefix = uniquePrefix("edge").replace(/^t:/, "t-");
    gateway = await startGateway({ redisUrl, token: GATEWAY_TOKEN });
    wrangler = await startWrangler({
      UPSTASH_REDIS_REST_URL: gateway.url,
      UPSTASH_REDIS_REST_TOKEN: GATEWAY_TOKEN,
      SKEDULR_TOKEN: API_TOKEN,
      SKEDULR_PREFIX: prefix,
      SKEDULR_HTTP_ALLOW: "127.0.0.1",
    });
    bun = await startWorker({
      REDIS_URL: redisUrl,
      SKEDULR_PREFIX: prefix,
      SKEDULR_JOBS: "test/e2e/fixtures/jobs.ts",
      SKEDULR_POOLS: "default=4",
      SKEDULR_HTTP_ALLOW: "127.0.0.1",
    });
    await ready(bun);
    await wranglerReady(wrangler);
  };
  before(() => {
    starting = start();
    starting.catch(() => {}); // reported by the first test
  });

  it(
    "starts wrangler dev, the gateway and a Bun worker",
    { timeout: FIRST_START_MS + 30_000 },
    () => starting,
  );

  after(async () => {
    await wrangler?.stop();
    await bun?.stop();
    await gateway?.stop();
  }, { timeout: 20_000 });

  const edge = async (path: string, body?: unknown, token: string | null = API_TOKEN) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(`${wrangler.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = r.headers.get("content-type") ?? "";
    return { status: r.status, body: type.includes("json") ? await r.json() : await r.text() };
  };

  const edgeTaskIs = (id: string, status: string) =>
    eventually(
      async () => {
        const r = await edge(`/api/tasks/${id}`);
        return r.body.status === status ? r.body : null;
      },
      `task ${id} to be ${status} (read through the Worker)`,
      10_000,
    );

  it("runs a task submitted to the Worker on the Bun worker", SLOW, async () => {
    await starting;
    assert.equal((await edge("/api/tasks", { type: "echo" }, null)).status, 401);
    const created = await edge("/api/tasks", { type: "echo", payload: { from: "edge" } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const t = await edgeTaskIs(created.body.id, "succeeded");
    assert.deepEqual(t.result, { from: "edge" });
    const workers = (await edge("/api/workers")).body.workers as { id: string; pid: number }[];
    const runner = workers.find((w) => w.id === t.workerId);
    assert.ok(runner, `ran on a listed instance: ${t.workerId}`);
    assert.equal(runner.pid, bun.child.pid, "the Bun worker ran it");
  });

  it(
    "streams task events from the Worker (SSE from the REST gateway's SSE), resumable",
    SLOW,
    async () => {
      await starting;
      const open = (headers: Record<string, string> = {}) =>
        fetch(`${wrangler.url}/api/events?type=echo`, {
          headers: { authorization: `Bearer ${API_TOKEN}`, ...headers },
        });
      const first = await open();
      assert.equal(first.status, 200);
      const stream = readSse(first);
      try {
        await eventually(() => stream.frames.some((f) => f.event === "open"), "the stream opens");
        const { body } = await edge("/api/tasks", { type: "echo", payload: { sse: 1 } });
        await eventually(
          () => taskEventsOf(stream.frames).some((e) => e.id === body.id && e.kind === "succeeded"),
          "the task's events through the Worker",
          10_000,
        );
        const kinds = taskEventsOf(stream.frames).filter((e) => e.id === body.id).map((e) =>
          e.kind
        );
        assert.deepEqual(kinds, ["created", "started", "succeeded"]);
        const created = taskEventsOf(stream.frames).find((e) => e.id === body.id)!;
        const resumed = readSse(await open({ "last-event-id": created.eventId }));
        await eventually(() => taskEventsOf(resumed.frames).length >= 2, "the resume", 10_000);
        assert.deepEqual(
          taskEventsOf(resumed.frames).filter((e) => e.id === body.id).map((e) => e.kind),
          ["started", "succeeded"],
        );
        await resumed.close();
      } finally {
        await stream.close();
      }
    },
  );

  it("cancels a running task through the Worker", SLOW, async () => {
    await starting;
    const { body } = await edge("/api/tasks", { type: "forever", maxRetries: 3 });
    await edgeTaskIs(body.id, "running");
    const r = await edge(`/api/tasks/${body.id}/cancel`, {});
    assert.deepEqual(r, { status: 200, body: { id: body.id, status: "cancelled" } });
    const t = await edgeTaskIs(body.id, "cancelled");
    assert.equal(t.attempt, 1, "the Bun worker aborted it: no retry");
  });

  it("resubmits a dead task through the Worker", SLOW, async () => {
    await starting;
    const { body } = await edge("/api/tasks", { type: "fails_once" });
    const dead = await edgeTaskIs(body.id, "dead");
    assert.equal(dead.error.message, "first run fails");
    const r = await edge(`/api/tasks/${body.id}/resubmit`, {});
    assert.deepEqual(r, { status: 200, body: { id: body.id, status: "queued" } });
    assert.equal((await edgeTaskIs(body.id, "succeeded")).result, "second run ok");
  });

  it("checks http targets at the edge and shows header values redacted", SLOW, async () => {
    await starting;
    const meta = await edge("/api/tasks", {
      type: "http",
      payload: { url: "http://169.254.169.254/latest/meta-data/" },
    });
    assert.equal(meta.status, 400);
    assert.equal(meta.body.error.issues[0].path, "payload.url");
    const got: string[] = [];
    const receiver = createServer((req, res) => {
      got.push(String(req.headers.authorization));
      res.end("ok");
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const port = (receiver.address() as { port: number }).port;
      const headers = { Authorization: "Bearer edge-s3cr3t" };
      const { status, body } = await edge("/api/tasks", {
        type: "http",
        payload: { url: `http://127.0.0.1:${port}/hook`, headers },
      });
      assert.equal(status, 201, JSON.stringify(body));
      const t = await edgeTaskIs(body.id, "succeeded");
      assert.deepEqual(got, ["Bearer edge-s3cr3t"], "the Bun worker sent the value");
      assert.deepEqual(t.payload.headers, { Authorization: "[redacted]" });
      assert.deepEqual((await edge("/api/tasks?q=edge-s3cr3t")).body.tasks, []);
    } finally {
      receiver.close();
    }
  });

  it("serves the dashboard page and its assets", SLOW, async () => {
    await starting;
    const page = await edge("/");
    assert.equal(page.status, 200);
    assert.match(page.body, /<title>Skedulr dashboard<\/title>/);
    const script = /src="(\/skedulr\/assets\/dashboard\.js[^"]*)"/.exec(page.body)?.[1];
    assert.ok(script, "the page links its script");
    const js = await fetch(`${wrangler.url.replace(/\/skedulr$/, "")}${script}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get("content-type") ?? "", /javascript/);
    const login = await edge("/", undefined, null);
    assert.equal(login.status, 401, "without the token: the login form");
  });
});
