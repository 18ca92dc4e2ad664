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
  #reloads = 0;

  constructor(transport: RedisTransport) {
    this.#transport = transport;
    this.#flags = transport.scriptFlags !== false;
  }

  /**
   * Calls sent again in full (EVAL) after the server's cache lacked the script: each ran after
   * the calls issued behind it, so a caller counting on issue order may look again.
   */
  get reloads(): number {
    return this.#reloads;
  }

  /** The text sent for `script`: without its flags line when the server takes none. */
  source(script: LuaScript): string {
    if (this.#flags || !script.source.startsWith("#!")) return script.source;
    return script.source.slice(script.source.indexOf("\n") + 1);
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

  /**
   * Computes the SHAs of `scripts` not known yet, so their first calls send at once: a hash
   * takes a task turn (Web Crypto), which would split calls issued together over two
   * requests.
   */
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
      this.#reloads++;
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
    this.#reloads += missing.length;
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
