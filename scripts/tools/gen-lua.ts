/**
 * `bun scripts/tools/gen-lua.ts [--check]`: writes (or checks) the generated Lua module;
 * what it contains is lua-bundle.ts's.
 */
import process from "node:process";
import { readFileSync, writeFileSync } from "node:fs";
import { generate, LUA_DIR, OUT } from "./lua-bundle.ts";

const code = generate();
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(OUT, "utf8");
  } catch { /* missing counts as stale */ }
  if (current !== code) {
    console.error(`${OUT} is stale: run \`bun scripts/tools/gen-lua.ts\` and commit the result.`);
    process.exit(1);
  }
  console.log(`lua: ok (${OUT} matches ${LUA_DIR}/*.lua)`);
} else {
  writeFileSync(OUT, code);
  console.log(`wrote ${OUT}`);
}
