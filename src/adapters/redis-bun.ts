/**
 * @module redis-bun — the TCP transport on Bun's built-in `RedisClient` (Bun only).
 *
 * Chosen on Bun because it pipelines script batches faster than ioredis there (see
 * `scripts/bench/redis-client.ts`). Bun's client speaks RESP3, so replies (maps as objects,
 * doubles as numbers, nested score pairs) are turned into the RESP2 shapes of the transport
 * contract. Two gaps of Bun 1.4 are closed here:
 * - a subscriber does not re-subscribe after a reconnect, so the subscriber connection runs
 *   without auto-reconnect and this adapter reopens it and subscribes every channel again;
 * - a client that exhausted its reconnect attempts stays closed, so it is replaced.
 * Faults (see redis-link.ts): Bun does not resend a command whose reply was lost (it rejects
 * with "Connection closed"), but its offline queue holds commands issued while disconnected
 * and runs them after the reconnect, however late. So the queue is off, Bun reconnects in
 * the background (with a retry budget of weeks), and a command that finds the connection
 * down waits `offlineWaitMs` for it, then rejects unsent.
 * The client is reached through `globalThis.Bun` rather than `import "bun"`, so type checks
 * under Deno and Node never need Bun's module.
 */
import {
  normaliseResp3,
  pipelineBySend,
  RedisCommandError,
  type RedisReply,
  type RedisTransport,
  type Unsubscribe,
} from "../storage/redis/transport.ts";
import {
  ConnectionGate,
  connectionLost,
  type LinkOptions,
  splitLinkOptions,
  StallWatch,
  watchedSend,
} from "./redis-link.ts";

type Listener = (message: string, channel: string) => void;

/** The part of Bun's `RedisClient` this adapter uses. */
interface BunRedisClient {
  send(command: string, args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: Listener): Promise<number>;
  unsubscribe(channel: string): Promise<void>;
  connect(): Promise<void>;
  close(): void;
  readonly connected: boolean;
  onclose: ((error: Error) => void) | null;
  onconnect: (() => void) | null;
}

type BunRedisCtor = new (url: string, options?: Record<string, unknown>) => BunRedisClient;

function bunRedisCtor(): BunRedisCtor | undefined {
  const bun = (globalThis as { Bun?: { RedisClient?: BunRedisCtor } }).Bun;
  return typeof bun?.RedisClient === "function" ? bun.RedisClient : undefined;
}

/** True when running on Bun with its built-in Redis client. */
export function hasBunRedis(): boolean {
  return bunRedisCtor() !== undefined;
}

const RESUBSCRIBE_MIN_MS = 50;
const RESUBSCRIBE_MAX_MS = 2_000;
/** Bun backs off to one attempt every 2 s: a million attempts is weeks of outage. */
const MAX_RETRIES = 1_000_000;

/** Bun's own client options, plus the fault bounds of {@link LinkOptions}. */
export type BunRedisTransportOptions = Record<string, unknown> & LinkOptions;

/**
 * A {@link RedisTransport} over Bun's `RedisClient`.
 *
 * @example
 * const transport = new BunRedisTransport("redis://127.0.0.1:6379");
 * await transport.send(["PING"]); // "PONG"
 */
export class BunRedisTransport implements RedisTransport {
  readonly name = "bun";
  readonly functions = true;
  readonly #url: string;
  readonly #options: Record<string, unknown>;
  readonly #Ctor: BunRedisCtor;
  #client: BunRedisClient;
  readonly #gate: ConnectionGate;
  readonly #watch: StallWatch;
  #closed = false;
  readonly #listeners = new Map<string, Set<(message: string) => void>>();
  #sub: Promise<BunRedisClient> | null = null;
  #resubscribeTimer: ReturnType<typeof setTimeout> | null = null;
  #resubscribeDelay = RESUBSCRIBE_MIN_MS;

  constructor(url: string, options: BunRedisTransportOptions = {}) {
    const Ctor = bunRedisCtor();
    if (!Ctor) throw new Error("BunRedisTransport needs Bun's built-in RedisClient (run on Bun)");
    const [link, clientOptions] = splitLinkOptions(options);
    this.#Ctor = Ctor;
    this.#url = url;
    this.#options = {
      enableAutoPipelining: true,
      // Nothing queued while disconnected: the gate waits a bounded time instead.
      enableOfflineQueue: false,
      maxRetries: MAX_RETRIES,
      ...clientOptions,
    };
    this.#gate = new ConnectionGate(() => this.#client.connected, link.offlineWaitMs);
    // A silent connection is closed and replaced; Bun rejects what was in flight.
    this.#watch = new StallWatch(link.stallTimeoutMs, () => this.#replace(this.#client));
    this.#client = this.#newClient();
  }

  #newClient(): BunRedisClient {
    const client = new this.#Ctor(this.#url, this.#options);
    // onclose fires once Bun gave up reconnecting (or was closed): replace the client.
    client.onclose = () => this.#replace(client);
    client.onconnect = () => this.#gate.opened();
    // Without an offline queue Bun connects only when told to; it retries on its own after.
    client.connect().catch(() => {});
    return client;
  }

  #replace(client: BunRedisClient): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = this.#newClient();
    client.onclose = null;
    client.close();
  }

  async send(cmd: string[]): Promise<RedisReply> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot send ${cmd[0]}`);
    if (!this.#client.connected && !(await this.#gate.ready())) {
      throw this.#gate.unreachable(this.#url, cmd[0]);
    }
    return await watchedSend(
      this.#watch,
      cmd,
      async () => normaliseResp3(cmd, await this.#client.send(cmd[0], cmd.slice(1))),
      (error) => this.#toError(error, cmd),
    );
  }

  #toError(error: unknown, cmd: string[]): unknown {
    // Bun tags server error replies with this code; connection failures carry others.
    if (error instanceof Error && (error as { code?: string }).code === "ERR_REDIS_SERVER_ERROR") {
      return new RedisCommandError(error.message, { cause: error });
    }
    return connectionLost(this.#url, cmd[0], error);
  }

  pipeline(cmds: string[][]): Promise<(RedisReply | RedisCommandError)[]> {
    return pipelineBySend((cmd) => this.send(cmd), cmds);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot subscribe ${channel}`);
    let set = this.#listeners.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
    }
    set.add(onMessage);
    if (first) {
      try {
        const sub = await this.#subscriber();
        await sub.subscribe(channel, this.#dispatch);
      } catch (error) {
        set.delete(onMessage);
        if (set.size === 0) this.#listeners.delete(channel);
        throw this.#toError(error, ["SUBSCRIBE", channel]);
      }
    }
    return async () => {
      const current = this.#listeners.get(channel);
      if (!current?.delete(onMessage) || current.size > 0) return;
      this.#listeners.delete(channel);
      const sub = await this.#sub?.catch(() => null);
      if (sub?.connected) await sub.unsubscribe(channel).catch(() => {});
    };
  }

  readonly #dispatch: Listener = (message, channel) => {
    for (const listener of this.#listeners.get(channel) ?? []) listener(message);
  };

  /** The subscriber connection, opened on first use. */
  #subscriber(): Promise<BunRedisClient> {
    this.#sub ??= this.#openSubscriber();
    return this.#sub;
  }

  async #openSubscriber(): Promise<BunRedisClient> {
    const sub = new this.#Ctor(this.#url, {
      ...this.#options,
      autoReconnect: false,
      enableOfflineQueue: false,
    });
    sub.onclose = () => {
      if (this.#closed) return;
      this.#sub = null;
      this.#scheduleResubscribe();
    };
    try {
      await sub.connect();
    } catch (error) {
      sub.onclose = null;
      this.#sub = null;
      this.#scheduleResubscribe();
      throw error;
    }
    return sub;
  }

  /** Reopens the subscriber after a lost connection and subscribes every channel again. */
  #scheduleResubscribe(): void {
    if (this.#closed || this.#resubscribeTimer || this.#listeners.size === 0) return;
    this.#resubscribeTimer = setTimeout(async () => {
      this.#resubscribeTimer = null;
      if (this.#closed || this.#sub) return;
      try {
        const sub = await this.#subscriber();
        for (const channel of this.#listeners.keys()) await sub.subscribe(channel, this.#dispatch);
        this.#resubscribeDelay = RESUBSCRIBE_MIN_MS;
      } catch {
        this.#resubscribeDelay = Math.min(RESUBSCRIBE_MAX_MS, this.#resubscribeDelay * 2);
        this.#scheduleResubscribe();
      }
    }, this.#resubscribeDelay);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watch.stop();
    if (this.#resubscribeTimer) clearTimeout(this.#resubscribeTimer);
    this.#listeners.clear();
    const sub = await this.#sub?.catch(() => null);
    this.#sub = null;
    sub?.close();
    this.#client.close();
  }
}
