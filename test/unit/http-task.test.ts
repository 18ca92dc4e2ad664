/**
 * The built-in `http` task type against a local receiver that verifies the signature. The
 * receiver listens on 127.0.0.1, which the outbound policy refuses unless listed: these
 * tests list it, as SKEDULR_HTTP_ALLOW=127.0.0.1 would.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import {
  httpTaskHandler,
  httpTaskPayloadSchema,
  MemoryStorage,
  outboundPolicy,
  Scheduler,
  silentLogger,
  ValidationError,
  verifySignature,
} from "../../src/mod.ts";
import { pinnedFetch } from "../../src/adapters/pinned-http.ts";
import { MAX_RESULT_BYTES, webFetch } from "../../src/worker/http-task.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const KEY = "test-signing-key-0123456789";
const LOCAL = outboundPolicy("127.0.0.1");

interface Received {
  method: string;
  body: string;
  verified: boolean;
  headers: IncomingMessage["headers"];
}

async function receiver(
  status: (n: number) => number,
): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const verified = await verifySignature(
      KEY,
      String(req.headers["skedulr-timestamp"]),
      body,
      String(req.headers["skedulr-signature"]),
    );
    got.push({ method: req.method!, body, verified, headers: req.headers });
    res.writeHead(status(got.length), { "content-type": "text/plain" });
    res.end(verified ? "thanks" : "bad signature");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hook`, got, server };
}

function scheduler(): Scheduler {
  const s = new Scheduler({
    storage: new MemoryStorage(),
    logger: silentLogger,
    pools: { default: 2 },
  });
  s.register("http", httpTaskHandler({ signingKey: KEY, policy: LOCAL }), {
    payloadSchema: httpTaskPayloadSchema(LOCAL),
  });
  return s;
}

describe("http task type", () => {
  it("delivers a signed request; a 2xx is success with the capped body as result", async () => {
    const r = await receiver(() => 200);
    const s = scheduler();
    await s.start();
    try {
      const id = await s.submit({
        type: "http",
        payload: { url: r.url, body: { hello: "world" } },
      });
      const t = await eventually(async () => {
        const x = await s.get(id);
        return x?.status === "succeeded" ? x : null;
      }, "delivered");
      assert.equal(r.got.length, 1);
      assert.equal(r.got[0].method, "POST");
      assert.equal(r.got[0].body, '{"hello":"world"}');
      assert.equal(r.got[0].verified, true);
      assert.equal(r.got[0].headers["skedulr-task-id"], id);
      assert.deepEqual(t.result, { status: 200, body: "thanks", truncated: false });
      assert.equal(
        await verifySignature(KEY, "1", "{}", "v1=00"),
        false,
        "rejects a forged signature",
      );
    } finally {
      await s.shutdown({ timeoutMs: 1000 });
      r.server.close();
    }
  });

  it("treats a non-2xx as a failure that follows the retry policy", async () => {
    const r = await receiver((n) => (n < 3 ? 503 : 204));
    const s = scheduler();
    await s.start();
    try {
      const id = await s.submit({
        type: "http",
        payload: { url: r.url, method: "PUT", body: "raw text" },
        maxRetries: 3,
        backoff: { type: "fixed", delay: "10ms" },
      });
      const t = await eventually(async () => {
        const x = await s.get(id);
        return x?.status === "succeeded" ? x : null;
      }, "succeeded after retries");
      assert.equal(t.attempt, 3);
      assert.match(t.error!.message, /HTTP 503/);
      assert.equal(r.got.length, 3);
      assert.equal(r.got[2].body, "raw text");
    } finally {
      await s.shutdown({ timeoutMs: 1000 });
      r.server.close();
    }
  });

  it("cuts a body past 64 KiB, with Web fetch and with the pinned client", async () => {
    const server = createServer((_req, res) => res.end("x".repeat(100 * 1024)));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/big`;
    try {
      for (const fetcher of [webFetch, pinnedFetch]) {
        const s = new Scheduler({ storage: new MemoryStorage(), logger: silentLogger });
        s.register("http", httpTaskHandler({ policy: LOCAL, fetcher }), {
          payloadSchema: httpTaskPayloadSchema(LOCAL),
        });
        await s.start();
        try {
          const id = await s.submit({ type: "http", payload: { url, method: "GET" } });
          const t = await eventually(async () => {
            const x = await s.get(id);
            return x?.status === "succeeded" ? x : null;
          }, "the big response");
          const result = t.result as { body: string; truncated: boolean };
          assert.equal(result.truncated, true);
          assert.equal(result.body.length, MAX_RESULT_BYTES);
        } finally {
          await s.shutdown({ timeoutMs: 1000 });
        }
      }
    } finally {
      server.closeAllConnections?.();
      server.close();
    }
  });

  it("rejects non-http URLs and bad payloads at submit, naming the field", async () => {
    const s = scheduler();
    await assert.rejects(
      s.submit({ type: "http", payload: { url: "file:///etc/passwd" } }),
      (e: unknown) => {
        assert.ok(e instanceof ValidationError);
        assert.deepEqual(e.issues.map((i) => i.path), ["payload.url"]);
        assert.match(e.message, /only http and https/);
        return true;
      },
    );
    await assert.rejects(
      s.submit({ type: "http", payload: { url: "https://x.test", method: "BREW" } }),
      /payload\.method/,
    );
    assert.equal((await s.list()).items.length, 0);
  });
});
