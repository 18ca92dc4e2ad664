/**
 * @module worker-process — spawns `scripts/entry/worker.ts` (or serve.ts) as a real process on a
 * free port and waits for its banner.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "./redis-server.ts";
import { eventually } from "./wait.ts";

export interface WorkerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startWorker(
  env: Record<string, string>,
  script = "scripts/entry/worker.ts",
  runtime: string[] = ["bun"],
): Promise<WorkerProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(runtime[0], [...runtime.slice(1), script], {
    env: { ...process.env, SKEDULR_DEMO: "0", SKEDULR_LOG_LEVEL: "warn", ...env, PORT: port },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code))
  );
  const handle: WorkerProcess = {
    url: `http://127.0.0.1:${port}/skedulr`,
    child,
    output: () => out,
    exited,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal);
      return await exited;
    },
  };
  return handle;
}

/** Waits until the worker's API answers; fails at once when it exits instead. */
export async function ready(w: WorkerProcess, timeoutMs = 15_000): Promise<WorkerProcess> {
  let exited = false;
  await eventually(
    async () => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) {
        exited = true;
        return true;
      }
      const r = await fetch(`${w.url}/healthz`).catch(() => null);
      return r?.ok;
    },
    `worker at ${w.url}`,
    timeoutMs,
  );
  if (exited) {
    throw new Error(`worker exited ${w.child.exitCode ?? w.child.signalCode}: ${w.output()}`);
  }
  return w;
}
