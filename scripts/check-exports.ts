/**
 * Fails when package.json and deno.json do not export the same subpaths to the same files,
 * or when an exported file does not exist.
 */
import { existsSync, readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync("package.json", "utf8")).exports as Record<string, string>;
const deno = JSON.parse(readFileSync("deno.json", "utf8")).exports as Record<string, string>;
const problems: string[] = [];
for (const key of new Set([...Object.keys(pkg), ...Object.keys(deno)])) {
  if (pkg[key] !== deno[key]) {
    problems.push(
      `subpath "${key}": package.json has ${pkg[key] ?? "nothing"}, deno.json has ${
        deno[key] ?? "nothing"
      }`,
    );
  }
  const file = pkg[key] ?? deno[key];
  if (file && !existsSync(file)) problems.push(`subpath "${key}": file ${file} does not exist`);
}
if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `exports: ok (${Object.keys(pkg).length} subpaths agree: ${Object.keys(pkg).join(", ")})`,
);
