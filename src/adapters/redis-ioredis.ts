/**
 * @module redis-ioredis — the TCP transport on ioredis, for Bun, Deno and Node.
 *
 * ioredis runs on all three runtimes. Auto-pipelining coalesces every command issued in the
 * same tick into one write, which is where Redis throughput comes from; `callBuffer` is never
 * used because it does not mix with auto-pipelining. ioredis 6 speaks RESP3 with a
 * "legacy" reply mapping that flattens maps but still nests `[member, score]` pairs, so
 * replies go through the same normalisation as Bun's.
 *
 * Faults (see redis-link.ts): ioredis by default queues commands while disconnected and
 * resends the unanswered ones after a reconnect, so a claim whose reply was lost ran twice
 * (measured with a proxy that drops one reply). Here nothing is queued or resent: commands
 * in flight reject when the connection drops, commands issued while it is down wait
 * `offlineWaitMs` for the background reconnection, then reject unsent.
 */
import { Redis, type RedisOptions } from "ioredis";
import {
  normaliseResp3,
  pipelineBySend,
  RedisCommandError,
  type RedisReply,
  type RedisTransport,
  type Unsubscribe,
} from "../storage/redis/transport.ts";
import {
  ChannelListeners,
  ConnectionGate,
  connectionLost,
  type LinkOptions,
  splitLinkOptions,
  StallWatch,
  watchedSend,
} from "./redis-link.ts";

/** Options for {@link IoredisTransport}: the fault bounds, and anything ioredis accepts. */
export type IoredisTransportOptions = RedisOptions & LinkOptions;

/** Reconnect forever, 50 ms doubling to 2 s, with jitter so a fleet does not reconnect in step. */
function reconnectDelay(attempt: number): number {
  return Math.min(2_000, 50 * 2 ** Math.min(attempt - 1, 6)) + Math.floor(Math.random() * 100);
}

/**
 * A {@link RedisTransport} over ioredis with auto-pipelining.
 *
 * @example
 * const transport = new IoredisTransport("redis://127.0.0.1:6379");
 * await transport.send(["PING"]); // "PONG"
 */
export class IoredisTransport implements RedisTransport {
  readonly name = "ioredis";
  readonly functions = true;
  readonly #client: Redis;
  readonly #options: RedisOptions;
  readonly #url: string;
  readonly #gate: ConnectionGate;
  readonly #watch: StallWatch;
  readonly #offlineWaitMs: number;
  #closed = false;
  #subscriber: { client: Redis; gate: ConnectionGate } | null = null;
  readonly #listeners = new ChannelListeners();

  constructor(url: string, options: IoredisTransportOptions = {}) {
    const [link, clientOptions] = splitLinkOptions(options);
    this.#url = url;
    this.#offlineWaitMs = link.offlineWaitMs;
    this.#options = {
      enableAutoPipelining: true,
      // Never resend: a command whose reply was lost may have run (a claim would run twice).
      autoResendUnfulfilledCommands: false,
      // 0 makes every lost connection reject what was in flight at once; null or a higher
      // number would keep those commands waiting (unresolved) across reconnects.
      maxRetriesPerRequest: 0,
      // Nothing queued while disconnected: the gate below waits a bounded time instead.
      enableOfflineQueue: false,
      retryStrategy: reconnectDelay,
      lazyConnect: false,
      ...clientOptions,
    };
    this.#client = this.#open(this.#options);
    this.#gate = this.#gateFor(this.#client, link.offlineWaitMs);
    // A silent connection is cut; ioredis reconnects it and rejects what was in flight.
    this.#watch = new StallWatch(link.stallTimeoutMs, () => this.#client.disconnect(true));
  }

  #open(options: RedisOptions): Redis {
    const client = new Redis(this.#url, options);
    // Errors surface on the commands; without a listener ioredis logs every reconnect attempt.
    client.on("error", () => {});
    return client;
  }

  #gateFor(client: Redis, waitMs: number): ConnectionGate {
    const gate = new ConnectionGate(() => client.status === "ready", waitMs);
    client.on("ready", () => gate.opened());
    return gate;
  }

  async send(cmd: string[]): Promise<RedisReply> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot send ${cmd[0]}`);
    if (this.#client.status !== "ready" && !(await this.#gate.ready())) {
      throw this.#gate.unreachable(this.#url, cmd[0]);
    }
    // ioredis 6 speaks RESP3; its legacy mapping flattens maps but still nests scores.
    // Arguments as one array, never spread: a batch of thousands of tasks is more
    // arguments than a function call takes (RangeError: Maximum call stack size exceeded).
    return await watchedSend(
      this.#watch,
      cmd,
      async () => normaliseResp3(cmd, await this.#client.call(cmd[0], cmd.slice(1))),
      (error) => this.#toError(error, cmd),
    );
  }

  pipeline(cmds: string[][]): Promise<(RedisReply | RedisCommandError)[]> {
    return pipelineBySend((cmd) => this.send(cmd), cmds);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot subscribe ${channel}`);
    const { client: sub, gate } = this.#subscriberClient();
    return await this.#listeners.add(channel, onMessage, async () => {
      try {
        if (sub.status !== "ready" && !(await gate.ready())) {
          throw gate.unreachable(this.#url, `SUBSCRIBE ${channel}`);
        }
        await sub.subscribe(channel);
      } catch (error) {
        throw this.#toError(error, ["SUBSCRIBE", channel]);
      }
    }, async () => {
      if (sub.status === "ready") await sub.unsubscribe(channel).catch(() => {});
    });
  }

  #subscriberClient(): { client: Redis; gate: ConnectionGate } {
    if (!this.#subscriber) {
      // A subscribed connection cannot send ordinary commands: it gets its own socket.
      // ioredis re-subscribes on its own once it reconnects (checked across a Redis
      // SHUTDOWN and restart on the same port).
      const client = this.#open({ ...this.#options, enableAutoPipelining: false });
      client.on("message", (channel: string, message: string) => {
        this.#listeners.deliver(channel, message);
      });
      this.#subscriber = { client, gate: this.#gateFor(client, this.#offlineWaitMs) };
    }
    return this.#subscriber;
  }

  #toError(error: unknown, cmd: string[]): unknown {
    // ioredis marks server error replies as ReplyError; connection failures are plain Errors.
    if (error instanceof Error && error.name === "ReplyError") {
      return new RedisCommandError(error.message, { cause: error });
    }
    // With maxRetriesPerRequest 0 this is how ioredis says the connection dropped.
    const lost = error instanceof Error && error.name === "MaxRetriesPerRequestError";
    return connectionLost(this.#url, cmd[0], error, lost ? "the connection was lost" : undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watch.stop();
    const clients = [this.#client, this.#subscriber?.client].filter((c): c is Redis => !!c);
    this.#subscriber = null;
    this.#listeners.clear();
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}
