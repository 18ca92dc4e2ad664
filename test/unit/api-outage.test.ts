/**
 * HTTP API during a storage outage, on a private redis-server: paused (SIGSTOP), killed and
 * restarted, full (maxmemory), loading. Every API request answers 503 `storage` with
 * Retry-After within its deadline, healthz within 1 s, and all works again once Redis is back.
 * Also: a request longer than Bun's default idle timeout through a real server, the
 * persistence probe, and SKEDULR_API_TIMEOUT.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { readFileSync } from "node:fs";
import { createApp } from "../../routes/app.ts";
import { ConfigError, parseWorkerConfig, Scheduler, silentLogger } from "../../src/mod.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { idleTimeoutSeconds, serve } from "../../src/adapters/serve.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import {
  type RedisServerHandle,
  startRedisServer,
  uniquePrefix,
} from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const T = "/skedulr/api/tasks";

interface Answer {
  status: number;
  headers: Headers;
  body: any;
  ms: number;
}

/** One Redis, one store, apps over it with any deadline; Redis can be paused or replaced. */
class Outage {
  server!: RedisServerHandle;
  storage!: RedisStorage;
  admin!: RedisTransport;
  scheduler!: Scheduler;
  #stopped = false;

  async start(extraArgs: string[] = []): Promise<void> {
    this.server = await startRedisServer(extraArgs);
    this.admin = connectRedisTcp(this.server.url);
    this.storage = new RedisStorage({
      transport: connectRedisTcp(this.server.url),
      prefix: uniquePrefix("outage"),
    });
    await this.storage.init();
    // API-only, like `serve`: no pools, so nothing but the requests talks to Redis.
    this.scheduler = new Scheduler({ storage: this.storage, logger: silentLogger, pools: {} });
  }

  app(requestTimeoutMs?: number) {
    return createApp({ scheduler: this.scheduler, requestTimeoutMs });
  }

  /** SIGSTOP, then waits until the kernel shows it stopped (a command already on its way
   * could otherwise still be answered). */
  async pause(): Promise<void> {
    process.kill(this.server.pid, "SIGSTOP");
    this.#stopped = true;
    const state = () => readFileSync(`/proc/${this.server.pid}/stat`, "utf8").split(") ")[1][0];
    await eventually(() => state() === "T", "redis-server stopped", 2_000);
  }

  resume(): void {
    if (this.#stopped) process.kill(this.server.pid, "SIGCONT");
    this.#stopped = false;
  }

  async close(): Promise<void> {
    this.resume();
    await this.storage.close();
    await this.admin.close();
    await this.server.stop();
  }
}

async function call(
  app: { request(path: string, init?: RequestInit): Response | Promise<Response> },
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const started = Date.now();
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  const res = await app.request(path, init);
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: JSON.parse(text),
    ms: Date.now() - started,
  };
}

/** 503 `storage` with Retry-After, answered within `withinMs`, its message naming a fault. */
function assertUnavailable(a: Answer, withinMs: number, fault: RegExp, what: string): void {
  assert.equal(a.status, 503, `${what}: ${JSON.stringify(a.body)}`);
  assert.equal(a.body.error.code, "storage", what);
  assert.match(a.body.error.message, fault, what);
  assert.equal(a.headers.get("retry-after"), "1", what);
  assert.ok(a.ms < withinMs, `${what} answered after ${a.ms} ms, expected < ${withinMs} ms`);
}

/** The three calls the issue names, at once: submit, get one, list. */
function threeCalls(app: ReturnType<Outage["app"]>, id: string): Promise<Answer[]> {
  return Promise.all([
    call(app, "POST", T, { type: "t", id }),
    call(app, "GET", `${T}/${id}`),
    call(app, "GET", T),
  ]);
}

describe("api outage: Redis paused, killed, full", () => {
  const o = new Outage();
  before(() => o.start());
  after(() => o.close());

  it("paused: 503 storage within the deadline, healthz 503 within 1 s, then back", async () => {
    const app = o.app(500);
    assert.equal((await call(app, "GET", "/skedulr/healthz")).status, 200);
    await o.pause();
    const answers = await threeCalls(app, "paused-1");
    for (const [i, a] of answers.entries()) {
      assertUnavailable(
        a,
        1_500,
        /did not answer in time \(no answer within 500 ms\)/,
        `call ${i}`,
      );
      assert.ok(a.ms >= 450, `call ${i} waited its deadline (${a.ms} ms)`);
    }
    const health = await call(app, "GET", "/skedulr/healthz");
    assert.equal(health.status, 503);
    assert.ok(health.ms < 1_000, `healthz answered after ${health.ms} ms`);
    assert.equal(health.body.ok, false);
    assert.equal(health.body.storage, "redis");
    assert.match(health.body.error, /PING/);
    assert.equal(health.headers.get("retry-after"), "1");
    o.resume();
    await eventually(async () => (await call(app, "GET", T)).status === 200, "Redis back");
    assert.equal((await call(app, "GET", "/skedulr/healthz")).status, 200);
    // The submit that timed out may or may not have been stored: retrying it is safe.
    const retry = await call(app, "POST", T, { type: "t", id: "paused-1" });
    assert.ok(retry.status === 200 || retry.status === 201, JSON.stringify(retry.body));
    const again = await call(app, "POST", T, { type: "t", id: "paused-1" });
    assert.equal(again.status, 200);
    // No worker runs here: the answer also warns that nothing handles type "t" yet.
    const { warnings: _, ...answer } = again.body;
    assert.deepEqual(answer, { id: "paused-1", status: "queued", existing: true });
  });

  it("paused, default deadline: 503 after about 2 s, naming 2000 ms", async () => {
    const app = o.app();
    await o.pause();
    try {
      const a = await call(app, "GET", `${T}/default-1`);
      assertUnavailable(a, 3_000, /no answer within 2000 ms/, "GET at the default deadline");
      assert.ok(a.ms >= 1_900, `answered after ${a.ms} ms`);
    } finally {
      o.resume();
    }
  });

  it("full (maxmemory, noeviction): a submit is 503 storage 'full'; reads still work", async () => {
    const app = o.app(500);
    await o.admin.send(["CONFIG", "SET", "maxmemory", "1"]);
    try {
      const a = await call(app, "POST", T, { type: "t", id: "full-1" });
      assertUnavailable(a, 1_500, /full/, "POST while full");
      assert.equal((await call(app, "GET", T)).status, 200);
      assert.equal((await call(app, "GET", `${T}/full-1`)).status, 404, "nothing was stored");
    } finally {
      await o.admin.send(["CONFIG", "SET", "maxmemory", "0"]);
    }
    assert.equal((await call(app, "POST", T, { type: "t", id: "full-1" })).status, 201);
  });

  it("killed: 503 storage within the deadline; after a restart requests succeed", {
    timeout: 30_000,
  }, async () => {
    const app = o.app(500);
    const port = o.server.port;
    await o.server.stop();
    const answers = await threeCalls(app, "killed-1");
    for (const [i, a] of answers.entries()) {
      assertUnavailable(a, 1_500, /unreachable|did not answer/, `call ${i}`);
    }
    const health = await call(app, "GET", "/skedulr/healthz");
    assert.equal(health.status, 503);
    assert.ok(health.ms < 1_000, `healthz answered after ${health.ms} ms`);
    o.server = await startRedisServer([], { port });
    // A try that timed out may have been stored after all: then its retry answers 200.
    await eventually(
      async () => {
        const a = await call(app, "POST", T, { type: "t", id: "killed-2" });
        if (a.status !== 201 && a.status !== 200) {
          throw new Error(`${a.status} ${a.body.error?.message}`);
        }
        return true;
      },
      "submits to work after the restart",
      15_000,
    );
    assert.equal((await call(app, "GET", `${T}/killed-2`)).status, 200);
    assert.equal((await call(app, "GET", "/skedulr/healthz")).status, 200);
  });

  it("persistence(): appendonly and save as Redis reports them", async () => {
    assert.deepEqual(await o.storage.persistence(), { appendonly: false, save: false });
    await o.admin.send(["CONFIG", "SET", "save", "3600 1"]);
    assert.deepEqual(await o.storage.persistence(), { appendonly: false, save: true });
    await o.admin.send(["CONFIG", "SET", "save", ""]);
  });
});

describe("api outage: Redis loading its data", () => {
  const o = new Outage();
  before(() => o.start(["--enable-debug-command", "yes"]));
  after(() => o.close());

  it("a request while Redis loads is 503 storage 'loading'", { timeout: 30_000 }, async () => {
    const app = o.app(500);
    // A reload of a million keys takes about a second; LOADING is answered meanwhile.
    await o.admin.send(["DEBUG", "POPULATE", "1000000", "filler"]);
    const reload = o.admin.send(["DEBUG", "RELOAD"]);
    const loading = await eventually(
      async () => {
        const a = await call(app, "GET", `${T}/loading-1`);
        return a.status === 503 && /loading/.test(a.body.error.message) ? a : null;
      },
      "a LOADING answer",
      15_000,
    );
    assertUnavailable(loading, 1_500, /is loading its data after a restart/, "GET while loading");
    assert.equal(await reload, "OK");
    await eventually(async () => (await call(app, "GET", `${T}/loading-1`)).status === 404);
  });
});

describe("api outage: through a real server", () => {
  const o = new Outage();
  before(() => o.start());
  after(() => o.close());

  it("a request longer than Bun's default 10 s idle timeout still gets its answer", {
    timeout: 30_000,
  }, async () => {
    const server = await serve(o.app(12_000).fetch, {
      port: 0,
      hostname: "127.0.0.1",
      requestTimeoutMs: 12_000,
    });
    await o.pause();
    try {
      const started = Date.now();
      const res = await fetch(`http://127.0.0.1:${server.port}${T}`);
      const body = await res.json();
      const ms = Date.now() - started;
      assert.equal(res.status, 503, JSON.stringify(body));
      assert.equal(body.error.code, "storage");
      assert.match(body.error.message, /no answer within 12000 ms/);
      assert.ok(ms >= 11_500, `answered after ${ms} ms`);
    } finally {
      o.resume();
      await server.stop();
    }
  });
});

describe("api outage: configuration", () => {
  it("SKEDULR_API_TIMEOUT is a duration, 100ms to 4m, default 2s", () => {
    assert.equal(parseWorkerConfig({}).apiTimeoutMs, 2_000);
    assert.equal(parseWorkerConfig({ SKEDULR_API_TIMEOUT: "5s" }).apiTimeoutMs, 5_000);
    assert.equal(parseWorkerConfig({ SKEDULR_API_TIMEOUT: "750" }).apiTimeoutMs, 750);
    for (const bad of ["soon", "50ms", "5m", "-1s"]) {
      assert.throws(() => parseWorkerConfig({ SKEDULR_API_TIMEOUT: bad }), (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /SKEDULR_API_TIMEOUT/);
        return true;
      });
    }
  });

  it("the server's idle timeout stays above the request deadline", () => {
    assert.equal(idleTimeoutSeconds(), 10);
    assert.ok(idleTimeoutSeconds(12_000) > 12);
    assert.ok(idleTimeoutSeconds(240_000) > 240);
    assert.ok(idleTimeoutSeconds(240_000) <= 255, "Bun's largest");
  });

  it("createApp refuses a bad requestTimeoutMs", () => {
    const scheduler = new Scheduler({ logger: silentLogger });
    for (const bad of [0, -5, 1.5, Number.NaN, 2 ** 31]) {
      assert.throws(() => createApp({ scheduler, requestTimeoutMs: bad }), /requestTimeoutMs/);
    }
  });
});
