/**
 * @module start-commands.test — every documented start command, started as the README says
 * from a shell without node_modules/.bin on PATH: it answers /skedulr/healthz, runs one task
 * submitted over HTTP (`serve`: stores it), and stops when the process that was started — the
 * npm, npx, bun or deno wrapper, as a process manager sees it — gets SIGTERM (or SIGINT): the
 * whole process tree is gone (no orphaned `bun scripts/entry/worker.ts`, checked by pid), all its
 * output is in, and the port is free.
 *
 * `npx skedulr worker` is covered by test/e2e/package.test.ts (it needs the packed package).
 * Linux: the process tree is read from /proc.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { freePort } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const REPO = resolve(import.meta.dirname ?? dirname(new URL(import.meta.url).pathname), "../..");
const BIN = join(REPO, "node_modules/.bin");

/** A user's shell after `npm install`: no node_modules/.bin on PATH, no npm script context. */
const ENV: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) {
  if (v === undefined || k.startsWith("npm_") || k === "INIT_CWD" || k === "REDIS_URL") continue;
  ENV[k] = v;
}
ENV.PATH = (process.env.PATH ?? "").split(":").filter((p) => resolve(p) !== BIN).join(":");
Object.assign(ENV, { NO_COLOR: "1", SKEDULR_DEMO: "0", SKEDULR_LOG_LEVEL: "warn" });

interface Proc {
  ppid: number;
  zombie: boolean;
  cmd: string;
}

/** A process from /proc, or null when it is gone. */
function proc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    return { ppid: Number(ppid), zombie: state === "Z", cmd };
  } catch {
    return null;
  }
}

/** `root` and every process below it, with their command lines. */
function tree(root: number): Map<number, string> {
  const all = new Map<number, Proc>();
  for (const name of readdirSync("/proc")) {
    const p = /^\d+$/.test(name) ? proc(Number(name)) : null;
    if (p && !p.zombie) all.set(Number(name), p);
  }
  const found = new Map<number, string>([[root, all.get(root)?.cmd ?? "?"]]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, p] of all) {
      if (!found.has(pid) && found.has(p.ppid)) {
        found.set(pid, p.cmd);
        grew = true;
      }
    }
  }
  return found;
}

const running = (pid: number) => {
  const p = proc(pid);
  return p !== null && !p.zombie;
};

interface Started {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Its stdout and stderr ended: every process holding them is gone, and all output is in. */
  closed(): boolean;
}

const started: Started[] = [];

async function start(command: string[], script: "worker" | "serve"): Promise<Started> {
  const port = await freePort();
  const child = spawn(command[0], command.slice(1), {
    cwd: REPO,
    env: { ...ENV, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: `after` can clean up whatever a failure leaves
  });
  let out = "";
  let closed = false;
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  child.once("close", () => (closed = true));
  const s = {
    child,
    url: `http://127.0.0.1:${port}/skedulr`,
    output: () => out,
    closed: () => closed,
  };
  started.push(s);
  const answered = await eventually(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) return "exited";
      return (await fetch(`${s.url}/healthz`).catch(() => null))?.ok && "ok";
    },
    `${command.join(" ")} to answer /skedulr/healthz`,
    20_000,
  ).catch((error) => {
    throw new Error(`${error.message}\n${out}`);
  });
  if (answered === "exited") {
    throw new Error(`${command.join(" ")} exited ${child.exitCode ?? child.signalCode}:\n${out}`);
  }
  const processes = tree(child.pid!);
  const entry = [...processes.values()].some((cmd) => cmd.includes(`scripts/entry/${script}.ts`));
  assert.ok(
    entry,
    `a scripts/entry/${script}.ts process under ${command.join(" ")}: ${[...processes]}`,
  );
  return s;
}

async function submitOne(s: Started, runs: boolean): Promise<void> {
  const api = `${s.url}/api`;
  const res = await fetch(`${api}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "echo", payload: { hello: "start-commands" } }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const { id } = await res.json();
  const want = runs ? "succeeded" : "queued"; // an API-only node stores; no pool runs it
  await eventually(async () => {
    const task = await (await fetch(`${api}/tasks/${id}`)).json();
    return task.status === want;
  }, `task ${id} to be ${want}`);
}

/** Signals the started process only, then waits for its whole tree to be gone. */
async function stop(s: Started, signal: NodeJS.Signals): Promise<void> {
  const processes = tree(s.child.pid!);
  process.kill(s.child.pid!, signal);
  await eventually(
    async () => {
      const left = [...processes.keys()].filter(running);
      if (left.length || !s.closed()) return false;
      return (await fetch(`${s.url}/healthz`).then(() => false, () => true));
    },
    `every process of ${[...processes.values()].join(" | ")} to exit after ${signal}`,
    10_000,
  ).catch((error) => {
    const left = [...processes].filter(([pid]) => running(pid)).map(([p, c]) => `${p} ${c}`);
    throw new Error(`${error.message}\nstill running: ${left.join("; ")}\n${s.output()}`);
  });
  // A drain, not a kill: the entry script's shutdown ran.
  assert.match(s.output(), /SIG(TERM|INT): draining[\s\S]*\nstopped\n/, s.output());
}

/** Start (20 s at most) and stop (10 s) deadlines fail with their own message before this. */
const CASE = { timeout: 40_000 };

const npm = (script: string) => ["npm", "run", script];
const bunRun = (script: string) => [join(BIN, "bun"), "run", script];
const npxDeno = (task: string) => ["npx", "deno", "task", task];

const CASES: [string, string[], "worker" | "serve", NodeJS.Signals][] = [
  ["npm run worker", npm("worker"), "worker", "SIGTERM"],
  ["npm run worker", npm("worker"), "worker", "SIGINT"],
  ["bun run worker", bunRun("worker"), "worker", "SIGTERM"],
  ["bun run worker", bunRun("worker"), "worker", "SIGINT"],
  ["npm run serve", npm("serve"), "serve", "SIGTERM"],
  ["npx deno task worker", npxDeno("worker"), "worker", "SIGTERM"],
  ["npx deno task serve", npxDeno("serve"), "serve", "SIGTERM"],
  [
    "node_modules/.bin/deno task worker",
    [join(BIN, "deno"), "task", "worker"],
    "worker",
    "SIGTERM",
  ],
];

describe("documented start commands: start, run one task, stop with the process tree", () => {
  after(() => {
    for (const s of started) {
      try {
        process.kill(-s.child.pid!, "SIGKILL"); // only what a failed case left behind
      } catch { /* the group is gone */ }
    }
  });

  for (const [name, command, script, signal] of CASES) {
    it(
      `${name}: healthz, one task, ${signal} to the wrapper stops every process`,
      CASE,
      async () => {
        const s = await start(command, script);
        await submitOne(s, script === "worker");
        await stop(s, signal);
      },
    );
  }

  it(
    "npm run worker: a SIGKILL to npm (nothing forwarded) still stops the worker",
    CASE,
    async () => {
      const s = await start(npm("worker"), "worker");
      await stop(s, "SIGKILL");
    },
  );
});
