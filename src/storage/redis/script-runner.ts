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

/**
 * SHAs of the scripts as sent with their flags line and without, shared by every runner of
 * the process: a store built per request or per alarm (Workers) would otherwise hash every
 * script again, and a hash that takes a task turn splits a batch of script calls over two
 * requests.
 */
const SHAS = { flags: new Map<LuaScript, string>(), plain: new Map<LuaScript, string>() };

/** Runs scripts over a transport; each script's SHA is computed once per process. */
export class ScriptRunner {
  readonly #transport: RedisTransport;
  readonly #flags: boolean;

  constructor(transport: RedisTransport) {
    this.#transport = transport;
    this.#flags = transport.scriptFlags !== false;
  }

  /** The text sent for `script`: without its flags line when the server takes none. */
  source(script: LuaScript): string {
    if (this.#flags || !script.source.startsWith("#!")) return script.source;
    return script.source.slice(script.source.indexOf("\n") + 1);
  }

  /** The SHA of `script` as sent, computed once. */
  async sha(script: LuaScript): Promise<string> {
    const shas = this.#flags ? SHAS.flags : SHAS.plain;
    let sha = shas.get(script);
    if (!sha) {
      sha = await scriptSha(this.source(script));
      shas.set(script, sha);
    }
    return sha;
  }

  /** Computes the SHAs of `scripts` not known yet, so their first calls send at once. */
  async prepare(scripts: Iterable<LuaScript>): Promise<void> {
    await Promise.all([...scripts].map((script) => this.sha(script)));
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
