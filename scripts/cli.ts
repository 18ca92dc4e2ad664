#!/usr/bin/env node
/**
 * @module cli — the `skedulr` command of the npm package (`bin`, built to dist/scripts/cli.js).
 *
 * `npx skedulr worker` runs scripts/worker.ts, the very entry of `bun run worker`, and
 * `npx skedulr serve` runs scripts/serve.ts: one start-up (scripts/boot.ts) on every runtime,
 * configured by the same environment variables. Nothing here starts anything of its own.
 */
import process from "node:process";

const USAGE = `usage: skedulr <command>

  worker   pools, timing wheel, HTTP API and dashboard (what \`bun run worker\` runs)
  serve    the HTTP API and dashboard only, for an API-only node

Configured by environment variables: REDIS_URL, SKEDULR_POOLS, SKEDULR_JOBS, PORT,
SKEDULR_TOKEN and the others the README lists.`;

/**
 * `npx` and `npm run` start a bin through `sh -c` and forward SIGTERM to that shell only,
 * which dies without passing it on (npm/cli#5776): the worker would live on as an orphan.
 * So when npm started this process and its parent is gone, the SIGTERM meant for it is sent
 * to itself, and boot.ts drains and exits as on any SIGTERM. Started any other way (a
 * supervisor, `nohup`), signals reach the process directly and losing the parent means
 * nothing.
 */
function followNpmSignals(): void {
  if (!process.env.npm_command) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  }, 200);
  timer.unref();
}

const command = process.argv[2];
if (command === "worker" || command === "serve") followNpmSignals();
if (command === "worker") {
  await import("./worker.ts");
} else if (command === "serve") {
  await import("./serve.ts");
} else if (command === "--version" || command === "-v") {
  const { VERSION } = await import("./boot.ts");
  console.log(VERSION);
} else if (command === "--help" || command === "-h") {
  console.log(USAGE);
} else {
  if (command) console.error(`skedulr: unknown command ${JSON.stringify(command)}`);
  console.error(USAGE);
  process.exit(2);
}
