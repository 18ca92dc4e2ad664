/**
 * @module tcp-proxy — a fault-injecting TCP proxy for tests, in front of a redis-server (or
 * any TCP server, such as the REST gateway).
 *
 * Faults are switched at runtime, each a way real deployments break:
 * - {@link TcpProxy.loseNextReply}: the next request bytes a client sends reach the server,
 *   the server's answer is dropped and the client's socket is cut once the answer came back:
 *   the command ran, the client never hears of it (a network cut at the worst moment);
 * - {@link TcpProxy.blackhole}: connections stay open and nothing moves either way; what was
 *   sent meanwhile is held and delivered on heal, like a Redis under SIGSTOP then SIGCONT;
 * - {@link TcpProxy.refuse}: existing connections are cut and the port stops listening, so
 *   new connections are refused (ECONNREFUSED), like a Redis that is down;
 * - {@link TcpProxy.heal}: back to pass-through (the port listens again).
 */
import { createServer, type Server, type Socket } from "node:net";
import { connect } from "node:net";

type Mode = "pass" | "blackhole" | "refuse";

export interface TcpProxy {
  /** The port clients connect to (stays the same across refuse/heal). */
  readonly port: number;
  /** `redis://127.0.0.1:<port>` or `http://127.0.0.1:<port>`, as the caller asked. */
  url(scheme?: string): string;
  /** Client connections currently open through the proxy. */
  readonly connections: number;
  /** Client connections accepted so far (reconnects show up here). */
  readonly accepted: number;
  loseNextReply(): void;
  blackhole(): void;
  refuse(): Promise<void>;
  heal(): Promise<void>;
  stop(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
  /** Bytes held while blackholed, per direction. */
  up: Uint8Array[];
  down: Uint8Array[];
  /** This pair carried the request whose reply is to be lost. */
  losing: boolean;
}

/**
 * Starts a proxy on a free port of 127.0.0.1 that forwards to `targetPort`.
 *
 * @example
 * const proxy = await startTcpProxy(redis.port);
 * const t = connectRedisTcp(proxy.url());
 * proxy.loseNextReply();
 */
export async function startTcpProxy(
  targetPort: number,
  targetHost = "127.0.0.1",
): Promise<TcpProxy> {
  let mode: Mode = "pass";
  let loseArmed = false;
  let accepted = 0;
  const pairs = new Set<Pair>();
  /** Pairs whose client hung up while blackholed, with requests still to deliver. */
  const held = new Set<Pair>();

  const onConnection = (client: Socket) => {
    if (mode === "refuse") return client.destroy();
    accepted++;
    client.setNoDelay(true);
    const server = connect(targetPort, targetHost);
    server.setNoDelay(true);
    const pair: Pair = { client, server, up: [], down: [], losing: false };
    pairs.add(pair);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    const clientGone = () => {
      if (held.has(pair)) return;
      // Like a stopped Redis, whose socket buffer still holds what a client sent before it
      // hung up: that is delivered on heal, and runs.
      if (mode === "blackhole" && pair.up.length > 0 && !pair.losing) {
        pairs.delete(pair);
        held.add(pair);
        return void client.destroy();
      }
      close();
    };
    client.on("error", clientGone).on("close", clientGone);
    server.on("error", close).on("close", close);
    client.on("data", (chunk: Uint8Array) => {
      if (mode === "blackhole") return void pair.up.push(chunk);
      if (loseArmed) {
        loseArmed = false;
        pair.losing = true;
      }
      server.write(chunk);
    });
    server.on("data", (chunk: Uint8Array) => {
      // The request ran (its reply is here): drop the reply, then cut the client off.
      if (pair.losing) return close();
      if (!pairs.has(pair)) return; // its client hung up while blackholed
      if (mode === "blackhole") return void pair.down.push(chunk);
      client.write(chunk);
    });
  };

  let listener: Server = createServer(onConnection);
  const listen = (srv: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      srv.once("error", reject);
      srv.listen(port, "127.0.0.1", () => resolve((srv.address() as { port: number }).port));
    });
  const closeListener = () => new Promise<void>((resolve) => listener.close(() => resolve()));
  const port = await listen(listener, 0);

  return {
    port,
    url: (scheme = "redis") => `${scheme}://127.0.0.1:${port}`,
    get connections() {
      return pairs.size;
    },
    get accepted() {
      return accepted;
    },
    loseNextReply() {
      loseArmed = true;
    },
    blackhole() {
      mode = "blackhole";
    },
    async refuse() {
      mode = "refuse";
      for (const pair of [...pairs]) {
        pair.client.destroy();
        pair.server.destroy();
      }
      pairs.clear();
      await closeListener();
    },
    async heal() {
      const was = mode;
      mode = "pass";
      if (was === "refuse") {
        listener = createServer(onConnection);
        await listen(listener, port);
      }
      for (const pair of pairs) {
        for (const chunk of pair.up.splice(0)) pair.server.write(chunk);
        for (const chunk of pair.down.splice(0)) pair.client.write(chunk);
      }
      for (const pair of held) {
        for (const chunk of pair.up.splice(0)) pair.server.write(chunk);
        pair.server.end(); // the replies go nowhere, as to a client that hung up
      }
      held.clear();
    },
    async stop() {
      mode = "refuse";
      for (const pair of [...pairs, ...held]) {
        pair.client.destroy();
        pair.server.destroy();
      }
      pairs.clear();
      held.clear();
      if (listener.listening) await closeListener();
    },
  };
}
