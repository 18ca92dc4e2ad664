/**
 * @module lua-assemble — builds each script's Lua from the pieces scripts.generated.ts keeps
 * once (the facts, every include's code, each script's own code): as an EVAL script, and as
 * a Redis 7 function library. Kept apart from the generated module so the package carries
 * each include once, not once per script and form; scripts/tools/lua-bundle.ts uses the
 * same functions, so what it hashes into a function's name is what runs.
 *
 * In an include's code a line starting with PER_CALL is state a call changes
 * (`local X = <init>`), one starting with GUARD runs at the start of every call (the
 * layout guard). As a script both run where they stand; in a library the first becomes a
 * `local X` set to `<init>` at the start of every call, the second moves into the call.
 */
import type { LuaScript } from "./script-runner.ts";

/** Marks a per-call declaration in an include's code. */
export const PER_CALL = "\u0001";
/** Marks a line of what runs at the start of every call. */
export const GUARD = "\u0002";

/** What the generated module keeps of one script. */
export interface ScriptPieces {
  readonly name: string;
  readonly numKeys: number;
  /** Redis 7 script flags (`allow-oom`, …). */
  readonly flags: readonly string[];
  /** The generated facts it names, in order. */
  readonly facts: readonly string[];
  /** Its includes, each once, in the order they are inlined. */
  readonly includes: readonly string[];
  /** Its own code. */
  readonly own: string;
  /** Its function's name (a hash of the library's code); absent for a migration. */
  readonly fn?: string;
}

/** The shared pieces: each fact's line and each include's code, by name. */
export interface LuaPieces {
  readonly facts: Readonly<Record<string, string>>;
  readonly includes: Readonly<Record<string, string>>;
}

function head(lua: LuaPieces, s: ScriptPieces): string[] {
  return s.facts.map((f) => lua.facts[f]);
}

/** The script as EVAL runs it: its flags' shebang, then everything where it stands. */
export function scriptSource(lua: LuaPieces, s: ScriptPieces): string {
  const lines = [...head(lua, s)];
  for (const name of s.includes) {
    for (const line of lua.includes[name].split("\n")) {
      lines.push(line.startsWith(PER_CALL) || line.startsWith(GUARD) ? line.slice(1) : line);
    }
  }
  lines.push(s.own);
  const shebang = s.flags.length ? `#!lua flags=${s.flags.join(",")}\n` : "";
  return `${shebang}${lines.filter((l) => l !== "").join("\n")}\n`;
}

/** The library's code without its shebang, the function named `fn`. */
export function libraryCode(lua: LuaPieces, s: ScriptPieces, fn: string): string {
  const top = [...head(lua, s)];
  const reset: string[] = [];
  const guard: string[] = [];
  for (const name of s.includes) {
    for (const line of lua.includes[name].split("\n")) {
      if (line.startsWith(GUARD)) guard.push(line.slice(1));
      else if (line.startsWith(PER_CALL)) {
        const m = /^local ([\w, ]+?) = (.+)$/.exec(line.slice(1))!;
        top.push(`local ${m[1]}`);
        reset.push(`${m[1]} = ${m[2]}`);
      } else top.push(line);
    }
  }
  const flags = s.flags.map((f) => `'${f}'`).join(", ");
  return [
    ...top,
    "local function resetCall(KEYS, ARGV)",
    ...reset,
    "end",
    `redis.register_function{function_name = '${fn}', flags = {${flags}}, callback = function(KEYS, ARGV)`,
    "resetCall(KEYS, ARGV)",
    ...guard,
    s.own,
    "end}",
  ].filter((l) => l !== "").join("\n");
}

/** The library as FUNCTION LOAD takes it. */
export function librarySource(lua: LuaPieces, s: ScriptPieces): string {
  return `#!lua name=${s.fn}\n${libraryCode(lua, s, s.fn!)}\n`;
}

/** A script whose Lua is assembled from the pieces when first asked for. */
class AssembledScript {
  readonly name: string;
  readonly numKeys: number;
  readonly fn?: string;
  readonly #lua: LuaPieces;
  readonly #pieces: ScriptPieces;
  #source?: string;
  #library?: string;

  constructor(lua: LuaPieces, pieces: ScriptPieces) {
    this.#lua = lua;
    this.#pieces = pieces;
    this.name = pieces.name;
    this.numKeys = pieces.numKeys;
    if (pieces.fn) this.fn = pieces.fn;
  }

  get source(): string {
    return this.#source ??= scriptSource(this.#lua, this.#pieces);
  }

  get library(): string | undefined {
    if (!this.fn) return undefined;
    return this.#library ??= librarySource(this.#lua, this.#pieces);
  }
}

/** The scripts of `pieces` (`LuaScript`s for the runner), each assembled on first use. */
export function assembleScripts<N extends string>(
  lua: LuaPieces,
  pieces: Readonly<Record<N, ScriptPieces>>,
): Readonly<Record<N, LuaScript>> {
  const out = {} as Record<N, LuaScript>;
  for (const name of Object.keys(pieces) as N[]) {
    out[name] = new AssembledScript(lua, pieces[name]);
  }
  return out;
}
