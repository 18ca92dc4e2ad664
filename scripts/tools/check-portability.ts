/**
 * Fails when a runtime global (`Bun.*`, `Deno.*`, `node:*` imports, `process`) appears in
 * the library outside `src/adapters/`, or in `routes/`. The core must stay Web-standard so
 * it runs on Bun, Deno and Cloudflare Workers alike.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const roots = ["src", "routes"];
const allowed = (path: string) => path.startsWith("src/adapters/");
const patterns: [RegExp, string][] = [
  [/\bBun\.[A-Za-z]/, "Bun.*"],
  [/\bDeno\.[A-Za-z]/, "Deno.*"],
  [/from\s+["']node:|import\(\s*["']node:/, "node:* import"],
  [/(?<![.\w])process\s*[.[]/, "process"],
];

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|js|tsx)$/.test(name)) yield path;
  }
}

const problems: string[] = [];
for (const root of roots) {
  for (const file of walk(root)) {
    if (allowed(file)) continue;
    readFileSync(file, "utf8").split("\n").forEach((line, i) => {
      // Doc comments may talk about "the process"; only code counts.
      if (/^\s*(\*|\/\*|\/\/)/.test(line)) return;
      const code = line.replace(/\/\/.*$/, "");
      for (const [re, what] of patterns) {
        if (re.test(code)) {
          problems.push(`${file}:${i + 1}: ${what} outside src/adapters/: ${line.trim()}`);
        }
      }
    });
  }
}
if (problems.length) {
  console.error(problems.join("\n"));
  console.error(
    `portability: ${problems.length} problem(s); move runtime code into src/adapters/.`,
  );
  process.exit(1);
}
console.log("portability: ok (no Bun.*, Deno.*, node:* or process outside src/adapters/)");
