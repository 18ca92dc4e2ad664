/**
 * @module transport — the seam between RedisStorage and a Redis connection.
 *
 * The storage speaks only through {@link RedisTransport}: one command, a pipeline of
 * commands, one pub/sub channel, close. TCP clients (ioredis, Bun's `RedisClient`) and the
 * Upstash REST client each sit behind it in `src/adapters/`, so the storage never learns
 * which protocol or RESP version carries its commands.
 *
 * Replies are normalised to the RESP2 shapes every client can produce: integers are numbers,
 * bulk and simple strings are strings, nil is null, maps are flat `[field, value, ...]`
 * arrays, and doubles (scores) are decimal strings. Server error replies reject with
 * {@link RedisCommandError}; anything else thrown means the connection failed.
 *
 * Faults, the same for every transport (test/unit/transport-faults.test.ts):
 * - a command whose connection failed rejects with a plain Error: it may or may not have
 *   run, and no transport sends it again on its own; resending is the caller's decision;
 * - a command issued while the connection is down waits a bounded time for the background
 *   reconnection, then rejects unsent: nothing is queued to run later;
 * - a connection that stops answering is given up after a bound, never waited on forever.
 */

/** A reply in RESP2 shape. */
export type RedisReply = string | number | null | RedisReply[];

/** An error reply from the server (`-ERR ...`, `-NOSCRIPT ...`), as opposed to a lost connection. */
export class RedisCommandError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RedisCommandError";
  }
}

/**
 * A pipeline for clients that auto-pipeline what is sent in one tick (Bun's, ioredis): every
 * command sent on its own, which shares one write anyway, and each server error kept in its
 * place. A lost connection still rejects the whole pipeline.
 */
export function pipelineBySend(
  send: (cmd: string[]) => Promise<RedisReply>,
  cmds: string[][],
): Promise<(RedisReply | RedisCommandError)[]> {
  return Promise.all(cmds.map((cmd) =>
    send(cmd).catch((error) => {
      if (error instanceof RedisCommandError) return error;
      throw error;
    })
  ));
}

/** Stops a subscription; resolves once the server confirmed or the connection is gone. */
export type Unsubscribe = () => Promise<void>;

/** A connection to Redis, whatever carries it. */
export interface RedisTransport {
  /** Which client carries the commands, for logs and benchmarks: `ioredis`, `bun`, `upstash`. */
  readonly name: string;
  /**
   * The protocol it speaks, which a store over it is named after (`storage` in
   * `/skedulr/healthz`): `redis` (RESP over TCP; the default) or `redis-rest` (Upstash REST).
   */
  readonly protocol?: "redis" | "redis-rest";
  /**
   * Whether the server takes Redis 7 script flags (`#!lua flags=allow-oom`): true unless
   * the transport says otherwise. Without them, scripts run with their shebang stripped, so
   * a full server may refuse finishing work too (see docs/RELIABILITY.md).
   */
  readonly scriptFlags?: boolean;
  /**
   * Whether scripts may run as Redis 7 functions (FUNCTION LOAD once, then FCALL): true for a
   * client of one server (the TCP adapters). A function lives on the server it was loaded on,
   * so a cluster client leaves it unset and scripts run as EVALSHA; a server that turns out to
   * lack FCALL is used that way too. `if-proven` (REST): scripts run as EVALSHA until a
   * store's `init()` has loaded every library and run one function without an error, since an
   * endpoint may refuse either with any error, not only "unknown command".
   */
  readonly functions?: boolean | "if-proven";
  /**
   * True on a Redis Cluster: events travel over sharded pub/sub (`SSUBSCRIBE`, and the
   * scripts `SPUBLISH`), which reaches the subscribers of the channel's shard only, where
   * plain `PUBLISH` is broadcast to every node of the cluster. `subscribe` then subscribes
   * with SSUBSCRIBE.
   */
  readonly shardedPubSub?: boolean;
  /** Sends one command, e.g. `["HGET", key, field]`, and resolves with its normalised reply. */
  send(cmd: string[]): Promise<RedisReply>;
  /**
   * Sends many commands in one round trip where the client allows it. Not atomic. Resolves
   * with one entry per command: its reply, or the {@link RedisCommandError} it got.
   */
  pipeline(cmds: string[][]): Promise<(RedisReply | RedisCommandError)[]>;
  /** Delivers every message published on `channel` until the returned function is called. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe>;
  /** Closes every connection the transport opened. */
  close(): Promise<void>;
}

/**
 * Commands whose reply is a RESP3 double. RESP3 clients hand those over as JS numbers,
 * RESP2 as strings; the normal form is the string.
 */
const DOUBLE_REPLY = new Set(["ZSCORE", "ZINCRBY", "ZMSCORE", "INCRBYFLOAT", "HINCRBYFLOAT"]);

/**
 * Converts a reply decoded by a RESP3 client (maps as objects, doubles as numbers, scores as
 * `[member, score]` pairs, booleans) into the RESP2 shape `cmd` would have had.
 *
 * @example
 * normaliseResp3(["CONFIG", "GET", "maxmemory-policy"], { "maxmemory-policy": "noeviction" });
 * // ["maxmemory-policy", "noeviction"]
 */
export function normaliseResp3(cmd: readonly string[], raw: unknown): RedisReply {
  const name = (cmd[0] ?? "").toUpperCase();
  if (DOUBLE_REPLY.has(name)) return doublesToStrings(raw);
  if (withScores(name, cmd) && Array.isArray(raw)) {
    // RESP3 nests each member with its score; RESP2 interleaves them.
    return raw.flatMap((pair) =>
      Array.isArray(pair) ? pair.map((x, i) => (i === 1 ? doubleString(x) : generic(x))) : [
        generic(pair),
      ]
    );
  }
  return generic(raw);
}

function withScores(name: string, cmd: readonly string[]): boolean {
  if (name === "ZPOPMIN" || name === "ZPOPMAX") return true;
  if (!name.startsWith("Z")) return false;
  return cmd.some((arg) => arg.toUpperCase() === "WITHSCORES");
}

function doubleString(value: unknown): RedisReply {
  if (typeof value === "number") return numberString(value);
  return generic(value);
}

function doublesToStrings(raw: unknown): RedisReply {
  if (Array.isArray(raw)) return raw.map(doublesToStrings);
  return doubleString(raw);
}

/** Formats a double the way Redis does for RESP2 (`inf`, `-inf`, shortest round-trip digits). */
function numberString(value: number): string {
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  return String(value);
}

function generic(value: unknown): RedisReply {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : null;
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(generic);
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (typeof value === "object") {
    const flat: RedisReply[] = [];
    for (const [field, v] of Object.entries(value as Record<string, unknown>)) {
      flat.push(field, generic(v));
    }
    return flat;
  }
  return String(value);
}

/** Reads a flat `[field, value, ...]` reply (HGETALL, CONFIG GET) as an object. */
export function pairsToObject(reply: RedisReply): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(reply)) return out;
  for (let i = 0; i + 1 < reply.length; i += 2) {
    out[String(reply[i])] = String(reply[i + 1]);
  }
  return out;
}

/** True when `error` is a server reply that says the script cache lacks a script. */
export function isNoScript(error: unknown): boolean {
  return error instanceof RedisCommandError && /^NOSCRIPT\b/i.test(error.message);
}

/** True for the error of an FCALL whose function the server does not have (never loaded, flushed). */
export function isNoFunction(error: unknown): boolean {
  return error instanceof RedisCommandError && /^ERR Function not found/i.test(error.message);
}

/** True for a command the server does not know (FCALL before Redis 7). */
export function isUnknownCommand(error: unknown): boolean {
  return error instanceof RedisCommandError && /^ERR unknown command/i.test(error.message);
}
