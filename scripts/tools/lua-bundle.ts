/**
 * @module lua-bundle — inlines the Lua scripts of src/storage/redis/lua/ into src/storage/redis/scripts.generated.ts,
 * so the storage works where there is no filesystem (Workers, bundles).
 *
 *   bun scripts/tools/gen-lua.ts          regenerate
 *   bun scripts/tools/gen-lua.ts --check  fail when a generated file is stale (scripts/tools/check.sh)
 *
 * Each `<camelOp>-<numKeys>.lua` becomes one entry; `--- @include "name"` lines pull in
 * `lua/includes/<name>.lua` and, transitively, what it includes, once per script (BullMQ's
 * convention); comments are left out of the bundle. `facts` is generated from TypeScript
 * (src/storage/redis/lua-facts.ts) and a script carries only the facts it names. A header
 * line `FLAGS <flag>,...` (then a comment, if any) becomes the script's Redis 7 shebang
 * (`#!lua flags=<flag>,...`), e.g. `allow-oom` for the transitions that finish work, which a
 * full Redis must not refuse. lua-lint.ts checks what each file includes and names.
 * `lua/migrations/*.lua` become MIGRATION_SCRIPTS: the only scripts without the layout guard.
 *
 * Each script is also generated as a Redis 7 function library (`library`, function `fn`,
 * named by a hash of its code, so two releases' libraries live side by side): the includes
 * run once, when the library loads, and only the script's own code runs per call, so a
 * call no longer rebuilds every helper closure (most of a small call's cost). What an
 * include keeps per call is marked: `local X = <init> --- @per-call` becomes a library-level
 * `local X` set to `<init>` at the start of every call, and the lines between
 * `--- @per-call-begin` and `--- @per-call-end` (the layout guard) run at the start of every
 * call. lua-lint.ts fails an include with unmarked per-call state.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { luaFactsSource } from "../../src/storage/redis/lua-facts.ts";
import { codeOnly, lintLua, type LuaFile } from "./lua-lint.ts";
import {
  GUARD,
  libraryCode,
  type LuaPieces,
  PER_CALL,
  type ScriptPieces,
  scriptSource,
} from "../../src/storage/redis/lua-assemble.ts";

export const LUA_DIR = "src/storage/redis/lua";
export const INCLUDES_DIR = `${LUA_DIR}/includes`;
/** Scripts of migrations, which run before the layout guard would let a script in. */
export const MIGRATIONS_DIR = `${LUA_DIR}/migrations`;
export const OUT = "src/storage/redis/scripts.generated.ts";
/** Written by gen-lua.ts beside the hand-written includes, for people reading them. */
export const FACTS_FILE = `${INCLUDES_DIR}/facts.lua`;
const NAME = /^([a-z][A-Za-z]*)-(\d+)\.lua$/;
const INCLUDE = /^--- @include "([\w-]+)"\s*$/;
const FLAGS = /^\s*FLAGS\s+([a-z-]+(?:,[a-z-]+)*)(?:\s|$)/m;
const KNOWN_FLAGS = new Set(["allow-oom", "no-writes", "allow-stale", "no-cluster"]);

/** The text of facts.lua as generated now (the file on disk may be stale). */
export const generateFacts = luaFactsSource;

/** Every include, by name: hand-written ones from disk, `facts` from TypeScript. */
function readIncludes(): Map<string, LuaFile> {
  const out = new Map<string, LuaFile>();
  for (const f of readdirSync(INCLUDES_DIR).filter((f) => f.endsWith(".lua")).sort()) {
    const name = f.slice(0, -4);
    if (name === "facts") continue;
    out.set(name, parse(join(INCLUDES_DIR, f), readFileSync(join(INCLUDES_DIR, f), "utf8")));
  }
  out.set("facts", parse(FACTS_FILE, generateFacts()));
  return out;
}

function parse(path: string, source: string): LuaFile {
  const includes = source.split("\n").flatMap((l) => INCLUDE.exec(l)?.[1] ?? []);
  return { path, source, includes };
}

/** An include's text without its header block, which documents it for readers of lua/. */
function body(source: string): string {
  return source.replace(/^--\[\[[\s\S]*?\]\]\n/, "").trimEnd();
}

/**
 * The code alone, unindented: the .lua files are the documented source, and comments and
 * indentation would be half of every script loaded into Redis, sent on a NOSCRIPT fallback,
 * and shipped twice in the package.
 */
function withoutComments(lua: string): string {
  return codeOnly(lua, true).split("\n").map((l) => l.trim()).filter((l) => l !== "")
    .join("\n");
}

/** An include's or a script's code, comments left out, per-call lines marked (lua-assemble.ts). */
function pieceCode(source: string): string {
  const marked: string[] = [];
  let guard = false;
  for (const line of source.split("\n")) {
    if (/^--- @per-call-begin/.test(line)) guard = true;
    else if (/^--- @per-call-end/.test(line)) guard = false;
    else if (/--- @per-call\s*$/.test(line)) {
      marked.push(PER_CALL + line.replace(/\s*--- @per-call\s*$/, ""));
    } else marked.push(guard ? GUARD + line : line);
  }
  return withoutComments(marked.join("\n"));
}

/** A script's includes, each once, each after the ones it includes itself. */
function includeOrder(
  file: LuaFile,
  all: Map<string, LuaFile>,
  seen = new Set<string>(),
): string[] {
  const order: string[] = [];
  for (const name of file.includes) {
    if (seen.has(name)) continue;
    seen.add(name);
    const inc = all.get(name);
    if (!inc) {
      throw new Error(
        `${file.path}: cannot include "${name}": ${INCLUDES_DIR}/${name}.lua does not exist`,
      );
    }
    order.push(...includeOrder(inc, all, seen), name);
  }
  return order;
}

/** One script file made into its pieces; `file` is checked like every script's. */
function bundle(dir: string, file: string, includes: Map<string, LuaFile>, lua: LuaPieces) {
  const m = NAME.exec(file);
  if (!m) throw new Error(`${dir}/${file}: name it <camelOp>-<numKeys>.lua`);
  const script = parse(join(dir, file), readFileSync(join(dir, file), "utf8"));
  const raw = script.source;
  if (!raw.startsWith("--[[")) {
    throw new Error(
      `${dir}/${file}: open with a --[[ header ]] documenting KEYS, ARGV and returns`,
    );
  }
  const flags = FLAGS.exec(raw.slice(0, raw.indexOf("]]")))?.[1].split(",") ?? [];
  for (const flag of flags) {
    if (!KNOWN_FLAGS.has(flag)) throw new Error(`${dir}/${file}: unknown script flag ${flag}`);
  }
  const order = includeOrder(script, includes).filter((n) => n !== "facts");
  const own = pieceCode(raw.split("\n").filter((l) => !INCLUDE.test(l)).join("\n"));
  const code = [...order.map((n) => lua.includes[n]), own].join("\n");
  const facts = Object.keys(lua.facts).filter((f) => new RegExp(`\\b${f}\\b`).test(code));
  const pieces: ScriptPieces = {
    name: m[1],
    numKeys: Number(m[2]),
    flags,
    facts,
    includes: order,
    own,
  };
  const source = scriptSource(lua, pieces);
  if (/redis\.call\(\s*['"]TIME['"]/i.test(source)) {
    throw new Error(`${dir}/${file}: scripts take now from the caller; never call TIME`);
  }
  if (dir === LUA_DIR && /['"]KEYS['"]\s*,/.test(source)) {
    throw new Error(`${dir}/${file}: never use KEYS`);
  }
  // A function is named by its code, so two releases' libraries live side by side.
  const hash = createHash("sha1").update(libraryCode(lua, pieces, "FN")).digest("hex").slice(0, 10);
  const withFn = dir === LUA_DIR ? { ...pieces, fn: `skedulr_${hash}_${m[1]}` } : pieces;
  return { name: m[1], script, pieces: withFn };
}

const luaFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".lua")).sort();

export function generate(): string {
  const includes = readIncludes();
  const lua: LuaPieces = {
    facts: Object.fromEntries(
      body(includes.get("facts")!.source).split("\n").flatMap((line) => {
        const name = /^local (\w+) =/.exec(line)?.[1];
        return name ? [[name, withoutComments(line)]] : [];
      }),
    ),
    includes: Object.fromEntries(
      [...includes].filter(([name]) => name !== "facts").map((
        [name, f],
      ) => [
        name,
        pieceCode(body(f.source).split("\n").filter((l) => !INCLUDE.test(l)).join("\n")),
      ]),
    ),
  };
  const bundled = luaFiles(LUA_DIR).map((f) => bundle(LUA_DIR, f, includes, lua));
  const migrations = luaFiles(MIGRATIONS_DIR).map((f) => bundle(MIGRATIONS_DIR, f, includes, lua));
  lintLua(bundled.map((b) => b.script), includes, migrations.map((b) => b.script));
  const names = bundled.map((b) => JSON.stringify(b.name));
  const pieces = (list: typeof bundled) =>
    list.map((b) => `  ${b.name}: ${JSON.stringify(b.pieces)},`).join("\n");
  return `/**
 * @module scripts.generated — the Lua of ./lua/ in pieces, comments left out: the facts and
 * each include once, each script's own code, what it includes and its function's name.
 * lua-assemble.ts builds each script (and its function library) from them on first use.
 * Generated by scripts/tools/gen-lua.ts: do not edit; edit the .lua files and run
 * \`bun scripts/tools/gen-lua.ts\`.
 */
import { assembleScripts, type LuaPieces } from "./lua-assemble.ts";
import type { LuaScript } from "./script-runner.ts";

/** Every script's name (declared, so the package's types need not carry the sources). */
export type ScriptName =
  | ${names.join("\n  | ")};

const LUA: LuaPieces = ${JSON.stringify(lua, null, 1)};

export const SCRIPTS: Readonly<Record<ScriptName, LuaScript>> = assembleScripts(LUA, {
${pieces(bundled)}
});

/**
 * Scripts run only by migrations (src/storage/redis/migrations.ts): they read a store of the
 * layout before this code's, so they check the stamp themselves instead of the guard.
 */
export const MIGRATION_SCRIPTS: Readonly<Record<string, LuaScript>> = assembleScripts(LUA, {
${pieces(migrations)}
});
`;
}
