/**
 * Fails when package.json and deno.json do not export the same subpaths from the same
 * sources, or when an exported source does not exist.
 *
 * deno.json (JSR) exports TypeScript sources. package.json (npm) exports each subpath as
 * `{ bun, types, default }`: Bun takes the same source, everything else the build's
 * JavaScript and declarations in dist/ (scripts/tools/build.ts), whose paths follow from the
 * source's. Deno gets no condition of its own on npm: it refuses to strip types under
 * node_modules, so from npm it takes the JavaScript and its sources come from JSR. Only
 * package.json may add `./package.json`. The `bin` must be the build of a script that exists.
 */
import { existsSync, readFileSync } from "node:fs";

const EXPECTED_CONDITIONS = ["bun", "types", "default"];

const pkgJson = JSON.parse(readFileSync("package.json", "utf8"));
const pkg = pkgJson.exports as Record<string, unknown>;
const deno = JSON.parse(readFileSync("deno.json", "utf8")).exports as Record<string, string>;
const problems: string[] = [];

/** dist/ path of a source: `./src/x.ts` → `./dist/src/x.js` (or `.d.ts`). */
const built = (source: string, ext: ".js" | ".d.ts") =>
  source.replace(/^\.\//, "./dist/").replace(/\.ts$/, ext);

for (const key of new Set([...Object.keys(pkg), ...Object.keys(deno)])) {
  if (key === "./package.json" && !(key in deno)) continue;
  const entry = pkg[key];
  const source = deno[key];
  if (source === undefined) {
    problems.push(`subpath "${key}": package.json exports it, deno.json does not`);
    continue;
  }
  if (!existsSync(source)) problems.push(`subpath "${key}": file ${source} does not exist`);
  const expected = { bun: source, types: built(source, ".d.ts"), default: built(source, ".js") };
  if (entry === undefined) {
    problems.push(
      `subpath "${key}": deno.json exports it, package.json does not; add ` +
        JSON.stringify({ [key]: expected }),
    );
    continue;
  }
  const conditions = entry && typeof entry === "object" ? entry as Record<string, unknown> : {};
  const same = Object.keys(conditions).join() === EXPECTED_CONDITIONS.join() &&
    EXPECTED_CONDITIONS.every((c) => conditions[c] === expected[c as keyof typeof expected]);
  if (!same) {
    problems.push(
      `subpath "${key}": package.json has ${JSON.stringify(entry)}, expected ${
        JSON.stringify(expected)
      } (source from deno.json, built files from scripts/tools/build.ts)`,
    );
  }
}

for (const [name, target] of Object.entries(pkgJson.bin ?? {}) as [string, string][]) {
  const source = target.replace(/^\.\/dist\//, "./").replace(/\.js$/, ".ts");
  if (source === target || !existsSync(source)) {
    problems.push(`bin "${name}": ${target} is not the build of an existing script (${source})`);
  }
}

// One version: src/version.ts (what the code reports), package.json and deno.json agree.
const code = /VERSION = "([^"]+)"/.exec(readFileSync("src/version.ts", "utf8"))?.[1];
const denoVersion = (JSON.parse(readFileSync("deno.json", "utf8")) as { version?: string }).version;
if (code !== pkgJson.version || code !== denoVersion) {
  problems.push(
    `version: src/version.ts says ${code}, package.json ${pkgJson.version}, deno.json ` +
      `${denoVersion}: make them one`,
  );
}

if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
const subpaths = Object.keys(deno);
console.log(`exports: ok (${subpaths.length} subpaths agree: ${subpaths.join(", ")})`);
