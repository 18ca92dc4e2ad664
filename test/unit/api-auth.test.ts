/**
 * HTTP API, security: bearer token, login cookie, CSRF (same-origin) checks, open routes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const TOKEN = "s3cret-token";
const BEARER = { authorization: `Bearer ${TOKEN}` };
const T = "/skedulr/api/tasks";

/** The `skedulr_token=...` pair of a Set-Cookie header. */
function cookieOf(res: { headers: Headers }): string {
  const set = res.headers.get("set-cookie") ?? "";
  const pair = set.split(";")[0];
  assert.match(pair, /^skedulr_token=/);
  return pair;
}

describe("api auth: bearer token", () => {
  it("401 without a token or with a wrong one; 200 with the right one", async () => {
    const f = await apiFixture({ start: false, token: TOKEN });
    try {
      const paths = ["/skedulr/api/stats", T, "/skedulr/api/workers", "/skedulr/metrics"];
      for (const path of paths) {
        const none = await f.call("GET", path);
        assert.equal(none.status, 401, path);
        assert.equal(none.body.error.code, "unauthorized");
        assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
        for (const authorization of [`Bearer wrong`, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
          assert.equal((await f.call("GET", path, undefined, { authorization })).status, 401);
        }
        assert.equal((await f.call("GET", path, undefined, BEARER)).status, 200, path);
        const lower = { authorization: `bearer ${TOKEN}` };
        assert.equal((await f.call("GET", path, undefined, lower)).status, 200);
      }
    } finally {
      await f.close();
    }
  });

  it("no path spelling slips past the guard", async () => {
    const f = await apiFixture({ start: false, token: TOKEN });
    try {
      const spellings = [
        "/skedulr/metrics/",
        "/skedulr/%6Detrics",
        "/skedulr/api/stats/",
        "/skedulr/%61pi/stats",
        "/skedulr/./api/stats",
        "/skedulr/api/tasks/",
        "/skedulr/api/stats?x=1",
      ];
      for (const path of spellings) {
        const res = await f.call("GET", path);
        assert.ok([401, 404].includes(res.status), `${path} → ${res.status}`);
        assert.notEqual(res.status, 200);
      }
    } finally {
      await f.close();
    }
  });

  it("a rejected POST stores nothing; unknown API routes are 401 before 404", async () => {
    const f = await apiFixture({ start: false, token: TOKEN });
    try {
      const res = await f.call("POST", T, { type: "a" });
      assert.equal(res.status, 401);
      assert.equal(await storedCount(f.s), 0);
      assert.equal((await f.call("GET", "/skedulr/api/nope")).status, 401);
      assert.equal((await f.call("GET", "/skedulr/api/nope", undefined, BEARER)).status, 404);
      const ok = await f.call("POST", T, { type: "a" }, BEARER);
      assert.equal(ok.status, 201);
    } finally {
      await f.close();
    }
  });

  it("healthz stays open; the page and docs follow the token", async () => {
    const f = await apiFixture({ start: false, token: TOKEN });
    try {
      assert.equal((await f.call("GET", "/skedulr/healthz")).status, 200);
      assert.equal((await f.call("GET", "/skedulr/api/openapi.json")).status, 401);
      const page = await f.call("GET", "/skedulr");
      assert.equal(page.status, 401);
      assert.match(page.text, /<form method="post" action="\/skedulr\/login"/);
      const authed = await f.call("GET", "/skedulr", undefined, BEARER);
      assert.equal(authed.status, 200);
      assert.match(authed.text, /\/skedulr\/api\/docs/);
    } finally {
      await f.close();
    }
  });

  it("an empty token is refused at start, never silently open", () => {
    const scheduler = new Scheduler({ logger: silentLogger });
    assert.throws(() => createApp({ scheduler, token: "" }), /token is empty/);
    assert.throws(() => createApp({ scheduler, maxBodyBytes: 0 }), /maxBodyBytes/);
  });
});

describe("api auth: login cookie and CSRF", () => {
  it("JSON login sets an HttpOnly, SameSite=Strict cookie that authenticates reads", async () => {
    const f = await apiFixture({ start: false, token: TOKEN });
    try {
      const wrong = await f.call("POST", "/skedulr/login", { token: "nope" });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers.get("set-cookie"), null);
      assert.equal((await f.call("POST", "/skedulr/login", { nope: 1 })).status, 400);
      const res = await f.call("POST", "/skedulr/login", { token: TOKEN });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { ok: true });
      const set = res.headers.get("set-cookie") ?? "";
      assert.match(set, /HttpOnly/i);
      assert.match(set, /SameSite=Strict/i);
      assert.match(set, /Path=\/skedulr/);
      assert.doesNotMatch(set, /Secure/, "plain http: no Secure flag");
      const cookie = cookieOf(res);
      assert.equal((await f.call("GET", "/skedulr/api/stats", undefined, { cookie })).status, 200);
      assert.equal((await f.call("GET", "/skedulr/metrics", undefined, { cookie })).status, 200);
      const bad = { cookie: "skedulr_token=forged" };
      assert.equal((await f.call("GET", "/skedulr/api/stats", undefined, bad)).status, 401);
      const both = { cookie, authorization: "Bearer wrong" };
      assert.equal((await f.call("GET", "/skedulr/api/stats", undefined, both)).status, 401);
    } finally {
      await f.close();
    }
  });

  it("form login redirects to /skedulr with the cookie; a wrong token re-shows the form", async () => {
    const f = await apiFixture({ start: false, token: TOKEN });
    try {
      const form = (token: string) => ({
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
      });
      const ok = await f.raw("/skedulr/login", form(TOKEN));
      assert.equal(ok.status, 303);
      assert.equal(ok.headers.get("location"), "/skedulr");
      const cookie = cookieOf(ok);
      const page = await f.call("GET", "/skedulr", undefined, { cookie });
      assert.equal(page.status, 200);
      const wrong = await f.raw("/skedulr/login", form("guess"));
      assert.equal(wrong.status, 401);
      assert.match(wrong.text, /Wrong token/);
      assert.equal(wrong.headers.get("set-cookie"), null);
      const https = await f.raw("https://sked.example/skedulr/login", form(TOKEN));
      assert.match(https.headers.get("set-cookie") ?? "", /Secure/);
      const text = await f.raw("/skedulr/login", { method: "POST", body: "token" });
      assert.equal(text.status, 415);
      assert.equal((await f.call("GET", "/skedulr/login")).status, 200);
      const same = { cookie, "sec-fetch-site": "same-origin" };
      const out = await f.call("POST", "/skedulr/logout", undefined, same);
      assert.equal(out.status, 200);
      assert.match(out.headers.get("set-cookie") ?? "", /skedulr_token=;.*Max-Age=0/i);
    } finally {
      await f.close();
    }
  });

  it("a cookie-authenticated change must be same-origin (403 otherwise, nothing stored)", async () => {
    const f = await apiFixture({ start: false, token: TOKEN, trustedOrigins: ["https://ops.io"] });
    try {
      const cookie = cookieOf(await f.call("POST", "/skedulr/login", { token: TOKEN }));
      const post = (headers: Record<string, string>) =>
        f.call("POST", T, { type: "a" }, { cookie, ...headers });
      const variants: Record<string, string>[] = [
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
        { origin: "https://evil.example" },
        { origin: "null" },
        {},
      ];
      for (const headers of variants) {
        const res = await post(headers);
        assert.equal(res.status, 403, JSON.stringify(headers));
        assert.equal(res.body.error.code, "forbidden");
      }
      assert.equal(await storedCount(f.s), 0);
      assert.equal((await post({ "sec-fetch-site": "same-origin" })).status, 201);
      assert.equal((await post({ origin: "http://localhost" })).status, 201);
      assert.equal((await post({ origin: "https://ops.io" })).status, 201);
      const cross = { "sec-fetch-site": "cross-site" };
      assert.equal((await f.call("GET", T, undefined, { cookie, ...cross })).status, 200);
      const bearer = await f.call("POST", T, { type: "a" }, { ...BEARER, ...cross });
      assert.equal(bearer.status, 201, "bearer requests need no origin check");
    } finally {
      await f.close();
    }
  });

  it("logout must be same-origin; a cross-site login is refused", async () => {
    const f = await apiFixture({ start: false, token: TOKEN, trustedOrigins: ["https://ops.io"] });
    try {
      const cookie = cookieOf(await f.call("POST", "/skedulr/login", { token: TOKEN }));
      const refused: Record<string, string>[] = [
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site" },
        { origin: "https://evil.example" },
        { origin: "null" },
        {}, // no browser headers: not provably same-origin
      ];
      for (const headers of refused) {
        const res = await f.call("POST", "/skedulr/logout", undefined, { cookie, ...headers });
        assert.equal(res.status, 403, JSON.stringify(headers));
        assert.equal(res.body.error.code, "forbidden");
        assert.equal(res.headers.get("set-cookie"), null, "the cookie stays");
      }
      const accepted: Record<string, string>[] = [
        { "sec-fetch-site": "same-origin" },
        { origin: "https://ops.io" },
      ];
      for (const headers of accepted) {
        const res = await f.call("POST", "/skedulr/logout", undefined, { cookie, ...headers });
        assert.equal(res.status, 200, JSON.stringify(headers));
      }
      const html = { accept: "text/html", origin: "http://localhost" };
      const page = await f.call("POST", "/skedulr/logout", undefined, { cookie, ...html });
      assert.equal(page.status, 303);
      const cross = { "sec-fetch-site": "cross-site" };
      const login = await f.call("POST", "/skedulr/login", { token: TOKEN }, cross);
      assert.equal(login.status, 403);
      assert.equal(login.headers.get("set-cookie"), null);
    } finally {
      await f.close();
    }
  });

  it("without a token: open, but a browser's cross-site change is still refused", async () => {
    const f = await apiFixture({ start: false });
    try {
      assert.equal((await f.call("GET", "/skedulr/api/stats")).status, 200);
      assert.equal((await f.call("POST", T, { type: "a" })).status, 201);
      const cross = await f.call("POST", T, { type: "a" }, { origin: "https://evil.example" });
      assert.equal(cross.status, 403);
      const site = await f.call("POST", T, { type: "a" }, { "sec-fetch-site": "cross-site" });
      assert.equal(site.status, 403);
      assert.equal(await storedCount(f.s), 1);
      const login = await f.call("POST", "/skedulr/login", { token: "anything" });
      assert.equal(login.status, 200);
      assert.equal(login.headers.get("set-cookie"), null);
      assert.equal((await f.call("GET", "/skedulr")).status, 200);
    } finally {
      await f.close();
    }
  });
});
