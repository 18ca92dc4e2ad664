/**
 * @module redis-ioredis — the TCP transport on ioredis, for Bun, Deno and Node.
 *
 * ioredis runs on all three runtimes. Auto-pipelining coalesces every command issued in the
 * same tick into one write, which is where Redis throughput comes from; `callBuffer` is never
 * used because it does not mix with auto-pipelining. ioredis 6 speaks RESP3 with a
 * "legacy" reply mapping that flattens maps but still nests `[member, score]` pairs, so
 * replies go through the same normalisation as Bun's.
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

/** Options for {@link IoredisTransport}; anything ioredis accepts, over sane defaults. */
export type IoredisTransportOptions = RedisOptions;

/**
 * A {@link RedisTransport} over ioredis with auto-pipelining.
 *
 * @example
 * const transport = new IoredisTransport("redis://127.0.0.1:6379");
 * await transport.send(["PING"]); // "PONG"
 */
export class IoredisTransport implements RedisTransport {
  readonly name = "ioredis";
  readonly #client: Redis;
  readonly #options: RedisOptions;
  readonly #url: string;
  #subscriber: Redis | null = null;
  readonly #listeners = new Map<string, Set<(message: string) => void>>();

  constructor(url: string, options: IoredisTransportOptions = {}) {
    this.#url = url;
    this.#options = {
      enableAutoPipelining: true,
      // Keep retrying while Redis restarts: scripts are idempotent per call, callers time out.
      maxRetriesPerRequest: null,
      lazyConnect: false,
      ...options,
    };
    this.#client = new Redis(url, this.#options);
    // Errors surface on the commands; without a listener ioredis logs every reconnect attempt.
    this.#client.on("error", () => {});
  }

  async send(cmd: string[]): Promise<RedisReply> {
    try {
      // ioredis 6 speaks RESP3; its legacy mapping flattens maps but still nests scores.
      // Arguments as one array, never spread: a batch of thousands of tasks is more
      // arguments than a function call takes (RangeError: Maximum call stack size exceeded).
      return normaliseResp3(cmd, await this.#client.call(cmd[0], cmd.slice(1)));
    } catch (error) {
      throw toCommandError(error);
    }
  }

  pipeline(cmds: string[][]): Promise<(RedisReply | RedisCommandError)[]> {
    return pipelineBySend((cmd) => this.send(cmd), cmds);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe> {
    const sub = this.#subscriberClient();
    let set = this.#listeners.get(channel);
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
      await sub.subscribe(channel);
    }
    set.add(onMessage);
    return async () => {
      const current = this.#listeners.get(channel);
      if (!current?.delete(onMessage) || current.size > 0) return;
      this.#listeners.delete(channel);
      if (sub.status === "ready") await sub.unsubscribe(channel).catch(() => {});
    };
  }

  #subscriberClient(): Redis {
    if (!this.#subscriber) {
      // A subscribed connection cannot send ordinary commands: it gets its own socket.
      // ioredis re-subscribes on its own after a reconnect.
      const sub = new Redis(this.#url, { ...this.#options, enableAutoPipelining: false });
      sub.on("error", () => {});
      sub.on("message", (channel: string, message: string) => {
        for (const listener of this.#listeners.get(channel) ?? []) listener(message);
      });
      this.#subscriber = sub;
    }
    return this.#subscriber;
  }

  async close(): Promise<void> {
    const clients = [this.#client, this.#subscriber].filter((c): c is Redis => c !== null);
    this.#subscriber = null;
    this.#listeners.clear();
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
  }
}

function toCommandError(error: unknown): unknown {
  // ioredis marks server error replies as ReplyError; connection failures are plain Errors.
  if (error instanceof Error && error.name === "ReplyError") {
    return new RedisCommandError(error.message, { cause: error });
  }
  return error;
}
