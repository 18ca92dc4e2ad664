/**
 * @module api-index.test — the way in: `GET /` redirects to the dashboard, `GET /skedulr/api`
 * answers an index of the routes (read from the app itself, with each route's role) that
 * links to the docs, under the same Host check and roles as the rest of the API;
 * `/skedulr/healthz` names the transport as it reports itself (`memory`, `redis`,
 * `redis-rest`), as docs/CONTRACT.md says.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createApp } from "../../routes/app.ts";
import { dashboard } from "../../routes/dashboard.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { apiFixture } from "../helpers/api-app.ts";
import { makeKey } from "../helpers/keys.ts";

const TOKEN = "index-admin-token-0123456789";

describe("GET / and the API index", () => {
  it("GET / redirects to /skedulr (302), with no credential, on an open and a locked API", async () => {
    for (const token of [undefined, TOKEN]) {
      const f = await apiFixture({ start: false, token, dashboard });
      try {
        const res = await f.raw("/", { redirect: "manual" });
        assert.equal(res.status, 302, `token ${token}`);
        assert.equal(res.headers.get("location"), "/skedulr");
        assert.equal((await f.raw("/", { method: "HEAD" })).status, 302);
      } finally {
        await f.close();
      }
    }
  });

  it("the Host check applies to / and /skedulr/api on an open API", async () => {
    const f = await apiFixture({ start: false });
    try {
      for (const path of ["/", "/skedulr/api"]) {
        const res = await f.raw(path, { headers: { Host: "evil.example:8080" } });
        assert.equal(res.status, 403, path);
        assert.equal(res.body.error.code, "forbidden");
      }
    } finally {
      await f.close();
    }
  });

  it("/skedulr/api lists every API route with its role and summary, and links the docs", async () => {
    const f = await apiFixture({ start: false, version: "1.2.3", dashboard });
    try {
      for (const path of ["/skedulr/api", "/skedulr/api/"]) {
        const res = await f.call("GET", path);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get("cache-control"), "no-store");
        const index = res.body;
        assert.equal(index.version, "1.2.3");
        assert.equal(index.docs, "/skedulr/api/docs");
        assert.equal(index.openapi, "/skedulr/api/openapi.json");
        assert.equal(index.dashboard, "/skedulr");
        const line = (method: string, p: string) =>
          index.routes.find((r: { method: string; path: string }) =>
            r.method === method && r.path === p
          );
        assert.deepEqual(
          { ...line("POST", "/skedulr/api/tasks"), summary: undefined },
          { method: "POST", path: "/skedulr/api/tasks", role: "submit", summary: undefined },
        );
        assert.equal(typeof line("POST", "/skedulr/api/tasks").summary, "string");
        assert.equal(line("POST", "/skedulr/api/pause").role, "admin");
        assert.equal(line("GET", "/skedulr/api/tasks/:id").role, "read");
        assert.equal(line("GET", "/skedulr/api").role, "read", "the index lists itself");
        assert.equal(line("GET", "/skedulr/metrics").role, "read");
        assert.equal(line("GET", "/skedulr/healthz").role, null, "healthz needs no credential");
        // Every route the app serves under /skedulr/api is listed: nothing drifts.
        const served = new Set(
          f.app.routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/skedulr/api"))
            .map((r) => `${r.method} ${r.path}`),
        );
        const listed = new Set(
          index.routes.map((r: { method: string; path: string }) => `${r.method} ${r.path}`),
        );
        for (const route of served) assert.ok(listed.has(route), `${route} listed`);
        // Each docs link answers.
        assert.equal((await f.call("GET", index.docs)).status, 200);
        assert.equal((await f.call("GET", index.openapi)).status, 200);
      }
    } finally {
      await f.close();
    }
  });

  it("with credentials the index needs the read role, like the docs it links to", async () => {
    const reader = await makeKey("grafana", "read");
    const f = await apiFixture({ start: false, token: TOKEN, keys: [reader.entry] });
    try {
      const anonymous = await f.call("GET", "/skedulr/api");
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.error.code, "unauthorized");
      assert.equal((await f.call("GET", "/skedulr/api", undefined, reader.bearer)).status, 200);
    } finally {
      await f.close();
    }
  });
});

/** A transport that answers nothing, for naming only: it speaks RESP by default. */
const silentTransport: RedisTransport = {
  name: "fake",
  send: () => Promise.reject(new Error("no server")),
  pipeline: () => Promise.reject(new Error("no server")),
  subscribe: () => Promise.reject(new Error("no server")),
  close: () => Promise.resolve(),
};

describe("healthz names the transport", () => {
  const healthz = async (storage: RedisStorage) => {
    const scheduler = new Scheduler({ storage, logger: silentLogger });
    const app = createApp({ scheduler });
    const res = await app.request("/skedulr/healthz");
    return { status: res.status, body: await res.json() };
  };

  it("memory for the embedded store", async () => {
    const f = await apiFixture({ start: false });
    try {
      assert.deepEqual((await f.call("GET", "/skedulr/healthz")).body, {
        ok: true,
        storage: "memory",
      });
    } finally {
      await f.close();
    }
  });

  it("redis over a TCP transport, redis-rest over the REST transport (even when down)", async () => {
    const tcp = new RedisStorage({ transport: silentTransport, checkEvictionPolicy: false });
    assert.equal(tcp.name, "redis");
    const down = await healthz(tcp);
    assert.equal(down.status, 503);
    assert.equal(down.body.storage, "redis");

    // Port 9 (discard) on loopback: nothing listens, so every request fails at once.
    const transport = new RestTransport({ url: "http://127.0.0.1:9", token: "t", retries: 0 });
    const rest = new RedisStorage({ transport, checkEvictionPolicy: false });
    try {
      assert.equal(transport.protocol, "redis-rest");
      assert.equal(rest.name, "redis-rest");
      const res = await healthz(rest);
      assert.equal(res.status, 503);
      assert.deepEqual([res.body.ok, res.body.storage], [false, "redis-rest"]);
    } finally {
      await transport.close();
    }
  });

  it("docs/CONTRACT.md's healthz row names all three", () => {
    const sheet = readFileSync("docs/CONTRACT.md", "utf8");
    const row = sheet.split("\n").find((l) => l.startsWith("| `GET /skedulr/healthz`"));
    assert.ok(row, "a healthz row");
    for (const name of ["memory", "redis", "redis-rest"]) {
      assert.ok(row.includes(`\`${name}\``), `${name} named`);
    }
  });
});
