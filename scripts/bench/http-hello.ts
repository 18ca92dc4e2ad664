/**
 * @module http-hello — the reference `scripts/bench/http.ts` holds the API to: a Hono
 * hello-world POST, served by the same adapter (`src/adapters/serve.ts`) on the same runtime.
 * It parses the JSON body and answers a small JSON object with 201, as a submit does, and
 * nothing else: what the framework and the server cost per request.
 *
 *   PORT=8787 bun scripts/bench/http-hello.ts
 */
import process from "node:process";
import { Hono } from "hono";
import { serve } from "../../src/adapters/serve.ts";

const app = new Hono();
app.post("/", async (c) => {
  const body = await c.req.json();
  return c.json({ id: "hello", status: typeof body === "object" ? "queued" : "odd" }, 201);
});
// The readiness probe scripts/tools/worker-process.ts polls.
app.get("/skedulr/healthz", (c) => c.json({ ok: true }));

const server = await serve(app.fetch, {
  port: Number(process.env.PORT ?? 8787),
  hostname: "127.0.0.1",
});
console.log(`hello on http://127.0.0.1:${server.port}/`);
