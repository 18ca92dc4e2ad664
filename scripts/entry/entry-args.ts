/**
 * @module entry-args — the command-line arguments of the entry points (scripts/entry/worker.ts,
 * scripts/entry/serve.ts): `--help` and `--version` print and exit 0 before anything starts, and
 * any other argument exits 2 naming it, so a typo never starts a worker. Configuration is
 * the environment's (see the help text); the entry points take no other argument.
 */
import process from "node:process";
import { ENV_VARS } from "../../src/worker/config.ts";
import { exit } from "../../src/adapters/runtime.ts";
import { VERSION } from "./boot.ts";

const ABOUT = {
  worker: "Runs the worker pools, the timing wheel, the HTTP API and the dashboard.",
  serve: "Runs the HTTP API and the dashboard only (no pools): an API node in front of the " +
    "storage the workers share.",
};

/** The `--help` text of an entry point. */
export function helpText(entry: "worker" | "serve"): string {
  const width = Math.max(...Object.keys(ENV_VARS).map((k) => k.length)) + 2;
  const vars = Object.entries(ENV_VARS).map(([k, v]) => `  ${k.padEnd(width)}${v}`);
  return [
    `skedulr ${VERSION} — ${entry}`,
    "",
    `Usage: npm run ${entry}            (bun scripts/entry/${entry}.ts, npx deno task ${entry})`,
    `       npm run ${entry} -- --help | --version`,
    "",
    ABOUT[entry],
    'Configured by environment variables (README.md, "Environment variables"):',
    "",
    ...vars,
    "",
  ].join("\n");
}

/**
 * Handles `args` (default: the process's): prints help or the version and exits 0, exits 2
 * on anything else, returns when there is nothing to handle.
 */
export function handleEntryArgs(
  entry: "worker" | "serve",
  args: string[] = process.argv.slice(2),
): void {
  if (args.length === 0) return;
  const [arg] = args;
  if (arg === "--help" || arg === "-h") {
    console.log(helpText(entry));
    exit(0);
  } else if (arg === "--version" || arg === "-v") {
    console.log(VERSION);
    exit(0);
  } else {
    console.error(
      `skedulr: unknown argument ${JSON.stringify(arg)}: the ${entry} takes --help or ` +
        "--version only; it is configured by environment variables (see --help)",
    );
    exit(2);
  }
}
