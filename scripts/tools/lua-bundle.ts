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
const FACTS_MARK = "\u0000facts\u0000";

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

function inline(file: LuaFile, all: Map<string, LuaFile>, seen: Set<string>): string {
  return file.source.trimEnd().split("\n").flatMap((line) => {
    const m = INCLUDE.exec(line);
    if (!m) return [line];
    if (seen.has(m[1])) return [];
    seen.add(m[1]);
    const inc = all.get(m[1]);
    if (!inc) {
      throw new Error(
        `${file.path}: cannot include "${m[1]}": ${INCLUDES_DIR}/${m[1]}.lua does not exist`,
      );
    }
    if (m[1] === "facts") return [FACTS_MARK];
    return [inline({ ...inc, source: body(inc.source) }, all, seen)];
  }).join("\n");
}

/** The facts lines whose names `code` uses. */
function usedFacts(facts: string, code: string): string {
  return facts.split("\n").filter((line) => {
    const name = /^local (\w+) =/.exec(line)?.[1];
    return name !== undefined && new RegExp(`\\b${name}\\b`).test(code);
  }).join("\n");
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

const PER_CALL = /^local ([\w, ]+?) = (.+?)\s+--- @per-call\s*$/;

/**
 * The function library of a script: `includes` (its includes' code, inlined) at the top, run
 * once when the library loads; per-call state set, and the guard and `own` code run, in the
 * registered function (named `fn` by a hash of the code).
 */
function library(name: string, flags: string[], includes: string, own: string, facts: string) {
  const top: string[] = [];
  const reset: string[] = [];
  const perCall: string[] = [];
  let inBlock = false;
  for (const line of includes.split("\n")) {
    if (/^--- @per-call-begin/.test(line)) inBlock = true;
    else if (/^--- @per-call-end/.test(line)) inBlock = false;
    else if (inBlock) perCall.push(line);
    else {
      const m = PER_CALL.exec(line);
      if (m) {
        top.push(`local ${m[1]}`);
        reset.push(`${m[1]} = ${m[2]}`);
      } else top.push(line);
    }
  }
  const flagList = flags.map((f) => `'${f}'`).join(", ");
  const code = withoutComments([
    facts,
    ...top,
    "local function resetCall(KEYS, ARGV)",
    ...reset,
    "end",
    `redis.register_function{function_name = FN, flags = {${flagList}}, callback = function(KEYS, ARGV)`,
    "resetCall(KEYS, ARGV)",
    ...perCall,
    own,
    "end}",
  ].join("\n"));
  const fn = `skedulr_${createHash("sha1").update(code).digest("hex").slice(0, 10)}_${name}`;
  return {
    fn,
    library: `#!lua name=${fn}\n${code.replace("function_name = FN", `function_name = '${fn}'`)}\n`,
  };
}

/** One script file made into its generated entry; `file` is checked like every script's. */
function bundle(dir: string, file: string, includes: Map<string, LuaFile>) {
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
  const shebang = flags.length ? `#!lua flags=${flags.join(",")}\n` : "";
  const code = inline(script, includes, new Set());
  const facts = usedFacts(body(includes.get("facts")!.source), code);
  const source = shebang + withoutComments(code.replace(FACTS_MARK, () => facts)) + "\n";
  // The same code split for a function library: the includes, then the script's own lines.
  const lines = raw.replace(/^--\[\[[\s\S]*?\]\]\n/, "").split("\n");
  const includeLines = lines.filter((l) => INCLUDE.test(l));
  const own = lines.filter((l) => !INCLUDE.test(l)).join("\n");
  const included = inline({ ...script, source: includeLines.join("\n") }, includes, new Set())
    .replace(FACTS_MARK, "");
  const lib = dir === LUA_DIR ? library(m[1], flags, included, own, facts) : null;
  if (/redis\.call\(\s*['"]TIME['"]/i.test(source)) {
    throw new Error(`${dir}/${file}: scripts take now from the caller; never call TIME`);
  }
  if (dir === LUA_DIR && /['"]KEYS['"]\s*,/.test(source)) {
    throw new Error(`${dir}/${file}: never use KEYS`);
  }
  const entry = `  ${m[1]}: {\n    name: ${JSON.stringify(m[1])},\n    numKeys: ${m[2]},\n` +
    `    source:\n      ${JSON.stringify(source)},\n` +
    (lib
      ? `    fn: ${JSON.stringify(lib.fn)},\n    library:\n      ${JSON.stringify(lib.library)},\n`
      : "") +
    "  },";
  return { name: m[1], script, entry };
}

const luaFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".lua")).sort();

export function generate(): string {
  const includes = readIncludes();
  const bundled = luaFiles(LUA_DIR).map((f) => bundle(LUA_DIR, f, includes));
  const migrations = luaFiles(MIGRATIONS_DIR).map((f) => bundle(MIGRATIONS_DIR, f, includes));
  const scripts = bundled.map((b) => b.script);
  const entries = bundled.map((b) => b.entry);
  lintLua(scripts, includes, migrations.map((b) => b.script));
  const names = bundled.map((b) => JSON.stringify(b.name));
  return `/**
 * @module scripts.generated — the Lua scripts of ./lua/, inlined, comments left out. Generated
 * by scripts/tools/gen-lua.ts: do not edit; edit the .lua files and run
 * \`bun scripts/tools/gen-lua.ts\`.
 */
import type { LuaScript } from "./script-runner.ts";

/** Every script's name (declared, so the package's types need not carry the sources). */
export type ScriptName =
  | ${names.join("\n  | ")};

export const SCRIPTS: Readonly<Record<ScriptName, LuaScript>> = {
${entries.join("\n")}
};

/**
 * Scripts run only by migrations (src/storage/redis/migrations.ts): they read a store of the
 * layout before this code's, so they check the stamp themselves instead of the guard.
 */
export const MIGRATION_SCRIPTS: Readonly<Record<string, LuaScript>> = {
${migrations.map((b) => b.entry).join("\n")}
};
`;
}
