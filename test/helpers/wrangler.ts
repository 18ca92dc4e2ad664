/**
 * @module wrangler — `wrangler dev --local` (workerd) in its own process group, for the edge
 * tests: the Worker of wrangler.toml with `--var`s, on a free port, stopped (or killed) as a
 * whole group, since workerd runs as its children.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

export const WRANGLER = "node_modules/.bin/wrangler";
/** The REST gateway's token and the Worker's API token the edge tests use. */
export const GATEWAY_TOKEN = "edge-gateway-token-0123456789";
export const API_TOKEN = "edge-api-token-0123456789";
/** workerd compiles the bundle on first start: give it far longer than it usually needs. */
export const FIRST_START_MS = 120_000;

export interface Wrangler {
  /** `http://127.0.0.1:<port>/skedulr` */
  url: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM to the whole process group (wrangler, esbuild, workerd), SIGKILL if it lingers. */
  stop(): Promise<void>;
  /** SIGKILL to the whole group at once: a crash, nothing gets to finish. */
  kill(): Promise<void>;
}

export interface WranglerOptions {
  /** `--test-scheduled`: GET /__scheduled runs the cron handler. */
  testScheduled?: boolean;
  /** `--persist-to <dir>`: where Durable Object storage (alarms) lives. */
  persistTo?: string;
}

/** `wrangler dev --local` in its own session (setsid), so its children die with it. */
export async function startWrangler(
  vars: Record<string, string>,
  options: WranglerOptions = {},
): Promise<Wrangler> {
  if (!existsSync(WRANGLER)) {
    throw new Error(`${WRANGLER} is missing: run npm install (wrangler is a devDependency)`);
  }
  const port = await freePort();
  const args = ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port)];
  args.push("--inspector-port", String(await freePort()), "--show-interactive-dev-session=false");
  if (options.testScheduled) args.push("--test-scheduled");
  if (options.persistTo) args.push("--persist-to", options.persistTo);
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn(WRANGLER, args, {
    detached: true, // setsid(2): wrangler leads a new process group
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true", NO_COLOR: "1" },
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch { /* the group is gone */ }
  };
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/skedulr`,
    origin,
    child,
    output: () => out,
    stop: async () => {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
      signal("SIGKILL"); // workerd may outlive wrangler for a moment
    },
    kill: async () => {
      signal("SIGKILL");
      await exited;
    },
  };
}

/** Waits until the Worker answers `/skedulr/healthz`, with wrangler's output on failure. */
export async function wranglerReady(w: Wrangler, timeoutMs = FIRST_START_MS): Promise<void> {
  await eventually(
    async () => {
      if (w.child.exitCode !== null) {
        throw new Error(`wrangler exited ${w.child.exitCode}:\n${w.output()}`);
      }
      return (await fetch(`${w.url}/healthz`).catch(() => null))?.ok;
    },
    `wrangler dev at ${w.url}`,
    timeoutMs,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}\nwrangler output:\n${w.output()}`);
  });
}
