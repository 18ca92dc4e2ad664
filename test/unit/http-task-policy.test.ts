/**
 * The SSRF finding against the `http` task type: internal targets written as addresses are
 * refused at submit (400 naming `payload.url`), names that resolve to one are dead at once
 * with a clear error (never retried), headers that change routing or framing are refused,
 * and the pinned client (src/adapters/pinned-http.ts) connects only to checked addresses,
 * over http and https. Local receivers are opened with an allow list, as SKEDULR_HTTP_ALLOW
 * would open them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { LookupAddress } from "node:dns";
import {
  httpTaskHandler,
  httpTaskPayloadSchema,
  MemoryStorage,
  type OutboundPolicy,
  outboundPolicy,
  Scheduler,
  silentLogger,
  type TaskRecord,
  ValidationError,
} from "../../src/mod.ts";
import { type HttpFetcher, webFetch } from "../../src/worker/http-task.ts";
import { pinnedFetch, pinnedFetcher } from "../../src/adapters/pinned-http.ts";
import { apiFixture } from "../helpers/api-app.ts";
import { eventually, gate } from "../../scripts/tools/wait.ts";
import { REBIND_CERT, REBIND_KEY } from "../helpers/tls-fixture.ts";

const LITERALS = [
  "127.0.0.1",
  "localhost",
  "0.0.0.0",
  "2130706433",
  "0x7f.1",
  "0177.0.0.1",
  "[::1]",
  "[::ffff:127.0.0.1]",
  "169.254.169.254",
  "10.0.0.1",
  "100.64.0.1",
  "[fc00::1]",
  "224.0.0.1",
];

interface Receiver {
  port: number;
  got: IncomingMessage[];
  server: Server;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as { port: number }).port;
}

/** A receiver on 127.0.0.1 that answers 200 "ok" and records each request. */
async function receiver(): Promise<Receiver> {
  const got: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    got.push(req);
    res.end("ok");
  });
  return { port: await listen(server), got, server };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections?.();
  await new Promise((r) => server.close(r));
}

/** Answers names from a table, as a DNS server would. */
function dns(table: Record<string, string[]>) {
  return (name: string): Promise<LookupAddress[]> => {
    const found = table[name];
    if (!found) return Promise.reject(Object.assign(new Error(name), { code: "ENOTFOUND" }));
    return Promise.resolve(found.map((a) => ({ address: a, family: a.includes(":") ? 6 : 4 })));
  };
}

async function withScheduler(
  options: { policy?: OutboundPolicy; submitPolicy?: OutboundPolicy; fetcher?: HttpFetcher },
  run: (s: Scheduler, finished: (id: string) => Promise<TaskRecord>) => Promise<void>,
): Promise<void> {
  const s = new Scheduler({ storage: new MemoryStorage(), logger: silentLogger, pools: { a: 2 } });
  const { policy, fetcher } = options;
  s.register("http", httpTaskHandler({ policy, fetcher }), {
    payloadSchema: httpTaskPayloadSchema(options.submitPolicy ?? policy),
  });
  await s.start();
  const finished = (id: string) =>
    eventually(async () => {
      const t = await s.get(id);
      return t && ["succeeded", "dead"].includes(t.status) ? t : null;
    }, `task ${id} finished`);
  try {
    await run(s, finished);
  } finally {
    await s.shutdown({ timeoutMs: 1000 });
  }
}

const submit = (s: Scheduler, payload: object, maxRetries = 3) =>
  s.submit({ type: "http", pool: "a", payload, maxRetries, backoff: { type: "fixed", delay: 1 } });

describe("http tasks: targets refused at submit", () => {
  it("refuses every internal target written as an address, naming payload.url", async () => {
    await withScheduler({}, async (s) => {
      for (const host of LITERALS) {
        await assert.rejects(submit(s, { url: `http://${host}:8080/hook` }), (e: unknown) => {
          assert.ok(e instanceof ValidationError, `${host}: ${e}`);
          assert.deepEqual(e.issues.map((i) => i.path), ["payload.url"], host);
          assert.match(e.message, /refused by the outbound policy.*SKEDULR_HTTP_ALLOW/, host);
          return true;
        });
      }
      assert.equal((await s.list()).items.length, 0, "nothing stored");
    });
  });

  it("the HTTP API answers 400 naming payload.url or payload.headers.<name>", async () => {
    const f = await apiFixture({ start: false });
    f.s.register("http", httpTaskHandler(), { payloadSchema: httpTaskPayloadSchema() });
    try {
      const post = (payload: object) =>
        f.call("POST", "/skedulr/api/tasks", { type: "http", payload });
      for (const host of ["127.0.0.1", "0x7f.1", "[::ffff:127.0.0.1]", "169.254.169.254"]) {
        const r = await post({ url: `http://${host}/` });
        assert.equal(r.status, 400, host);
        assert.equal(r.body.error.issues[0].path, "payload.url", host);
      }
      const r = await post({ url: "https://example.com/", headers: { Host: "internal" } });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.issues[0].path, "payload.headers.Host");
    } finally {
      await f.close();
    }
  });

  it("refuses headers that change routing or framing, and malformed ones", async () => {
    await withScheduler({}, async (s) => {
      const names = ["Host", "connection", "Transfer-Encoding", "Content-Length", "Keep-Alive"];
      names.push("Upgrade", "TE", "Trailer", "Expect", "Proxy-Authorization", "Skedulr-Signature");
      for (const name of [...names, "bad name"]) {
        const payload = { url: "https://example.com/", headers: { [name]: "x" } };
        await assert.rejects(submit(s, payload), (e: unknown) => {
          assert.ok(e instanceof ValidationError, `${name}: ${e}`);
          assert.deepEqual(e.issues.map((i) => i.path), [`payload.headers.${name}`]);
          return true;
        });
      }
      const smuggled = { url: "https://example.com/", headers: { "X-A": "1\r\nHost: evil" } };
      await assert.rejects(submit(s, smuggled), /payload\.headers\.X-A: must not contain CR/);
      const twice = { url: "https://example.com/", headers: { "X-A": "1", "x-a": "2" } };
      await assert.rejects(submit(s, twice), /payload\.headers: names a header twice/);
      const userinfo = { url: "https://user:pw@example.com/" };
      await assert.rejects(submit(s, userinfo), /payload\.url: credentials in the URL/);
      assert.equal((await s.list()).items.length, 0);
    });
  });
});

describe("http tasks: targets checked at run time", () => {
  it("delivers to a receiver opened by address, by CIDR or by name", async () => {
    const r = await receiver();
    try {
      for (const allow of ["127.0.0.1", "127.0.0.0/8", "hooks.test"]) {
        const fetcher = pinnedFetcher({ resolve: dns({ "hooks.test": ["127.0.0.1"] }) });
        const policy = outboundPolicy(allow);
        await withScheduler({ policy, fetcher }, async (s, finished) => {
          const host = allow === "hooks.test" ? allow : "127.0.0.1";
          const id = await submit(s, { url: `http://${host}:${r.port}/hook` });
          const t = await finished(id);
          assert.equal(t.status, "succeeded", `${allow}: ${JSON.stringify(t.error)}`);
        });
      }
      assert.equal(r.got.length, 3);
      assert.equal(r.got[2].headers.host, `hooks.test:${r.port}`, "the Host is the name");
    } finally {
      await close(r.server);
    }
  });

  it("resolves with the system resolver and connects only to allowed addresses", async () => {
    // localhost may also resolve to ::1 (not listed, nothing listens there): never used.
    const r = await receiver();
    try {
      const policy = outboundPolicy("127.0.0.1");
      await withScheduler({ policy, fetcher: pinnedFetch }, async (s, finished) => {
        const t = await finished(await submit(s, { url: `http://localhost:${r.port}/` }));
        assert.equal(t.status, "succeeded", JSON.stringify(t.error));
      });
    } finally {
      await close(r.server);
    }
  });

  it("a name resolving to a refused address is dead at once, with a clear error", async () => {
    const r = await receiver();
    try {
      const resolve = dns({
        "rebind.test": ["127.0.0.1"],
        "meta.test": ["::ffff:169.254.169.254"],
      });
      await withScheduler({ fetcher: pinnedFetcher({ resolve }) }, async (s, finished) => {
        const id = await submit(s, { url: `http://rebind.test:${r.port}/` }, 5);
        const t = await finished(id);
        assert.equal(t.status, "dead");
        assert.equal(t.attempt, 1, "no retry");
        assert.match(
          t.error!.message,
          /^Refused by the outbound policy: rebind\.test resolves to 127\.0\.0\.1, a loopback address \(list it in SKEDULR_HTTP_ALLOW/,
        );
        const m = await finished(await submit(s, { url: "http://meta.test/" }));
        assert.equal(m.attempt, 1);
        assert.match(
          m.error!.message,
          /169\.254\.169\.254, a link-local address \(cloud metadata\)/,
        );
      });
      assert.equal(r.got.length, 0, "nothing reached the receiver");
    } finally {
      await close(r.server);
    }
  });

  it("skips refused addresses of a mixed answer, and checks every request anew", async () => {
    const r = await receiver();
    let answer = ["10.0.0.1", "127.0.0.1"];
    const resolve = (name: string) => dns({ [name]: answer })(name);
    try {
      const policy = outboundPolicy("127.0.0.1");
      await withScheduler({ policy, fetcher: pinnedFetcher({ resolve }) }, async (s, finished) => {
        const url = `http://flip.test:${r.port}/`;
        assert.equal((await finished(await submit(s, { url }))).status, "succeeded");
        answer = ["192.168.0.7"]; // the name is re-pointed, as a rebinding attack does
        const t = await finished(await submit(s, { url }));
        assert.equal(t.status, "dead");
        assert.match(t.error!.message, /flip\.test resolves to 192\.168\.0\.7, a private address/);
      });
      assert.equal(r.got.length, 1);
    } finally {
      await close(r.server);
    }
  });

  it("pins https too: the certificate is checked against the name", async () => {
    const server = createTlsServer({ cert: REBIND_CERT, key: REBIND_KEY }, (req, res) => {
      res.end(`sni=${(req.socket as { servername?: string }).servername}`);
    });
    const port = await listen(server as unknown as Server);
    const resolve = dns({ "rebind.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] });
    const fetcher = pinnedFetcher({ resolve, ca: REBIND_CERT });
    try {
      await withScheduler({ policy: outboundPolicy("127.0.0.1"), fetcher }, async (s, finished) => {
        const ok = await finished(await submit(s, { url: `https://rebind.test:${port}/` }));
        assert.equal(ok.status, "succeeded", JSON.stringify(ok.error));
        assert.equal((ok.result as { body: string }).body, "sni=rebind.test");
        const other = await finished(await submit(s, { url: `https://other.test:${port}/` }, 0));
        assert.match(other.error!.message, /other\.test|altnames/i, "a name the cert lacks fails");
      });
    } finally {
      await close(server as unknown as Server);
    }
  });

  it("a literal refused by the worker's own policy is dead at once (pinned and Web fetch)", async () => {
    // The API node allowed it (another allow list, or a task stored before the policy).
    for (const fetcher of [pinnedFetch, webFetch]) {
      const submitPolicy = outboundPolicy("127.0.0.1");
      await withScheduler({ submitPolicy, fetcher }, async (s, finished) => {
        const t = await finished(await submit(s, { url: "http://127.0.0.1:9/" }));
        assert.equal(t.status, "dead");
        assert.equal(t.attempt, 1);
        assert.match(
          t.error!.message,
          /127\.0\.0\.1 is a loopback address: refused by the outbound policy/,
        );
      });
    }
  });

  it("never follows a redirect, and a timeout aborts the pinned request", async () => {
    const hold = gate();
    const got: string[] = [];
    const server = createServer(async (req, res) => {
      got.push(req.url!);
      if (req.url === "/hold") await hold.promise;
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    });
    const base = `http://127.0.0.1:${await listen(server)}`;
    try {
      const policy = outboundPolicy("127.0.0.1");
      await withScheduler({ policy, fetcher: pinnedFetch }, async (s, finished) => {
        const moved = await finished(await submit(s, { url: `${base}/moved` }, 0));
        assert.match(moved.error!.message, /^HTTP 302 from/);
        const slow = await finished(await submit(s, { url: `${base}/hold`, timeout: 50 }, 0));
        assert.match(slow.error!.message, /timed out after 50 ms/);
      });
      assert.deepEqual(got, ["/moved", "/hold"], "the redirect target was never called");
    } finally {
      hold.open();
      await close(server);
    }
  });
});
