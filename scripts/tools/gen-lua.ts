/**
 * @module gen-lua — `bun scripts/tools/gen-lua.ts [--check]`: writes (or checks) the generated
 * Lua module and lua/includes/facts.lua; what they contain is lua-bundle.ts's.
 */
import process from "node:process";
import { readFileSync, writeFileSync } from "node:fs";
import { FACTS_FILE, generate, generateFacts, LUA_DIR, OUT } from "./lua-bundle.ts";

const outputs: [string, string][] = [[FACTS_FILE, generateFacts()], [OUT, generate()]];
if (process.argv.includes("--check")) {
  const stale = outputs.filter(([path, code]) => {
    try {
      return readFileSync(path, "utf8") !== code;
    } catch {
      return true; // missing counts as stale
    }
  });
  for (const [path] of stale) {
    console.error(
      `${path} is stale (the .lua files or the TypeScript facts changed): run ` +
        "`bun scripts/tools/gen-lua.ts` and commit the result.",
    );
  }
  if (stale.length) process.exit(1);
  console.log(`lua: ok (${OUT} and ${FACTS_FILE} match ${LUA_DIR}/*.lua and the TS facts)`);
} else {
  for (const [path, code] of outputs) {
    writeFileSync(path, code);
    console.log(`wrote ${path}`);
  }
}
