/**
 * HTTP API, DNS rebinding: an API with no credential answers only loopback `Host` names,
 * so a page whose name was re-pointed at 127.0.0.1 can neither pause pools nor submit; with
 * a credential, `allowedHosts` narrows the names served. The repro runs byte for
 * byte against a real server (src/adapters/serve.ts), and through `app.request`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { serve } from "../../src/adapters/serve.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { parseWorkerConfig } from "../../src/worker/config.ts";
import { apiFixture, storedCount } from "../helpers/api-app.ts";
import { rawRequest } from "../helpers/raw-http.ts";

const A = "/skedulr/api";
const TOKEN = "host-check-token-0123456789";

/** The repro's headers: a rebinding page on evil.example that the browser thinks same-origin. */
const rebound = (port: number | string) => ({
  Host: `evil.example:${port}`,
  Origin: `http://evil.example:${port}`,
  "Sec-Fetch-Site": "same-origin",
});

describe("api host check: DNS rebinding with no token set", () => {
  it("the issue's repro on a real server: pause and submit → 403, nothing paused or stored", async () => {
    const storage = new MemoryStorage();
    const scheduler = new Scheduler({ storage, logger: silentLogger, pools: { default: 2 } });
    await scheduler.scalePool("default", 2); // a pool the pause would reach
    const app = createApp({ scheduler });
    const server = await serve(app.fetch, { port: 0, hostname: "127.0.0.1" });
    try {
      const json = { ...rebound(server.port), "Content-Type": "application/json" };
      const pause = await rawRequest(server.port, "POST", `${A}/pause`, json, "{}");
      assert.equal(pause.status, 403, pause.body);
      const error = JSON.parse(pause.body).error;
      assert.equal(error.code, "forbidden");
      assert.match(error.message, /Host "evil\.example:\d+" is not served/);
      assert.equal(pause.headers["x-content-type-options"], "nosniff");
      const submit = await rawRequest(server.port, "POST", `${A}/tasks`, json, '{"type":"a"}');
      assert.equal(submit.status, 403);
      const read = await rawRequest(server.port, "GET", `${A}/stats`, rebound(server.port));
      assert.equal(read.status, 403, "reads too: a rebinding page must not read tasks either");
      const page = await rawRequest(server.port, "GET", "/skedulr", rebound(server.port));
      assert.equal(page.status, 403);
      assert.ok((await storage.poolControls()).every((p) => !p.paused), "nothing paused");
      assert.equal(await storedCount(scheduler), 0, "nothing stored");

      const local = { Host: `127.0.0.1:${server.port}`, "Content-Type": "application/json" };
      const ok = await rawRequest(server.port, "POST", `${A}/tasks`, local, '{"type":"a"}');
      assert.equal(ok.status, 201, ok.body);
      const health = await rawRequest(server.port, "GET", "/skedulr/healthz", rebound(server.port));
      assert.equal(health.status, 200, "healthz is exempt: probes use the node's address");
    } finally {
      await server.stop();
      await storage.close();
    }
  });

  it("serves localhost, 127.0.0.1 and [::1] on any port, and no other name", async () => {
    const f = await apiFixture({ start: false });
    try {
      const as = (host: string) => f.app.request(`${A}/stats`, { headers: { host } });
      for (
        const host of [
          "localhost",
          "localhost:8080",
          "LOCALHOST:1",
          "127.0.0.1",
          "127.0.0.1:65535",
          "[::1]",
          "[::1]:9",
        ]
      ) {
        assert.equal((await as(host)).status, 200, host);
      }
      const refused = [
        "evil.example",
        "evil.example:8080",
        "localhost.evil.example",
        "127.0.0.1.nip.io",
        "localhost.",
        "127.0.0.2",
        "0.0.0.0",
        "[::ffff:127.0.0.1]",
        "2130706433",
        "",
        "local host",
      ];
      for (const host of refused) {
        const res = await as(host);
        assert.equal(res.status, 403, JSON.stringify(host));
        assert.equal((await res.json()).error.code, "forbidden");
      }
      // A URL naming another host (an absolute-form request target) is checked too.
      const abs = await f.app.request("http://evil.example/skedulr/api/stats");
      assert.equal(abs.status, 403);
      const post = await f.app.request(`${A}/tasks`, {
        method: "POST",
        headers: { host: "evil.example", "content-type": "application/json" },
        body: '{"type":"a"}',
      });
      assert.equal(post.status, 403);
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });

  it("with a token any host is served, unless allowedHosts narrows them", async () => {
    const any = await apiFixture({ start: false, token: TOKEN });
    const narrow = await apiFixture({
      start: false,
      token: TOKEN,
      allowedHosts: ["sked.example.com", "10.0.0.5:8080"],
    });
    try {
      const headers = (host: string) => ({ host, authorization: `Bearer ${TOKEN}` });
      const get = (f: typeof any, host: string) =>
        f.app.request(`${A}/stats`, { headers: headers(host) });
      assert.equal((await get(any, "sked.example.com")).status, 200);
      assert.equal((await get(any, "evil.example")).status, 200, "the token guards it");
      assert.equal(
        (await narrow.app.request(`https://sked.example.com${A}/stats`, {
          headers: headers("sked.example.com"),
        })).status,
        200,
      );
      assert.equal(
        (await narrow.app.request(`http://10.0.0.5:8080${A}/stats`, {
          headers: headers("10.0.0.5:8080"),
        })).status,
        200,
      );
      const wrongPort = await narrow.app.request(`http://10.0.0.5:9090${A}/stats`, {
        headers: headers("10.0.0.5:9090"),
      });
      assert.equal(wrongPort.status, 403);
      const res = await get(narrow, "evil.example");
      assert.equal(res.status, 403);
      assert.match((await res.json()).error.message, /sked\.example\.com, 10\.0\.0\.5:8080/);
    } finally {
      await any.close();
      await narrow.close();
    }
  });

  it("an open API may not name a non-loopback host, in createApp or in the environment", () => {
    const scheduler = new Scheduler({ logger: silentLogger });
    assert.throws(
      () => createApp({ scheduler, allowedHosts: ["sked.example.com"] }),
      /needs a token or keys/,
    );
    assert.doesNotThrow(() => createApp({ scheduler, allowedHosts: ["localhost:8080"] }));
    assert.throws(() => createApp({ scheduler, token: TOKEN, allowedHosts: ["a b"] }), /host/);
    assert.throws(
      () => parseWorkerConfig({ SKEDULR_ALLOWED_HOSTS: "sked.example.com" }),
      /SKEDULR_ALLOWED_HOSTS: sked\.example\.com needs SKEDULR_TOKEN or SKEDULR_KEYS/,
    );
    const config = parseWorkerConfig({
      SKEDULR_TOKEN: TOKEN,
      SKEDULR_ALLOWED_HOSTS: "Sked.Example.com, [::1]:8080",
    });
    assert.deepEqual(config.allowedHosts, ["sked.example.com", "[::1]:8080"]);
  });
});
