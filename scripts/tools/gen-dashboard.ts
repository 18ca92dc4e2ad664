/**
 * @module gen-dashboard — `bun scripts/tools/gen-dashboard.ts [--check]`: bundles the
 * dashboard's browser code (routes/dashboard/client/, entry main.ts) into the string module
 * the app serves, or checks that the module is current.
 *
 * A string module because a Worker has no filesystem to serve a file from. Bun's bundler
 * because the tools already run on Bun: no extra dependency, and it strips the types and
 * joins the modules into one IIFE (nothing leaks onto `window`). The output is not minified
 * so the served script reads like its source in the browser's devtools, and the generated
 * module holds it one line per string so a change shows in `git diff` line by line. Types
 * are checked by `tsc -p routes/dashboard/client/tsconfig.json` in scripts/tools/check.sh.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import process from "node:process";

export const CLIENT_DIR = "routes/dashboard/client";
export const ENTRY = `${CLIENT_DIR}/main.ts`;
export const OUT = "routes/dashboard/client.generated.ts";

/** The served script: the client bundled into one classic script. */
export async function bundle(): Promise<string> {
  const built = await Bun.build({
    entrypoints: [ENTRY],
    format: "iife",
    target: "browser",
    // Module code is strict; the bundle, a classic script, says so to stay that way.
    banner: '"use strict";',
  });
  if (!built.success || built.outputs.length !== 1) {
    const logs = built.logs.map((l) => String(l)).join("\n");
    throw new Error(`gen-dashboard: bundling ${ENTRY} failed:\n${logs}`);
  }
  return await built.outputs[0].text();
}

/** The generated module's text, holding `script`. */
export function moduleText(script: string): string {
  const lines = script.split("\n").map((line) => `  ${JSON.stringify(line)},`).join("\n");
  return `/**
 * @module dashboard/client.generated — the dashboard's browser script, bundled from
 * ${CLIENT_DIR}/*.ts by scripts/tools/gen-dashboard.ts. Do not edit: edit
 * the sources and run \`bun scripts/tools/gen-dashboard.ts\`.
 */

export const DASHBOARD_JS: string = [
${lines}
].join("\\n");
`;
}

if (import.meta.main) {
  // Paths in the bundle's comments are relative to the working directory: pin it.
  process.chdir(fileURLToPath(new URL("../..", import.meta.url)));
  const script = await bundle();
  const code = moduleText(script);
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(OUT, "utf8");
    } catch { /* missing counts as stale */ }
    if (current !== code) {
      console.error(
        `${OUT} is stale: run \`bun scripts/tools/gen-dashboard.ts\` and commit the result.`,
      );
      process.exit(1);
    }
    console.log(`dashboard: ok (${OUT} matches ${CLIENT_DIR}/*.ts)`);
  } else {
    writeFileSync(OUT, code);
    console.log(`wrote ${OUT} (a ${new TextEncoder().encode(script).length} byte script)`);
  }
}
