/**
 * Fails when a module imports from a layer above its own (ARCHITECTURE.md, "The one rule"):
 * core ← storage ← worker, client ← the Scheduler (src/scheduler.ts, src/mod.ts) ← routes ←
 * entry points. The library never imports routes/ or scripts/, and routes/ reaches the
 * library only through its public face, src/mod.ts. Scripts never import tests, and tests
 * never import an entry point (it starts a process's work when imported).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** The folders (or files) each layer may import from, besides its own. */
const LAYERS: [layer: string, mayImport: string[]][] = [
  ["src/core/", []],
  ["src/storage/", ["src/core/"]],
  ["src/worker/", ["src/core/", "src/storage/"]],
  // The submitting half logs like the running half (the Logger type lives with middleware).
  ["src/client/", ["src/core/", "src/storage/", "src/worker/middleware.ts"]],
  ["src/adapters/", ["src/core/", "src/storage/", "src/worker/"]],
  ["src/", ["src/"]],
  ["routes/", ["src/mod.ts"]],
];

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.ts$/.test(name) && !/\.generated\.ts$/.test(name)) yield path;
  }
}

/** Static imports and re-exports, side-effect imports and dynamic `import("./…")`. */
const IMPORT =
  /(?:(?:^|\n)\s*(?:(?:import|export)\b[^;]*?\bfrom\s+|import\s+)|\bimport\(\s*)["'](\.[^"']+)["']/g;

/** What users start: importing one runs it. */
const ENTRY_POINTS = ["worker", "serve", "cli", "keygen", "cloudflare-worker"]
  .map((name) => `scripts/entry/${name}.ts`);

const problems: string[] = [];
for (const file of walk("scripts")) {
  for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
    const target = normalize(join(dirname(file), match[1]));
    if (target.startsWith("test/")) problems.push(`${file}: imports ${target}, a test file`);
  }
}
for (const file of walk("test")) {
  for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
    const target = normalize(join(dirname(file), match[1]));
    if (ENTRY_POINTS.includes(target)) problems.push(`${file}: imports ${target}, an entry point`);
  }
}
for (const root of ["src", "routes"]) {
  for (const file of walk(root)) {
    // The dashboard's browser code may import the server's record types (type-only).
    if (file.startsWith("routes/dashboard/client/")) continue;
    const [layer, allowed] = LAYERS.find(([l]) => file.startsWith(l))!;
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), match[1]));
      const ok = target.startsWith(layer) || allowed.some((a) => target.startsWith(a));
      if (!ok) problems.push(`${file}: imports ${target}, above its layer (${layer})`);
    }
  }
}
if (problems.length) {
  console.error(problems.join("\n"));
  console.error(`layers: ${problems.length} problem(s); see ARCHITECTURE.md, "The one rule".`);
  process.exit(1);
}
console.log("layers: ok (imports point down; no script imports a test, no test an entry point)");
