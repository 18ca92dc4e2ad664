/**
 * @module rest-proxy — an HTTP proxy for tests in front of the REST gateway that injects
 * faults by request body: it holds back a request holding a marker until released, or
 * answers one itself with a server error, as an endpoint that refuses a command would.
 * Everything else passes through, streams (SSE) included.
 */
import { createServer, type Server } from "node:http";
import { gate } from "./wait.ts";

export interface RestProxyOptions {
  /** A request whose body holds this waits until `release()`. */
  hold?: string;
  /** The error text to answer with (HTTP 400 `{error}`), or null to pass the request on. */
  refuse?: (body: string) => string | null;
}

export interface RestProxy {
  url: string;
  /** Request bodies in arrival order, and those answered (by the target or refused). */
  seen: string[];
  answered: string[];
  held(): number;
  release(): void;
  stop(): Promise<void>;
}

/** Starts the proxy on a free loopback port, forwarding to `target`. */
export async function restProxy(
  target: string,
  options: RestProxyOptions = {},
): Promise<RestProxy> {
  const release = gate();
  const seen: string[] = [];
  const answered: string[] = [];
  let held = 0;
  const server: Server = createServer(async (req, res) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of req) chunks.push(chunk as Uint8Array);
    const body = new TextDecoder().decode(Buffer.concat(chunks));
    seen.push(body);
    const refusal = options.refuse?.(body) ?? null;
    if (refusal !== null) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: refusal }));
      answered.push(body);
      return;
    }
    if (options.hold && body.includes(options.hold)) {
      held++;
      await release.promise;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && name !== "host" && name !== "content-length") {
        headers.set(name, value);
      }
    }
    const reply = await fetch(target + req.url, {
      method: req.method,
      headers,
      body: req.method === "GET" ? undefined : body,
    });
    res.writeHead(reply.status, Object.fromEntries(reply.headers));
    try {
      if (reply.body) { for await (const chunk of reply.body) res.write(chunk); }
    } catch {
      // The target stopped under an open stream (the end of a test): drop it too.
    }
    res.end();
    answered.push(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    answered,
    held: () => held,
    release: () => release.open(),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
