/**
 * HTTP API, login sessions: the cookie holds a signed session, never the key; it expires;
 * it is revoked when its key is removed or replaced; its role is the key's current one;
 * a forged or edited cookie is refused. Time is a manual clock, so expiry needs no waiting.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp, type CreateAppOptions } from "../../routes/app.ts";
import { SESSION_TTL_MS } from "../../routes/session-cookie.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { makeKey } from "../helpers/keys.ts";

const A = "/skedulr/api";
const T0 = Date.UTC(2026, 0, 5, 8, 0, 0);
const SECRET = "session-secret-for-tests-0123456789abcdef";
const SAME = { "sec-fetch-site": "same-origin" };

/** An app on its own store and manual clock; `options` adds credentials. */
function node(options: Partial<CreateAppOptions>, clock = new ManualClock(T0)) {
  const storage = new MemoryStorage();
  const scheduler = new Scheduler({ storage, clock, logger: silentLogger });
  const app = createApp({ scheduler, ...options });
  const request = (path: string, init: RequestInit = {}) => app.request(path, init);
  const login = async (key: string) => {
    const res = await request("/skedulr/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: key }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return res.headers.get("set-cookie") ?? "";
  };
  const stats = async (cookie: string) =>
    (await request(`${A}/stats`, { headers: { cookie } })).status;
  return { app, clock, request, login, stats };
}

const pair = (setCookie: string) => setCookie.split(";")[0];

describe("api sessions: the login cookie", () => {
  it("holds a signed session naming the key, never the key, its hash or the token", async () => {
    const ci = await makeKey("ci", "submit");
    const token = "session-admin-token-0123456789";
    const n = node({ token, keys: [ci.entry] });
    const set = await n.login(ci.key);
    assert.match(set, /HttpOnly/i);
    assert.match(set, /SameSite=Strict/i);
    assert.match(set, new RegExp(`Max-Age=${SESSION_TTL_MS / 1000}`));
    const value = pair(set).slice("skedulr_token=".length);
    assert.match(value, /^v1\.ci\.\d+\.[A-Za-z0-9_-]{43}$/);
    for (const secret of [ci.key, ci.entry.sha256, token]) {
      assert.ok(!value.includes(secret), "no secret in the cookie");
    }
    assert.equal(await n.stats(pair(set)), 200);
    const admin = await n.login(token);
    assert.match(pair(admin), /^skedulr_token=v1\.token\./);
  });

  it("carries the key's role: a submit session submits but cannot pause (403 names admin)", async () => {
    const ci = await makeKey("ci", "submit");
    const n = node({ keys: [ci.entry] });
    const cookie = pair(await n.login(ci.key));
    const post = (path: string, body: unknown) =>
      n.request(path, {
        method: "POST",
        headers: { cookie, ...SAME, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    assert.equal((await post(`${A}/tasks`, { type: "a" })).status, 201);
    const pause = await post(`${A}/pause`, {});
    assert.equal(pause.status, 403);
    assert.match(
      (await pause.json()).error.message,
      /needs the admin role; key "ci" has the submit/,
    );
  });

  it("expires: valid until its time is up, refused after", async () => {
    const ci = await makeKey("ci", "read");
    const n = node({ keys: [ci.entry], sessionSecret: SECRET, sessionTtlMs: 60_000 });
    const cookie = pair(await n.login(ci.key));
    await n.clock.advance(59_999);
    assert.equal(await n.stats(cookie), 200);
    await n.clock.advance(1);
    assert.equal(await n.stats(cookie), 401);
    const page = await n.request("/skedulr", { headers: { cookie } });
    assert.equal(page.status, 401, "the page shows the login form again");
  });

  it("is revoked when its key is removed from the configuration, or replaced", async () => {
    const [ci, ops] = await Promise.all([makeKey("ci", "submit"), makeKey("ops", "admin")]);
    const clock = new ManualClock(T0);
    const first = node({ keys: [ci.entry, ops.entry], sessionSecret: SECRET }, clock);
    const cookie = pair(await first.login(ci.key));
    // Other nodes (or the same one restarted) with the same secret and keys accept it.
    const same = node({ keys: [ci.entry, ops.entry], sessionSecret: SECRET }, clock);
    assert.equal(await same.stats(cookie), 200);
    const removed = node({ keys: [ops.entry], sessionSecret: SECRET }, clock);
    assert.equal(await removed.stats(cookie), 401, "key removed: session revoked");
    const rotated = await makeKey("ci", "submit");
    const replaced = node({ keys: [rotated.entry, ops.entry], sessionSecret: SECRET }, clock);
    assert.equal(await replaced.stats(cookie), 401, "same name, new key: session revoked");
    const demoted = node({
      keys: [{ ...ci.entry, role: "read" }, ops.entry],
      sessionSecret: SECRET,
    }, clock);
    const submit = await demoted.request(`${A}/tasks`, {
      method: "POST",
      headers: { cookie, ...SAME, "content-type": "application/json" },
      body: '{"type":"a"}',
    });
    assert.equal(submit.status, 403, "a changed role applies to live sessions at once");
    const otherSecret = node({ keys: [ci.entry, ops.entry], sessionSecret: SECRET + "x" }, clock);
    assert.equal(await otherSecret.stats(cookie), 401);
  });

  it("refuses forged and edited cookies", async () => {
    const [ci, ops] = await Promise.all([makeKey("ci", "read"), makeKey("ops", "admin")]);
    const n = node({ keys: [ci.entry, ops.entry], sessionSecret: SECRET });
    const value = pair(await n.login(ci.key)).slice("skedulr_token=".length);
    const [v, name, exp, mac] = value.split(".");
    const flip = mac[0] === "A" ? "B" + mac.slice(1) : "A" + mac.slice(1);
    const forged = [
      [v, "ops", exp, mac],
      [v, name, String(Number(exp) + 1000), mac],
      [v, name, exp, flip],
      ["v2", name, exp, mac],
      [v, name, exp],
      [v, name, exp, mac, "x"],
      [v, name, "9".repeat(20), mac],
    ].map((parts) => parts.join("."));
    for (const cookie of [...forged, ci.key, ops.key, ""]) {
      assert.equal(await n.stats(`skedulr_token=${cookie}`), 401, cookie);
    }
    assert.equal(await n.stats(`skedulr_token=${value}`), 200);
  });

  it("signs with a key derived from the token, so every node (or Worker request) agrees", async () => {
    const token = "shared-token-across-nodes-0123";
    const a = node({ token });
    const cookie = pair(await a.login(token));
    assert.equal(await node({ token }).stats(cookie), 200);
    assert.equal(await node({ token: token + "-rotated" }).stats(cookie), 401);
    const ci = await makeKey("ci", "read");
    const random = node({ keys: [ci.entry] });
    const local = pair(await random.login(ci.key));
    assert.equal(await random.stats(local), 200);
    assert.equal(
      await node({ keys: [ci.entry] }).stats(local),
      401,
      "random secret: this app only",
    );
  });

  it("refuses session options that would weaken it", () => {
    const scheduler = new Scheduler({ logger: silentLogger });
    const token = "session-options-token-0123456789";
    assert.throws(() => createApp({ scheduler, token, sessionSecret: "short" }), /sessionSecret/);
    assert.throws(() => createApp({ scheduler, token, sessionTtlMs: 0 }), /sessionTtlMs/);
    assert.throws(
      () => createApp({ scheduler, token, loginLimit: { max: 0, windowMs: 60_000 } }),
      /loginLimit/,
    );
  });
});
