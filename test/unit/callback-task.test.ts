/**
 * Callbacks delivered to a real local receiver (node:http on 127.0.0.1, let through the
 * outbound policy as SKEDULR_HTTP_ALLOW=127.0.0.1 would), by the pinned client the worker
 * uses: a signed POST of `{event, task}` with the final record; a failing receiver sees the
 * retries, then the callback task is dead with its last error; a target the worker's policy
 * refuses ends the callback dead at once. Time is a manual clock (the retries' back-off
 * spans minutes); the requests are real.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import {
  callbackTaskHandler,
  MemoryStorage,
  outboundPolicy,
  type TaskRecord,
  verifySignature,
} from "../../src/mod.ts";
import { pinnedFetch } from "../../src/adapters/pinned-http.ts";
import { type Harness, harness, type StorageFactory } from "../conformance/harness.ts";

const KEY = "test-signing-key-0123456789";
const LOCAL = outboundPolicy("127.0.0.1");

interface Received {
  body: string;
  verified: boolean;
  headers: IncomingMessage["headers"];
}

async function receiver(status: (n: number) => number) {
  const got: Received[] = [];
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const timestamp = String(req.headers["skedulr-timestamp"]);
    const signature = String(req.headers["skedulr-signature"]);
    // The signature is over the clock the worker signs with (real time), not the task's.
    const verified = await verifySignature(KEY, timestamp, body, signature);
    got.push({ body, verified, headers: req.headers });
    res.writeHead(status(got.length)).end("noted");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  return { url, got, close: () => server.close() };
}

const memory: StorageFactory = () => {
  const storage = new MemoryStorage();
  return Promise.resolve({ storage, dispose: () => storage.close() });
};

/** A worker running pools default and callbacks; `workerPolicy` checks when it sends. */
async function worker(workerPolicy = LOCAL): Promise<Harness> {
  const h = await harness(memory, {
    pools: { default: 2, callbacks: 1 },
    outboundPolicy: LOCAL,
    start: false,
  });
  h.s.register("job", (p: { fail?: boolean } | null) => {
    if (p?.fail) throw new Error("job failed");
    return "job done";
  });
  const handler = callbackTaskHandler({
    signingKey: KEY,
    policy: workerPolicy,
    fetcher: pinnedFetch,
  });
  h.s.register("callback", handler);
  await h.s.start();
  return h;
}

describe("callback task type (a real receiver)", () => {
  it("POSTs {event, task} signed, with the final record and the callback's headers", async () => {
    const r = await receiver(() => 200);
    const h = await worker();
    try {
      const callback = { url: r.url, on: ["dead"], headers: { "X-Hook-Token": "t0k" } };
      const id = await h.s.submit({ type: "job", id: "job-1", payload: { fail: true }, callback });
      const cb = await h.until(`__cb_${id}_1`, "succeeded");
      assert.equal(r.got.length, 1);
      const [got] = r.got;
      assert.equal(got.verified, true, "a valid signature");
      assert.equal(got.headers["x-hook-token"], "t0k");
      assert.equal(got.headers["content-type"], "application/json");
      assert.equal(got.headers["skedulr-task-id"], cb.id);
      assert.equal(got.headers["skedulr-attempt"], "1");
      const body = JSON.parse(got.body) as { event: string; task: TaskRecord };
      assert.equal(body.event, "task.dead");
      const final = JSON.parse(JSON.stringify(await h.s.get(id)));
      assert.deepEqual(body.task, final, "the final record");
      assert.equal(body.task.error?.message, "job failed");
      assert.deepEqual(body.task.callback?.headers, { "X-Hook-Token": "[redacted]" });
      assert.deepEqual(cb.result, { status: 200, body: "noted", truncated: false });
    } finally {
      await h.close();
      r.close();
    }
  });

  it("a failing receiver sees every retry, then the callback is dead with its last error", async () => {
    const r = await receiver(() => 500);
    const h = await worker();
    try {
      const id = await h.s.submit({ type: "job", id: "job-2", callback: { url: r.url } });
      const cbId = `__cb_${id}_1`;
      const dead = await h.eventually(async () => {
        await h.clock.advance(60_000);
        const t = await h.s.get(cbId);
        return t?.status === "dead" ? t : null;
      }, "the callback dead after its retries");
      assert.equal(r.got.length, 9, "the first attempt and 8 retries");
      assert.ok(r.got.every((g) => g.verified), "each signed");
      const attempts = r.got.map((g) => g.headers["skedulr-attempt"]);
      assert.deepEqual(attempts, ["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
      assert.match(dead.error!.message, /^HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/hooks: noted/);
      assert.deepEqual((await h.s.deadLetters()).items.map((t) => t.id), [cbId]);
      // Resubmittable like any task: a receiver back up gets it.
      assert.equal((await h.s.resubmit(cbId)).status, "queued");
    } finally {
      await h.close();
      r.close();
    }
  });

  it("the worker checks the URL again when it sends: a refused target ends the callback dead at once", async () => {
    const r = await receiver(() => 200);
    // Accepted by an API node that allows 127.0.0.1; run by a worker that does not.
    const h = await worker(outboundPolicy(null));
    try {
      const id = await h.s.submit({ type: "job", id: "job-3", callback: { url: r.url } });
      const dead = await h.until(`__cb_${id}_1`, "dead");
      assert.equal(dead.attempt, 1, "never retried");
      assert.match(dead.error!.message, /refused by the outbound policy/);
      assert.equal(r.got.length, 0, "nothing sent");
    } finally {
      await h.close();
      r.close();
    }
  });
});
