/**
 * @module script-runner — runs the Lua scripts: as Redis 7 functions where the transport
 * allows (FCALL; the library loaded on first use, again after a restart or a flush), else by
 * SHA with a NOSCRIPT fallback.
 *
 * A function call skips what EVALSHA costs on every call: re-running the script's includes,
 * which build every helper closure (about 25 µs a call: most of a small call). Like
 * Upstash's `Script`, the SHA-1 is computed locally with Web Crypto (no Node APIs, so it runs
 * on Workers too); EVAL runs only when the server's script cache lacks the script, and
 * caches it again. A server without FCALL (before Redis 7) switches the runner to scripts.
 */
import {
  isNoFunction,
  isNoScript,
  isUnknownCommand,
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
  /** The same script as a function library (`#!lua name=<fn>`) and its function's name. */
  readonly fn?: string;
  readonly library?: string;
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
  /** FCALL while true; a server without it turns this off for good. */
  #functions: boolean;
  /** Functions not proven yet (`if-proven`): whether the libraries loaded, once warm() ran. */
  #unproven: "untried" | "loaded" | null;
  /** Library loads in flight, so concurrent calls that found it missing load it once. */
  readonly #loading = new Map<LuaScript, Promise<void>>();
  #reloads = 0;
  readonly #sharded: boolean;
  readonly #sources = new Map<LuaScript, string>();

  constructor(transport: RedisTransport) {
    this.#transport = transport;
    this.#flags = transport.scriptFlags !== false;
    this.#functions = transport.functions === true;
    this.#unproven = transport.functions === "if-proven" ? "untried" : null;
    this.#sharded = transport.shardedPubSub === true;
  }

  /** True while scripts run as functions (FCALL). */
  get functions(): boolean {
    return this.#functions;
  }

  /**
   * Loads every script where it will run: the function libraries (replacing one of the same
   * name, which holds the same code), or the script cache. Best effort: a call that finds
   * its code missing loads it anyway.
   */
  async warm(scripts: LuaScript[]): Promise<void> {
    if (this.#functions || this.#unproven === "untried") {
      const replies = await this.#transport.pipeline(
        scripts.filter((s) => s.library).map((s) => ["FUNCTION", "LOAD", "REPLACE", s.library!]),
      );
      if (this.#unproven !== null) {
        // Any refusal keeps an unproven endpoint on scripts, which are loaded below.
        if (!replies.some((r) => r instanceof Error)) this.#unproven = "loaded";
      } else if (!replies.some(isUnknownCommand)) return;
      else this.#functions = false;
    }
    await this.#transport.pipeline(scripts.map((s) => ["SCRIPT", "LOAD", this.source(s)]));
  }

  /**
   * For a transport whose functions must be proven (`if-proven`): once warm() loaded every
   * library, runs `call` (a script that changes nothing) as a function; scripts run as
   * functions from then on only if it answered without an error. True when it switched.
   */
  async prove(call: ScriptCall): Promise<boolean> {
    if (this.#unproven !== "loaded" || !call.script.fn) return false;
    this.#unproven = null;
    checkKeys(call.script, call.keys);
    try {
      await this.#transport.send(this.#fcall(call.script, call.keys, call.args));
    } catch {
      return false;
    }
    this.#functions = true;
    return true;
  }

  /**
   * Deletes the function libraries of other releases (their names hash other code): a node
   * of such a release still running loads its own again when it needs it.
   */
  async dropOtherLibraries(scripts: LuaScript[]): Promise<number> {
    if (!this.#functions) return 0;
    const mine = new Set(scripts.map((s) => s.fn));
    const listed = await this.#transport.send(["FUNCTION", "LIST", "LIBRARYNAME", "skedulr_*"]);
    const names = libraryNames(listed).filter((n) => n.startsWith("skedulr_") && !mine.has(n));
    for (const name of names) {
      await this.#transport.send(["FUNCTION", "DELETE", name]).catch(() => {});
    }
    return names.length;
  }

  /** Loads `script`'s library once however many calls found it missing. */
  #load(script: LuaScript): Promise<void> {
    let loading = this.#loading.get(script);
    if (!loading) {
      loading = this.#transport.send(["FUNCTION", "LOAD", "REPLACE", script.library!]).then(
        () => {},
      ).finally(() => this.#loading.delete(script));
      this.#loading.set(script, loading);
    }
    return loading;
  }

  #fcall(script: LuaScript, keys: string[], args: string[]): string[] {
    return ["FCALL", script.fn!, String(keys.length), ...keys, ...args];
  }

  /**
   * Calls sent again after the server lacked their script or function: each ran after
   * the calls issued behind it, so a caller counting on issue order may look again.
   */
  get reloads(): number {
    return this.#reloads;
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

  /**
   * Computes the SHAs of `scripts` not known yet, so their first calls send at once: a hash
   * takes a task turn (Web Crypto), which would split calls issued together over two
   * requests.
   */
  async prepare(scripts: Iterable<LuaScript>): Promise<void> {
    await Promise.all([...scripts].map((script) => this.sha(script)));
  }

  /**
   * Whether a command is a call of `script` as this runner sends it (`FCALL <function>` or
   * `EVALSHA <sha>`; the EVAL of a reload is not): for a transport that routes some calls
   * apart (REST's claim lane).
   */
  async isCallOf(script: LuaScript): Promise<(cmd: string[]) => boolean> {
    const sha = await this.sha(script);
    const fn = script.fn;
    return (cmd) =>
      (cmd[0] === "EVALSHA" && cmd[1] === sha) || (cmd[0] === "FCALL" && cmd[1] === fn);
  }

  /** Runs one script; throws {@link RedisCommandError} when the script raised an error. */
  async run(script: LuaScript, keys: string[], args: string[]): Promise<RedisReply> {
    checkKeys(script, keys);
    if (this.#functions && script.fn) {
      try {
        return await this.#transport.send(this.#fcall(script, keys, args));
      } catch (error) {
        if (isNoFunction(error)) {
          this.#reloads++;
          await this.#load(script);
          return await this.#transport.send(this.#fcall(script, keys, args));
        }
        if (!isUnknownCommand(error)) throw error;
        this.#functions = false;
      }
    }
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
    if (this.#functions && calls.every((c) => c.script.fn)) {
      for (const call of calls) checkKeys(call.script, call.keys);
      const replies = await this.#transport.pipeline(
        calls.map((c) => this.#fcall(c.script, c.keys, c.args)),
      );
      if (!replies.some(isUnknownCommand)) {
        const missing = calls.map((_, i) => i).filter((i) => isNoFunction(replies[i]));
        if (missing.length === 0) return replies;
        this.#reloads += missing.length;
        await Promise.all(
          [...new Set(missing.map((i) => calls[i].script))].map((s) => this.#load(s)),
        );
        const retry = await this.#transport.pipeline(
          missing.map((i) => this.#fcall(calls[i].script, calls[i].keys, calls[i].args)),
        );
        missing.forEach((callIndex, j) => (replies[callIndex] = retry[j]));
        return replies;
      }
      this.#functions = false;
    }
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

/** The library names in a FUNCTION LIST reply (arrays of name/value pairs, or maps). */
function libraryNames(reply: RedisReply): string[] {
  const names: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (v[i] === "library_name" && typeof v[i + 1] === "string") names.push(v[i + 1]);
        else walk(v[i]);
      }
    } else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (typeof o.library_name === "string") names.push(o.library_name);
      for (const x of Object.values(o)) if (typeof x === "object") walk(x);
    }
  };
  walk(reply);
  return names;
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
