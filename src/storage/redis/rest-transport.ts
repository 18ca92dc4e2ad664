/**
 * @module rest-transport — {@link RedisTransport} over Upstash's REST protocol with
 * `@upstash/redis`, for runtimes that cannot open TCP sockets (Cloudflare Workers, Deno
 * Deploy) and for resident workers that reach Redis only over HTTPS.
 *
 * - Commands are batched into `POST /pipeline` requests and answered in issue order, like
 *   one pipelined TCP connection (see rest-pipeline.ts for why, and for the client's own
 *   auto-pipelining, which `pipelineMode: "client"` selects). A store may send some
 *   commands in a second lane ({@link RestTransport.sideLane}: a resident worker's claims).
 * - Replies arrive as JSON text, already RESP2-shaped, without the client's default base64:
 *   Skedulr writes only UTF-8 text (JS strings), so there are no other bytes to carry, and
 *   base64 cost the endpoint an encode and the worker a decode of every string.
 *   `automaticDeserialization` is off, so a value that looks like JSON stays the string it is.
 * - Scripts run through the same {@link ScriptRunner} as over TCP: EVALSHA, then EVAL on
 *   NOSCRIPT, which this transport reports as a {@link RedisCommandError} like TCP does; as
 *   Redis 7 functions (FCALL) once a store's init() loaded them and ran one without an error
 *   (`functions: "if-proven"`), so an endpoint that refuses them costs nothing.
 * - A request whose fetch failed is sent again only when all its commands are reads
 *   (`resendable` in rest-pipeline.ts). A fetch can fail after the server ran the request
 *   (the reply was lost), and a resent EVALSHA ran its script twice (measured through a
 *   proxy that drops one reply, with the client's own retry). Runtimes do not say whether
 *   anything was sent (Deno reports only "fetch failed"), so the rule goes by command. A
 *   write fails at once with a plain Error and its caller decides. One resend is out of
 *   reach here: Deno 2.9's fetch itself resends a POST once when a pooled keep-alive
 *   connection closes before the reply (denoland/deno#35610); Bun's does not.
 * - No blocking commands exist over REST. Pub/sub is one SSE stream per channel
 *   ({@link SseChannel}), re-opened when it drops; {@link RestTransport.onReconnect} tells
 *   the storage that messages may have been missed.
 *
 * Web-standard only (fetch, streams, Web Crypto), which is why the client comes from
 * `@upstash/redis/cloudflare`: that entry reads no environment variables.
 */
import { Redis } from "@upstash/redis/cloudflare";
import {
  answered,
  OrderedPipeline,
  type Outcome,
  type PipelineMode,
  resendable,
  typedCall,
} from "./rest-pipeline.ts";
import { SseChannel } from "./rest-sse.ts";
import {
  RedisCommandError,
  type RedisReply,
  type RedisTransport,
  type Unsubscribe,
} from "./transport.ts";

export interface RestTransportOptions {
  /** The REST endpoint, e.g. `https://eu1-xyz.upstash.io` or the local gateway's URL. */
  url: string;
  token: string;
  /**
   * Resends of a request of reads only whose fetch failed (default 3). Requests with a
   * write or a script are never resent, and HTTP error answers are final.
   */
  retries?: number;
  /**
   * How long one HTTP request may take, answer included, before it fails (default 15000 ms;
   * 0: no limit). A stalled endpoint would otherwise hold the ordered queue forever.
   */
  timeoutMs?: number;
  /** How commands are batched (default `ordered`; see rest-pipeline.ts). */
  pipelineMode?: PipelineMode;
  /**
   * Send Redis 7 script flags (`allow-oom`). Default false: Upstash speaks the protocol of
   * Redis 6.2, which has none; true suits a gateway in front of Redis 7 (the local one).
   */
  scriptFlags?: boolean;
}

interface Channel {
  sse: SseChannel;
  listeners: Set<(message: string) => void>;
}

/**
 * A {@link RedisTransport} over Upstash REST.
 *
 * @example
 * const transport = new RestTransport({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
 * const storage = new RedisStorage({ transport, checkEvictionPolicy: false });
 */
export class RestTransport implements RedisTransport {
  readonly name = "upstash";
  readonly protocol = "redis-rest";
  readonly scriptFlags: boolean;
  /** Scripts run as functions once a store's init() proved the endpoint runs them. */
  readonly functions = "if-proven";
  readonly url: string;
  readonly #token: string;
  readonly #redis: Redis;
  readonly #ordered: OrderedPipeline | null;
  readonly #channels = new Map<string, Channel>();
  readonly #reconnectListeners = new Set<() => void>();
  #closed = false;
  #requests = 0;

  constructor(options: RestTransportOptions) {
    if (!/^https?:\/\/[^/\s]/.test(options.url)) {
      throw new TypeError(
        `RestTransport: url must be an http(s) URL, got ${JSON.stringify(options.url)}`,
      );
    }
    if (!options.token) throw new TypeError("RestTransport: token is empty");
    this.url = options.url.replace(/\/+$/, "");
    this.scriptFlags = options.scriptFlags ?? false;
    this.#token = options.token;
    const retries = options.retries ?? 3;
    const mode = options.pipelineMode ?? "ordered";
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.#redis = new Redis({
      url: this.url,
      token: options.token,
      // Replies stay the strings Redis sent: no JSON guessing on values.
      automaticDeserialization: false,
      enableTelemetry: false,
      // Replies as plain JSON text, not base64: every value Skedulr reads is UTF-8 text it
      // wrote, which JSON carries exactly; decoding base64 cost a REST worker ~5 µs a task.
      responseEncoding: false,
      enableAutoPipelining: mode === "client",
      // Exactly one fetch per request (`retry: false` still makes two in @upstash/redis
      // 1.39): whether to resend is decided below, per request.
      retry: { retries: 0 },
      // A function gives each request its own deadline, and makes the client throw on it
      // (an AbortSignal object would turn an abort into a reply of "Aborted").
      signal: timeoutMs > 0 ? () => AbortSignal.timeout(timeoutMs) : undefined,
    });
    this.#redis.use(async (req, next) => {
      for (let attempt = 0;; attempt++) {
        this.#requests++;
        try {
          return await next(req);
        } catch (error) {
          // A request that timed out is not tried again: its budget is spent.
          const timedOut = (error as { name?: string })?.name === "TimeoutError";
          if (attempt >= retries || timedOut || answered(error) || !resendable(req.body)) {
            throw error;
          }
          await new Promise((r) => setTimeout(r, Math.min(1_000, 50 * 2 ** attempt)));
        }
      }
    });
    this.#ordered = mode === "ordered" ? new OrderedPipeline(this.#redis) : null;
  }

  /**
   * Sends the commands `matches` picks in a lane of their own, beside the rest (the
   * `ordered` mode's side lane, rest-pipeline.ts); null: one lane. No effect in `client` mode.
   */
  sideLane(matches: ((cmd: string[]) => boolean) | null): void {
    this.#ordered?.sideLane(matches);
  }

  /** HTTP requests sent so far (pipelines count once, SSE opens included). */
  get requests(): number {
    return this.#requests;
  }

  async send(cmd: string[]): Promise<RedisReply> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot send ${cmd[0]}`);
    const outcome = await this.#send(cmd);
    if (!outcome.ok) throw toError(outcome.error, this.url);
    return toReply(outcome.value);
  }

  #send(cmd: string[]): Promise<Outcome> {
    if (this.#ordered) return this.#ordered.send(cmd);
    // The client's auto-pipelining Proxy batches the typed calls of one tick.
    const typed = typedCall(this.#redis, cmd);
    const call = typed === false
      ? this.#redis.exec(cmd as [string, ...string[]])
      : typed as Promise<unknown>;
    return call.then((value) => ({ ok: true, value }), (error) => ({ ok: false, error }));
  }

  pipeline(cmds: string[][]): Promise<(RedisReply | RedisCommandError)[]> {
    // Issued in one tick, so the client sends them as one pipeline request.
    return Promise.all(cmds.map((cmd) =>
      this.send(cmd).catch((error) => {
        if (error instanceof RedisCommandError) return error;
        throw error;
      })
    ));
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot subscribe ${channel}`);
    let ch = this.#channels.get(channel);
    if (!ch) {
      const listeners = new Set<(message: string) => void>();
      const sse = new SseChannel({
        url: this.url,
        token: this.#token,
        channel,
        onMessage: (message) => {
          for (const listener of listeners) listener(message);
        },
        onConnected: (reconnected) => {
          if (reconnected) { for (const listener of this.#reconnectListeners) listener(); }
        },
        onRequest: () => this.#requests++,
      });
      ch = { sse, listeners };
      this.#channels.set(channel, ch);
    }
    const current = ch;
    current.listeners.add(onMessage);
    try {
      await current.sse.ready;
    } catch (error) {
      current.listeners.delete(onMessage);
      if (this.#channels.get(channel) === current) this.#channels.delete(channel);
      throw error;
    }
    return () => {
      current.listeners.delete(onMessage);
      if (current.listeners.size === 0 && this.#channels.get(channel) === current) {
        this.#channels.delete(channel);
        current.sse.stop();
      }
      return Promise.resolve();
    };
  }

  /**
   * Calls `listener` whenever a pub/sub stream was re-opened after a drop: messages
   * published in between are lost, so the caller should look for work it missed.
   */
  onReconnect(listener: () => void): () => void {
    this.#reconnectListeners.add(listener);
    return () => this.#reconnectListeners.delete(listener);
  }

  close(): Promise<void> {
    this.#closed = true;
    for (const ch of this.#channels.values()) ch.sse.stop();
    this.#channels.clear();
    this.#reconnectListeners.clear();
    return Promise.resolve();
  }
}

function toReply(value: unknown): RedisReply {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number") return value;
  if (Array.isArray(value)) return value.map(toReply);
  return String(value);
}

/**
 * The client's errors carry the server's text behind its own wording ("Command failed: ",
 * ", command was: [...]"). A text that starts with a Redis error code (ERR, NOSCRIPT,
 * WRONGTYPE, ...) is a server reply; anything else (401, an unreachable gateway, a failed
 * fetch, an HTML error page) means the connection failed.
 */
function toError(error: unknown, url: string): Error {
  let text: string;
  if (typeof error === "string") text = error; // a pipeline entry's {error}
  else if (error instanceof Error && error.name === "UpstashError") {
    text = error.message.replace(/^Command failed: /, "").replace(/, command was: [\s\S]*$/, "");
  } else {
    const message = error instanceof Error ? error.message : String(error);
    return new Error(`Redis REST request to ${url} failed: ${message}`, { cause: error });
  }
  if (/^[A-Z][A-Z_-]+(\s|$)/.test(text)) return new RedisCommandError(text, { cause: error });
  return new Error(`Redis REST request to ${url} failed: ${text}`, { cause: error });
}
