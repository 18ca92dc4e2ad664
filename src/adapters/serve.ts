/**
 * @module serve adapter — starts an HTTP server for a fetch handler on Bun or Deno.
 */
declare const Bun: any;
declare const Deno: any;

export interface RunningServer {
  /** The port actually bound (useful with port 0). */
  port: number;
  hostname: string;
  stop(): Promise<void>;
}

/** Serves `fetch` on `hostname:port` with the runtime's native server. */
export function serve(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { port: number; hostname: string },
): Promise<RunningServer> {
  if (typeof Bun !== "undefined") {
    const server = Bun.serve({ fetch, port: options.port, hostname: options.hostname });
    return Promise.resolve({
      port: server.port,
      hostname: options.hostname,
      stop: async () => {
        await server.stop(true);
      },
    });
  }
  if (typeof Deno !== "undefined") {
    return new Promise((resolve) => {
      const server = Deno.serve({
        port: options.port,
        hostname: options.hostname,
        onListen: ({ port }: { port: number }) =>
          resolve({ port, hostname: options.hostname, stop: () => server.shutdown() }),
      }, fetch);
    });
  }
  return Promise.reject(new Error("serve: run the worker with Bun or Deno (`bun run worker`)"));
}
