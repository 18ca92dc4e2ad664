/**
 * @module script-runner — runs Lua scripts by SHA with a NOSCRIPT fallback.
 *
 * Like Upstash's `Script`: the SHA-1 is computed locally with Web Crypto (no Node APIs, so it
 * runs on Workers too), EVALSHA is tried first and EVAL only when the server's script cache
 * lacks the script (a restart, a failover, `SCRIPT FLUSH`). EVAL also caches the script, so
 * the next EVALSHA succeeds again.
 */
import {
  isNoScript,
  type RedisCommandError,
  type RedisReply,
  type RedisTransport,
} from "./transport.ts";

/** A Lua script as the generated module stores it. */
export interface LuaScript {
  /** The file name without `-<numKeys>.lua`, e.g. `claim`. */
  readonly name: string;
  readonly numKeys: number;
  readonly source: string;
}

/** One script invocation for {@link ScriptRunner.runMany}. */
export interface ScriptCall {
  script: LuaScript;
  keys: string[];
  args: string[];
}

/** Hex SHA-1 of a script body, as Redis computes it for EVALSHA. */
export async function scriptSha(source: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(source));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Runs scripts over a transport; caches each script's SHA. */
export class ScriptRunner {
  readonly #transport: RedisTransport;
  readonly #shas = new Map<LuaScript, string>();
  readonly #flags: boolean;
  readonly #sharded: boolean;
  readonly #sources = new Map<LuaScript, string>();

  constructor(transport: RedisTransport) {
    this.#transport = transport;
    this.#flags = transport.scriptFlags !== false;
    this.#sharded = transport.shardedPubSub === true;
  }

  /**
   * The text sent for `script`: without its flags line when the server takes none, with
   * SPUBLISH for PUBLISH on a Redis Cluster ({@link shardedPublish}).
   */
  source(script: LuaScript): string {
    let text = this.#sources.get(script);
    if (text === undefined) {
      text = script.source;
      if (!this.#flags && text.startsWith("#!")) text = text.slice(text.indexOf("\n") + 1);
      if (this.#sharded) text = shardedPublish(text);
      this.#sources.set(script, text);
    }
    return text;
  }

  /** The SHA of `script` as sent, computed once. */
  async sha(script: LuaScript): Promise<string> {
    let sha = this.#shas.get(script);
    if (!sha) {
      sha = await scriptSha(this.source(script));
      this.#shas.set(script, sha);
    }
    return sha;
  }

  /** Runs one script; throws {@link RedisCommandError} when the script raised an error. */
  async run(script: LuaScript, keys: string[], args: string[]): Promise<RedisReply> {
    checkKeys(script, keys);
    const sha = await this.sha(script);
    try {
      return await this.#transport.send(["EVALSHA", sha, String(keys.length), ...keys, ...args]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return await this.#transport.send([
        "EVAL",
        this.source(script),
        String(keys.length),
        ...keys,
        ...args,
      ]);
    }
  }

  /**
   * Runs many scripts in one pipeline. Calls that met NOSCRIPT are sent again with EVAL
   * (in their original order, which keeps per-key ordering for same-script batches).
   * Resolves with one reply or error per call.
   */
  async runMany(calls: ScriptCall[]): Promise<(RedisReply | RedisCommandError)[]> {
    if (calls.length === 0) return [];
    const cmds: string[][] = [];
    for (const call of calls) {
      checkKeys(call.script, call.keys);
      const sha = await this.sha(call.script);
      cmds.push(["EVALSHA", sha, String(call.keys.length), ...call.keys, ...call.args]);
    }
    const replies = await this.#transport.pipeline(cmds);
    const missing: number[] = [];
    replies.forEach((reply, i) => {
      if (isNoScript(reply)) missing.push(i);
    });
    if (missing.length === 0) return replies;
    const retry = await this.#transport.pipeline(
      missing.map((i) => {
        const { script, keys, args } = calls[i];
        return ["EVAL", this.source(script), String(keys.length), ...keys, ...args];
      }),
    );
    missing.forEach((callIndex, j) => {
      replies[callIndex] = retry[j];
    });
    return replies;
  }
}

function checkKeys(script: LuaScript, keys: string[]): void {
  if (keys.length !== script.numKeys) {
    throw new TypeError(
      `Script ${script.name} takes ${script.numKeys} keys, got ${keys.length}: ${keys.join(", ")}`,
    );
  }
}

/**
 * A script that publishes with SPUBLISH instead of PUBLISH (a Redis Cluster transport,
 * RedisTransport.shardedPubSub): the same channel, which hashes to the script's own slot,
 * reaching that shard's subscribers only instead of every node of the cluster. The scripts
 * publish in lua/includes/publish.lua and task-events.lua, always as `redis.call('PUBLISH',`.
 */
export function shardedPublish(source: string): string {
  return source.replaceAll("redis.call('PUBLISH',", "redis.call('SPUBLISH',");
}
