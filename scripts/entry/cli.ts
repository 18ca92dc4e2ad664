#!/usr/bin/env node
/**
 * @module cli — the `skedulr` command of the npm package (`bin`, built to dist/scripts/entry/cli.js).
 *
 * `npx skedulr worker` runs scripts/entry/worker.ts, the very entry of `bun run worker`, and
 * `npx skedulr serve` runs scripts/entry/serve.ts: one start-up (scripts/entry/boot.ts) on every runtime,
 * configured by the same environment variables. Nothing here starts anything of its own.
 */
import process from "node:process";

const USAGE = `usage: skedulr <command>

  worker   pools, timing wheel, HTTP API and dashboard (what \`bun run worker\` runs)
  serve    the HTTP API and dashboard only, for an API-only node
  submit, get, list, dead, cancel, resubmit, stats, pause, resume, schedules
           a running node's HTTP API, from a shell (\`skedulr --help\` lists them)

Configured by environment variables: REDIS_URL, SKEDULR_POOLS, SKEDULR_JOBS, PORT,
SKEDULR_TOKEN and the others the README lists.`;

// `npx skedulr worker` leaves no orphan on SIGTERM: worker.ts and serve.ts stop themselves
// when the npx wrapper is gone (parent-watch.ts).
const command = process.argv[2];
if (command === "worker" || command === "serve") {
  // The entry point reads its own arguments (--help, --version): it gets what follows.
  process.argv.splice(2, 1);
  await import(command === "worker" ? "./worker.ts" : "./serve.ts");
} else if (command === "--version" || command === "-v") {
  const { VERSION } = await import("./boot.ts");
  console.log(VERSION);
} else if (command === "--help" || command === "-h") {
  console.log(`${USAGE}\n\n${(await import("./cli/main.ts")).apiHelp()}`);
} else if (command && (await import("./cli/main.ts")).COMMANDS.has(command)) {
  // The API commands live in scripts/entry/cli/: a worker start never loads them.
  const { runCommand } = await import("./cli/main.ts");
  process.exitCode = await runCommand(command, process.argv.slice(3));
} else {
  if (command) console.error(`skedulr: unknown command ${JSON.stringify(command)}`);
  console.error(USAGE);
  process.exit(2);
}
