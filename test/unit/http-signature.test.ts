/**
 * The `http` task type's signature, checked the way a receiver in another language would:
 * an HMAC-SHA256 computed here with node:crypto over "<timestamp>.<raw body>", never with
 * the library's own code; and `verifySignature` refusing a tampered body, a wrong key and a
 * stale but well-formed signature.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import {
  httpTaskHandler,
  httpTaskPayloadSchema,
  MemoryStorage,
  outboundPolicy,
  Scheduler,
  silentLogger,
  verifySignature,
} from "../../src/mod.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const KEY = "signature-test-key-0123456789";
const hmac = (key: string, text: string) => createHmac("sha256", key).update(text).digest("hex");

describe("http task signatures", () => {
  it("carry an HMAC a receiver computes itself, the task id and the attempt", async () => {
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const server = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      got.push({ headers: req.headers, body });
      res.writeHead(got.length === 1 ? 500 : 200).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const policy = outboundPolicy("127.0.0.1");
    const s = new Scheduler({ storage: new MemoryStorage(), logger: silentLogger });
    s.register("http", httpTaskHandler({ signingKey: KEY, policy }), {
      payloadSchema: httpTaskPayloadSchema(policy),
    });
    await s.start();
    try {
      const id = await s.submit({
        type: "http",
        payload: { url, body: { order: 42, note: "naïve ☃" } },
        maxRetries: 1,
      });
      await eventually(async () => (await s.get(id))?.status === "succeeded", "delivered", 10_000);
      assert.equal(got.length, 2, "the first answer (500) was retried");
      for (const [i, { headers, body }] of got.entries()) {
        const ts = String(headers["skedulr-timestamp"]);
        assert.match(ts, /^\d{13}$/);
        assert.ok(Math.abs(Date.now() - Number(ts)) < 60_000, "a fresh timestamp");
        assert.equal(headers["skedulr-signature"], `v1=${hmac(KEY, `${ts}.${body}`)}`);
        assert.equal(headers["skedulr-task-id"], id);
        assert.equal(headers["skedulr-attempt"], String(i + 1));
        assert.deepEqual(JSON.parse(body), { order: 42, note: "naïve ☃" });
      }
    } finally {
      await s.shutdown({ timeoutMs: 1_000 });
      server.close();
    }
  });

  it("verifySignature accepts the real one and refuses tampering, a wrong key and staleness", async () => {
    const now = Date.now();
    const ts = String(now);
    const body = '{"order":42}';
    const good = `v1=${hmac(KEY, `${ts}.${body}`)}`;
    assert.equal(await verifySignature(KEY, ts, body, good, now), true);
    assert.equal(await verifySignature(KEY, ts, '{"order":43}', good, now), false, "tampered");
    const otherKey = `v1=${hmac("another-key-0123456789", `${ts}.${body}`)}`;
    assert.equal(await verifySignature(KEY, ts, body, otherKey, now), false, "wrong key");
    const old = String(now - 301_000);
    const stale = `v1=${hmac(KEY, `${old}.${body}`)}`;
    assert.equal(await verifySignature(KEY, old, body, stale, now), false, "stale, well-formed");
    assert.equal(await verifySignature(KEY, old, body, stale, now - 301_000), true, "was valid");
  });
});
