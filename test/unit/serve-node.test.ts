/**
 * The `node:http` bridge of the API server (src/adapters/serve-node.ts). Bun and Deno run
 * it here through their `node:http`; on Node itself, test/e2e/package.test.ts drives it
 * through `npx skedulr worker`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { serveNode } from "../../src/adapters/serve-node.ts";
import type { ConnInfo, RunningServer } from "../../src/adapters/serve.ts";

async function app(request: Request, conn?: ConnInfo): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === "/echo") {
    return Response.json({
      method: request.method,
      path: url.pathname + url.search,
      header: request.headers.get("x-test"),
      body: await request.text(),
      remote: conn?.remoteAddress,
    });
  }
  if (url.pathname === "/cookies") {
    const headers = new Headers();
    headers.append("set-cookie", "a=1; HttpOnly");
    headers.append("set-cookie", "b=2; Path=/");
    return new Response(null, { status: 204, headers });
  }
  if (url.pathname === "/stream") {
    const chunks = ["one ", "two ", "three"];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    return new Response(body, { headers: { "content-type": "text/plain" } });
  }
  throw new Error("no route");
}

describe("serveNode (node:http bridge)", () => {
  let server: RunningServer;
  let base: string;
  before(async () => {
    server = await serveNode(app, { port: 0, hostname: "127.0.0.1" }, 10);
    base = `http://127.0.0.1:${server.port}`;
  });
  after(async () => {
    await server.stop();
  });

  it("passes method, path, headers, body and the client address to the handler", async () => {
    const r = await fetch(`${base}/echo?x=1`, {
      method: "POST",
      headers: { "x-test": "yes", "content-type": "text/plain" },
      body: "hello body",
    });
    assert.equal(r.status, 200);
    const got = await r.json();
    assert.deepEqual(
      { ...got, remote: undefined },
      { method: "POST", path: "/echo?x=1", header: "yes", body: "hello body", remote: undefined },
    );
    assert.match(got.remote, /127\.0\.0\.1/);
  });

  it("keeps several Set-Cookie headers apart", async () => {
    const r = await fetch(`${base}/cookies`);
    assert.equal(r.status, 204);
    assert.deepEqual(r.headers.getSetCookie(), ["a=1; HttpOnly", "b=2; Path=/"]);
  });

  it("streams a response body", async () => {
    const r = await fetch(`${base}/stream`);
    assert.equal(r.headers.get("content-type"), "text/plain");
    assert.equal(await r.text(), "one two three");
  });

  it("answers 500 when the handler throws, and keeps serving", async () => {
    const r = await fetch(`${base}/nowhere`);
    assert.equal(r.status, 500);
    await r.body?.cancel();
    assert.equal((await fetch(`${base}/echo`)).status, 200);
  });

  it("stops listening on stop()", async () => {
    const other = await serveNode(app, { port: 0, hostname: "127.0.0.1" }, 10);
    const url = `http://127.0.0.1:${other.port}/echo`;
    assert.equal((await fetch(url)).status, 200);
    await other.stop();
    await assert.rejects(fetch(url));
  });
});
