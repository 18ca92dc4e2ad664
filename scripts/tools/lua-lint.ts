/**
 * @module lua-lint — keeps the split Lua includes honest (run by lua-bundle.ts on every
 * generate): each file includes what it names and names what it includes, so a script
 * carries only the helpers it uses and a helper is never found missing at run time (Lua
 * meets an undeclared name only when that line runs); every script runs the layout guard
 * (a migration's never: it checks the stamp itself);
 * no value lua-facts.ts owns is copied by hand.
 */
import { ALL_STATUSES, FINAL_STATUSES } from "../../src/core/task.ts";

export interface LuaFile {
  path: string;
  source: string;
  /** Names of the files its `--- @include` lines pull in, in order. */
  includes: string[];
}

/**
 * The Lua text with comments blanked, and string literals too unless `keepStrings`. Lines
 * stay where they were.
 */
export function codeOnly(source: string, keepStrings = false): string {
  let out = "";
  for (let i = 0; i < source.length;) {
    const c = source[i];
    if (source.startsWith("--", i)) {
      const long = source.startsWith("--[[", i);
      const end = long ? source.indexOf("]]", i) + 2 : source.indexOf("\n", i);
      const stop = end <= (long ? 1 : -1) ? source.length : end;
      out += source.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== c && source[j] !== "\n") {
        j += source[j] === "\\" ? 2 : 1;
      }
      out += keepStrings ? source.slice(i, j + 1) : c + " ".repeat(j - i - 1) + c;
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Names a file declares at its top level (column 0): what including it provides. */
function provides(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(/^local\s+(?:function\s+(\w+)|([\w\s,]+?)\s*(?:=|$))/gm)) {
    for (const n of (m[1] ?? m[2]).split(",")) names.add(n.trim());
  }
  return names;
}

/** Names a file declares anywhere (locals, parameters, loop variables): never a helper's. */
function declared(code: string): Set<string> {
  const names = new Set<string>();
  const lists = [
    ...code.matchAll(/\blocal\s+function\s+(\w+)/g),
    ...code.matchAll(/\blocal\s+(?!function\b)([\w\s,]+?)\s*(?:=|\n)/g),
    ...code.matchAll(/\bfunction\s*\w*\s*\(([^)]*)\)/g),
    ...code.matchAll(/\bfor\s+([\w\s,]+?)\s*(?:=|\bin\b)/g),
  ];
  for (const m of lists) for (const n of m[1].split(",")) names.add(n.trim());
  return names;
}

/** Identifiers used, other than fields (`t.name`, `t:name`). */
function identifiers(code: string): Set<string> {
  return new Set([...code.matchAll(/(?<![.:\w])[A-Za-z_]\w*/g)].map((m) => m[0]));
}

const captures = (line: string, re: RegExp) => [...line.matchAll(re)].map((m) => m[1]);

const STATUS = new Set<string>(ALL_STATUSES);
const STATUS_WORD = ALL_STATUSES.join("|");
/** Copies of what lua-facts.ts owns, and what to name instead. */
const COPIES: [RegExp, string][] = [
  [/%0\d+d/, "a seq format: use SEQ_FORMAT"],
  [/string\.sub\([^()]*,\s*\d\d+\s*\)/, "a member's seq width: use SEQ_WIDTH + 1"],
  [/\{\s*-\d|[=~]=\s*-\d|return\s+-\d/, "a return code: use Code.<name>"],
  [new RegExp(`'(?:${STATUS_WORD})'\\s*,\\s*'(?:${STATUS_WORD})'`), "a status list: use a fact"],
  [new RegExp(`[{,]\\s*(?:${STATUS_WORD})\\s*=\\s*true`), "a status set: use a fact"],
];

/** Throws with every problem found in the scripts and the includes they use. */
export function lintLua(
  scripts: LuaFile[],
  includes: Map<string, LuaFile>,
  migrations: LuaFile[] = [],
): void {
  const problems: string[] = [];
  const code = new Map<LuaFile, string>();
  const codeOf = (f: LuaFile) => code.get(f) ?? code.set(f, codeOnly(f.source)).get(f)!;
  const definedIn = new Map<string, string>();
  for (const [name, f] of includes) for (const n of provides(codeOf(f))) definedIn.set(n, name);
  const reach = (f: LuaFile, seen = new Set<string>()): Set<string> => {
    for (const name of f.includes) {
      if (seen.has(name) || !includes.has(name)) continue;
      seen.add(name);
      reach(includes.get(name)!, seen);
    }
    return seen;
  };

  const helpers = [...includes.values()].filter((f) => !f.path.endsWith("/facts.lua"));
  // A function library runs an include's top level once: state a call changes must be reset.
  for (const f of helpers) {
    for (const line of f.source.split("\n")) {
      const m = /^local ([\w, ]+?) = (.*)$/.exec(line);
      if (!m || /--- @per-call\s*$/.test(line)) continue;
      if (/\{\s*\}|\bKEYS\b|\bARGV\b/.test(codeOnly(m[2]))) {
        problems.push(
          `${f.path}: "${line.trim()}" is state a call may change: mark it --- @per-call ` +
            "(lua-bundle.ts resets it at the start of every function call)",
        );
      }
    }
  }
  for (const f of [...scripts, ...migrations, ...helpers]) {
    const text = codeOf(f);
    const local = declared(text);
    const used = [...identifiers(text)].filter((n) => definedIn.has(n) && !local.has(n));
    const reached = reach(f);
    for (const n of used) {
      const home = definedIn.get(n)!;
      if (!reached.has(home) && !provides(text).has(n)) {
        problems.push(`${f.path} names ${n}: include "${home}"`);
      }
    }
    for (const name of f.includes) {
      if (includes.has(name) && !used.some((n) => definedIn.get(n) === name)) {
        problems.push(`${f.path} includes "${name}" but names nothing it declares`);
      }
    }
    const ownsKeys = f.path.endsWith("/prefix.lua") || migrations.includes(f);
    if (!ownsKeys && /\bKEYS\b/.test(text)) {
      problems.push(
        `${f.path} reads KEYS: name P (includes/prefix.lua, which runs the layout guard)`,
      );
    }
    const withStrings = codeOnly(f.source, true);
    for (const [pattern, what] of COPIES) {
      const m = pattern.exec(withStrings);
      if (m) problems.push(`${f.path} copies ${what} (${m[0].trim()})`);
    }
    for (const line of withStrings.split("\n")) {
      const compared = captures(line, /(?:status|\]|last)\s*[=~]=\s*'([a-z]+)'/g);
      const filed = captures(line, /\b(?:move|finish|enter)\(\s*\w+\s*,\s*'(\w+)'/g);
      for (const s of [...compared, ...filed]) {
        if (!STATUS.has(s)) problems.push(`${f.path}: '${s}' is not a status (src/core/task.ts)`);
      }
      if (compared.filter((s) => FINAL_STATUSES.has(s as never)).length >= FINAL_STATUSES.size) {
        problems.push(`${f.path} lists the final statuses: use FINAL_STATUSES`);
      }
    }
  }
  for (const s of scripts) {
    if (!reach(s).has("prefix")) {
      problems.push(`${s.path} must include "prefix" (the layout guard)`);
    }
  }
  for (const s of migrations) {
    if (reach(s).has("prefix")) {
      problems.push(
        `${s.path} must not include "prefix": its guard refuses the layout it migrates`,
      );
    }
  }
  if (problems.length) throw new Error(`Lua sources:\n  ${problems.join("\n  ")}`);
}
