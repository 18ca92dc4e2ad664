/**
 * @module build — `npm run build`: the npm package's JavaScript, types and source maps in
 * dist/, by the TypeScript compiler (tsconfig.build.json). `npm pack` and `npm publish` run
 * it through the `prepare` script, and so does an install from a git URL.
 *
 * dist/ is wiped first so a deleted source never ships a stale module; afterwards every
 * file package.json points at (export conditions and `bin`) must exist, so a new export
 * that the build does not cover fails here rather than in a user's `import`.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, rmSync } from "node:fs";
import process from "node:process";

const started = Date.now();
rmSync("dist", { recursive: true, force: true });
const tsc = spawnSync("node_modules/.bin/tsc", ["-p", "tsconfig.build.json"], {
  stdio: "inherit",
});
if (tsc.status !== 0) {
  console.error(`build: tsc -p tsconfig.build.json failed (exit ${tsc.status ?? tsc.signal})`);
  process.exit(1);
}

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const targets: string[] = [];
const collect = (value: unknown): void => {
  if (typeof value === "string") targets.push(value);
  else if (value && typeof value === "object") Object.values(value).forEach(collect);
};
collect(pkg.exports);
const bins = Object.values(pkg.bin ?? {}) as string[];
const missing = [...targets, ...bins].filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.error(
    `build: package.json points at files the build did not make:\n  ${missing.join("\n  ")}`,
  );
  process.exit(1);
}
// npm marks bins executable on install; this is for running dist/ straight from the tree.
for (const bin of bins) chmodSync(bin, 0o755);
console.log(
  `build: dist/ in ${
    Date.now() - started
  } ms (${targets.length} export targets, ${bins.length} bin)`,
);
