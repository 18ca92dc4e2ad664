/**
 * @module serve-node — the API server on Node's `node:http`, for a Web fetch handler.
 *
 * Node 20 has no server that takes a fetch handler, so this is the bridge: each request
 * becomes a Web `Request` (body streamed, its signal aborted when the client goes away) and
 * the `Response` is streamed back with backpressure. Loaded by serve.ts on Node only, so Bun
 * and Deno keep their native servers. A small bridge rather than `@hono/node-server`: the
 * app needs nothing more, and the package keeps one dependency fewer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ConnInfo, RunningServer, ServeOptions } from "./serve.ts";

type FetchHandler = (request: Request, conn?: ConnInfo) => Response | Promise<Response>;

/**
 * Serves `fetch` on `hostname:port` with `node:http`. `idleSeconds` bounds how long a client
 * may take to send one request, as Bun's idle timeout does (kept above the app's deadline).
 *
 * @example
 * const server = await serveNode(app.fetch, { port: 0, hostname: "127.0.0.1" }, 10);
 * await server.stop();
 */
export function serveNode(
  fetch: FetchHandler,
  options: ServeOptions,
  idleSeconds: number,
): Promise<RunningServer> {
  const server = createServer((req, res) => {
    handle(fetch, req, res).catch(() => res.destroy());
  });
  server.requestTimeout = idleSeconds * 1000;
  server.headersTimeout = Math.min(server.headersTimeout, server.requestTimeout);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      const address = server.address();
      resolve({
        port: typeof address === "object" && address ? address.port : options.port,
        hostname: options.hostname,
        // Like Bun's stop(true): open connections are closed, not waited for.
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

async function handle(fetch: FetchHandler, req: IncomingMessage, res: ServerResponse) {
  let request: Request;
  try {
    request = toRequest(req, res);
  } catch {
    // A Host header or target that makes no URL: the client's fault, not a 500.
    res.writeHead(400, { "content-type": "text/plain" }).end("bad request target");
    return;
  }
  let response: Response;
  try {
    response = await fetch(request, { remoteAddress: req.socket.remoteAddress });
  } catch {
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("internal error");
    return;
  }
  await writeResponse(response, res);
}

function toRequest(req: IncomingMessage, res: ServerResponse): Request {
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  const aborted = new AbortController();
  // The client went away before the answer was written: stop the work for it.
  res.once("close", () => {
    if (!res.writableFinished) aborted.abort();
  });
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers,
    signal: aborted.signal,
    ...(hasBody
      ? { body: Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>, duplex: "half" }
      : {}),
  } as RequestInit);
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") headers[key] = value;
  });
  // Several cookies must stay several headers; joined with commas they would be one.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  // A client that disconnects mid-stream rejects the pipeline and cancels the body.
  await pipeline(
    Readable.fromWeb(response.body as unknown as Parameters<typeof Readable.fromWeb>[0]),
    res,
  ).catch(() => {});
}
