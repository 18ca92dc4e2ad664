/**
 * The mutation gate: breaks the code that guards the product's promises on purpose, one
 * curated mutant at a time, runs only the tests meant to catch it, and fails when any
 * mutant survives (its tests still pass).
 *
 *   bun scripts/tools/mutants/run.ts [--only id,id] [--jobs 2] [--verbose]
 *
 * Each mutant (scripts/tools/mutants/list.ts) replaces one exact piece of text in one file; a
 * mutant whose text is not found exactly once fails the gate too (the code moved on: update
 * the list). Mutants run in copies of the tree under a temp dir (node_modules linked), never
 * in the working tree, two at a time on this 2-core machine, against one throwaway Redis.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startRedisServer } from "../redis-server.ts";
import { type Mutant, MUTANTS } from "./list.ts";

const argv = process.argv.slice(2);
const arg = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const only = arg("only")?.split(",");
const JOBS = Number(arg("jobs") ?? 2);
/** Prints the test output of every mutant (to see why one was killed or survived). */
const VERBOSE = argv.includes("--verbose");
/** A mutant's tests may take this long; past it the mutant counts as killed (it hung). */
const TEST_TIMEOUT_MS = 120_000;
const COPIED = [
  "src",
  "routes",
  "scripts",
  "test",
  "docs",
  "package.json",
  "tsconfig.json",
  "deno.json",
  "bunfig.toml",
  "jobs.ts",
  // The Cloudflare Worker's configuration: the edge tests run it in wrangler dev.
  "wrangler.toml",
];

const chosen = MUTANTS.filter((m) => !only || only.includes(m.id));
for (const m of chosen) {
  const text = readFileSync(m.file, "utf8");
  const found = text.split(m.find).length - 1;
  if (found !== 1) {
    console.error(`mutant ${m.id}: its text occurs ${found} times in ${m.file} (must be once)`);
    process.exit(1);
  }
}

const redis = await startRedisServer();
process.once("exit", () => {
  try {
    process.kill(redis.pid, "SIGKILL");
  } catch { /* gone */ }
});
const root = process.cwd();
const slots = Array.from({ length: JOBS }, () => {
  const dir = mkdtempSync(join(tmpdir(), "skedulr-mutant-"));
  for (const path of COPIED) cpSync(join(root, path), join(dir, path), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return dir;
});

interface Outcome {
  mutant: Mutant;
  killed: boolean;
  seconds: number;
  note: string;
}

const started = performance.now();
const queue = [...chosen];
const outcomes: Outcome[] = [];
await Promise.all(slots.map(async (dir) => {
  for (let m = queue.shift(); m; m = queue.shift()) outcomes.push(await runMutant(dir, m));
}));
for (const dir of slots) rmSync(dir, { recursive: true, force: true });
await redis.stop();

outcomes.sort((a, b) => chosen.indexOf(a.mutant) - chosen.indexOf(b.mutant));
for (const o of outcomes) {
  console.log(
    `${o.killed ? "killed  " : "SURVIVED"} ${o.mutant.id.padEnd(28)} ${
      o.seconds.toFixed(1).padStart(5)
    } s  ${o.note}`,
  );
}
const survived = outcomes.filter((o) => !o.killed);
console.log(
  `mutants: ${outcomes.length - survived.length} killed, ${survived.length} survived, ` +
    `${((performance.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(survived.length === 0 ? 0 : 1);

async function runMutant(dir: string, m: Mutant): Promise<Outcome> {
  const path = join(dir, m.file);
  const original = readFileSync(path, "utf8");
  writeFileSync(path, original.replace(m.find, m.replace));
  const t0 = performance.now();
  try {
    const gen = generator(m);
    const made = gen ? await run(dir, ["bun", gen], 60_000) : null;
    if (made && made.code !== 0) {
      // The generated code would still be the original's: the mutant could only survive.
      const why = made.output.trim().split("\n").slice(-3).join(" ");
      return { mutant: m, killed: false, seconds: 0, note: `${gen} refused the mutant: ${why}` };
    }
    const cmd = ["bun", "test", "--timeout", "30000", ...m.tests];
    if (m.filter) cmd.push("-t", m.filter);
    const r = await run(dir, cmd, TEST_TIMEOUT_MS);
    if (VERBOSE) console.log(`--- ${m.id}: ${cmd.join(" ")}\n${r.output}`);
    const passed = Number(/^\s*(\d+) pass$/m.exec(r.output)?.[1] ?? 0);
    const failed = Number(/^\s*(\d+) fail$/m.exec(r.output)?.[1] ?? 0);
    const seconds = (performance.now() - t0) / 1000;
    if (r.timedOut) return { mutant: m, killed: true, seconds, note: "tests hung (killed)" };
    if (r.code === 0 && passed === 0) {
      return { mutant: m, killed: false, seconds, note: "no test ran: check its tests and filter" };
    }
    return {
      mutant: m,
      killed: r.code !== 0,
      seconds,
      note: r.code !== 0 ? `${failed} failing: ${m.why}` : `all ${passed} passed: ${m.why}`,
    };
  } finally {
    writeFileSync(path, original);
    const gen = generator(m);
    if (gen) await run(dir, ["bun", gen], 60_000);
  }
}

/** A generator's input (or the generator) changed: the generated module must follow. */
function generator(m: Mutant): string | null {
  if (m.file.endsWith(".lua") || m.file === "scripts/tools/lua-bundle.ts") {
    return "scripts/tools/gen-lua.ts";
  }
  if (m.file.startsWith("routes/dashboard/client/")) return "scripts/tools/gen-dashboard.ts";
  return null;
}

function run(
  cwd: string,
  cmd: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), {
      cwd,
      env: { ...process.env, REDIS_URL: redis.url },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL"); // the test run and the workers it started
      } catch { /* gone */ }
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      // Colour codes out, so the counts can be read.
      // deno-lint-ignore no-control-regex
      resolve({ code, output: output.replace(/\x1b\[[0-9;]*m/g, ""), timedOut });
    });
  });
}
