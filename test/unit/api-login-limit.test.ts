/**
 * HTTP API, login hardening: failed logins are limited per client address (10 a minute by
 * default) in the store, so 300 wrong tries in a burst get 10 answers and 290 × 429 with
 * Retry-After, across two app instances on one store (embedded and Redis); the address is
 * the socket's, or a proxy header's only when trustProxy names it.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp, type CreateAppOptions } from "../../routes/app.ts";
import { addressBucket } from "../../routes/login-limit.ts";
import { serve } from "../../src/adapters/serve.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { MemoryStorage, Scheduler, silentLogger, type Storage } from "../../src/mod.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { rawRequest } from "../helpers/raw-http.ts";

const TOKEN = "login-limit-token-0123456789";
const T0 = Date.UTC(2026, 0, 5, 8, 0, 0);

function appOn(
  storage: Storage,
  clock = new ManualClock(T0),
  extra: Partial<CreateAppOptions> = {},
) {
  const scheduler = new Scheduler({ storage, clock, logger: silentLogger });
  return createApp({ scheduler, token: TOKEN, ...extra });
}

function login(app: ReturnType<typeof createApp>, token: string) {
  return app.request("/skedulr/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
}

/** 300 wrong logins at once, alternating between the apps; the statuses counted. */
async function burst(apps: ReturnType<typeof createApp>[]): Promise<Map<number, number>> {
  const answers = await Promise.all(
    Array.from({ length: 300 }, (_, i) => login(apps[i % apps.length], `guess-${i}`)),
  );
  const counts = new Map<number, number>();
  for (const res of answers) {
    counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
    if (res.status === 429) {
      const wait = Number(res.headers.get("retry-after"));
      assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
      const body = await res.json();
      assert.equal(body.error.code, "rate_limited");
    } else await res.body?.cancel();
  }
  return counts;
}

describe("api login limits", () => {
  it("300 wrong logins in a burst: 10 get an answer, 290 get 429 with Retry-After", async () => {
    const app = appOn(new MemoryStorage());
    const counts = await burst([app]);
    assert.deepEqual(Object.fromEntries(counts), { 401: 10, 429: 290 });
  });

  it("a locked-out address cannot log in even with the right token until the window passes", async () => {
    const clock = new ManualClock(T0);
    const app = appOn(new MemoryStorage(), clock);
    for (let i = 0; i < 10; i++) assert.equal((await login(app, "wrong")).status, 401);
    const locked = await login(app, TOKEN);
    assert.equal(locked.status, 429);
    assert.equal(locked.headers.get("retry-after"), "60");
    assert.equal(locked.headers.get("set-cookie"), null);
    await clock.advance(30_000);
    assert.equal((await login(app, TOKEN)).headers.get("retry-after"), "30");
    await clock.advance(30_000);
    const ok = await login(app, TOKEN);
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get("set-cookie") ?? "", /^skedulr_token=v1\./);
  });

  it("the form login shows the limit as a page with Retry-After", async () => {
    const app = appOn(new MemoryStorage(), undefined, { loginLimit: { max: 1, windowMs: 60_000 } });
    const form = () =>
      app.request("/skedulr/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "token=wrong",
      });
    assert.equal((await form()).status, 401);
    const res = await form();
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("retry-after"), "60");
    assert.match(await res.text(), /Too many login attempts/);
  });

  it("holds across two app instances on one embedded store", async () => {
    const storage = new MemoryStorage();
    const counts = await burst([appOn(storage), appOn(storage)]);
    assert.deepEqual(Object.fromEntries(counts), { 401: 10, 429: 290 });
  });

  describe("on Redis", () => {
    const stores: RedisStorage[] = [];
    after(async () => {
      await Promise.all(stores.map((s) => s.close()));
    });
    it("holds across two nodes, each with its own connection to one Redis", async () => {
      const url = await testRedisUrl();
      const prefix = uniquePrefix("login");
      for (let i = 0; i < 2; i++) {
        stores.push(new RedisStorage({ transport: connectRedisTcp(url), prefix }));
      }
      const counts = await burst(stores.map((s) => appOn(s)));
      assert.deepEqual(Object.fromEntries(counts), { 401: 10, 429: 290 });
    });
  });

  it("counts by the socket's address, and by a proxy header only when trusted", async () => {
    const storage = new MemoryStorage();
    const limit = { max: 2, windowMs: 60_000 };
    const direct = appOn(storage, undefined, { loginLimit: limit });
    const proxied = appOn(storage, undefined, { loginLimit: limit, trustProxy: "X-Forwarded-For" });
    const servers = await Promise.all(
      [direct, proxied].map((app) => serve(app.fetch, { port: 0, hostname: "127.0.0.1" })),
    );
    try {
      const [viaSocket, viaProxy] = servers.map(
        (s) => (from: string, headers: Record<string, string> = {}) =>
          rawRequest(
            s.port,
            "POST",
            "/skedulr/login",
            {
              Host: `127.0.0.1:${s.port}`,
              "Content-Type": "application/json",
              ...headers,
            },
            '{"token":"wrong"}',
            from,
          ),
      );
      const statuses = async (calls: Promise<{ status: number }>[]) =>
        (await Promise.all(calls)).map((r) => r.status);
      // A client that sends a different X-Forwarded-For each time is still one socket.
      const spoof = (i: number) => ({ "X-Forwarded-For": `198.51.100.${i}` });
      assert.deepEqual(
        (await statuses([1, 2, 3, 4].map((i) => viaSocket("127.0.0.2", spoof(i))))).sort(),
        [401, 401, 429, 429],
        "one socket address, whatever the header says",
      );
      assert.equal((await viaSocket("127.0.0.3")).status, 401, "another address has its own");
      // Behind the trusted proxy the last entry (the one the proxy appended) is the client.
      const fwd = (client: string) => ({ "X-Forwarded-For": `203.0.113.7, ${client}` });
      for (let i = 0; i < 2; i++) {
        assert.equal((await viaProxy("127.0.0.4", fwd("192.0.2.10"))).status, 401);
      }
      assert.equal((await viaProxy("127.0.0.4", fwd("192.0.2.10"))).status, 429);
      assert.equal((await viaProxy("127.0.0.4", fwd("192.0.2.11"))).status, 401);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  it("buckets IPv6 addresses by /64 and unwraps IPv4-mapped ones", () => {
    assert.equal(addressBucket("203.0.113.7"), "203.0.113.7");
    assert.equal(addressBucket("::ffff:203.0.113.7"), "203.0.113.7");
    assert.equal(addressBucket("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(addressBucket("2001:DB8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
    assert.equal(addressBucket("[2001:db8::1]"), "2001:db8:0:0::/64");
    assert.equal(addressBucket("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(addressBucket("::1"), "0:0:0:0::/64");
    assert.equal(addressBucket(""), "unknown");
  });
});
