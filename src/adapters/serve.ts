/**
 * @module serve adapter — starts an HTTP server for a fetch handler on Bun, Deno or Node.
 */
declare const Bun: any;
declare const Deno: any;

export interface RunningServer {
  /** The port actually bound (useful with port 0). */
  port: number;
  hostname: string;
  stop(): Promise<void>;
}

export interface ServeOptions {
  port: number;
  hostname: string;
  /** The longest a request may be handled (the app's request deadline); default 2000 ms. */
  requestTimeoutMs?: number;
}

/** What the server knows of a request beyond it; Hono apps read it as `c.env`. */
export interface ConnInfo {
  /** The client's address as the socket saw it (rate limits key on it). */
  remoteAddress?: string;
}

/** Bun's idle timeout is whole seconds, at most 255. */
const BUN_MAX_IDLE_S = 255;

/** Seconds of idle time Bun allows a connection: the request deadline plus a margin. */
export function idleTimeoutSeconds(requestTimeoutMs = 2_000): number {
  return Math.min(BUN_MAX_IDLE_S, Math.max(10, Math.ceil(requestTimeoutMs / 1000) + 5));
}

/** Serves `fetch` on `hostname:port` with the runtime's native server. */
export function serve(
  fetch: (request: Request, conn?: ConnInfo) => Response | Promise<Response>,
  options: ServeOptions,
): Promise<RunningServer> {
  if (typeof Bun !== "undefined") {
    const server = Bun.serve({
      fetch: (request: Request, bun: any) =>
        fetch(request, { remoteAddress: bun.requestIP(request)?.address }),
      port: options.port,
      hostname: options.hostname,
      // Bun closes a connection idle this long even mid-request: keep it above the deadline.
      idleTimeout: idleTimeoutSeconds(options.requestTimeoutMs),
    });
    return Promise.resolve({
      port: server.port,
      hostname: options.hostname,
      stop: async () => {
        await server.stop(true);
      },
    });
  }
  if (typeof Deno !== "undefined") {
    // Deno.serve has no idle timeout that cuts a request still being handled (checked on 2.9).
    return new Promise((resolve) => {
      const server = Deno.serve(
        {
          port: options.port,
          hostname: options.hostname,
          onListen: ({ port }: { port: number }) =>
            resolve({ port, hostname: options.hostname, stop: () => server.shutdown() }),
        },
        (request: Request, info: any) =>
          fetch(request, { remoteAddress: info?.remoteAddr?.hostname }),
      );
    });
  }
  // Node has no fetch-handler server: node:http behind a bridge, loaded only here.
  const nodeProcess = (globalThis as { process?: { versions?: { node?: string } } }).process;
  if (nodeProcess?.versions?.node) {
    const idle = idleTimeoutSeconds(options.requestTimeoutMs);
    return import("./serve-node.ts").then((m) => m.serveNode(fetch, options, idle));
  }
  return Promise.reject(new Error("serve: run the worker with Bun, Deno or Node 20+"));
}
