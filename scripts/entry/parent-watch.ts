/**
 * @module parent-watch — stops a worker (or API node) whose package-manager wrapper is gone.
 *
 * `npx …` and `npm exec` start a command through `sh -c` and forward SIGTERM to that shell
 * only, which dies without passing it on (npm/cli#5776); a SIGKILL to `npm run` or `bun run`
 * reaches nobody else. Either way the wrappers vanish and the worker lives on as an orphan,
 * still claiming tasks. So a process started by a script runner (`npm_command` or
 * `npm_lifecycle_event` in its environment) watches the chain of processes between itself
 * and the runner: when a link of it is re-parented (a wrapper died), the SIGTERM meant for
 * the worker is sent to itself and boot.ts drains and exits as on any SIGTERM.
 *
 * The chain is read from /proc (Linux): every ancestor that was itself started by the runner
 * (the `sh -c`, a `deno task`) is a link, up to the runner process, which is not. Elsewhere
 * only this process's own parent is watched, which covers `npm run` and `bun run`. Started
 * any other way (a supervisor, `nohup`), signals reach the process directly and a parent
 * that goes away means nothing: nothing is watched.
 */
import { readFileSync } from "node:fs";
import process from "node:process";

const MARKERS = ["npm_command=", "npm_lifecycle_event="];
/** How often the chain is checked: a wrapper's death is noticed within this. */
const EVERY_MS = 200;
/** Enough for `npx deno task worker` (deno run, deno task, sh) with room to spare. */
const MAX_LINKS = 8;

/** Was this environment set up by a package manager's script runner? */
function marked(environment: string[]): boolean {
  return environment.some((v) => MARKERS.some((m) => v.startsWith(m)));
}

/** The parent of `pid` from /proc/<pid>/stat, or null when the process is gone (or no /proc). */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so skip to the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

function environmentOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** `[pid, parent]` of each link, from this process up to the runner (exclusive). */
function chain(): [number, number][] {
  const links: [number, number][] = [[process.pid, process.ppid]];
  while (links.length < MAX_LINKS) {
    const parent = links[links.length - 1][1];
    if (parent <= 1 || !marked(environmentOf(parent))) break;
    const grandparent = parentOf(parent);
    if (grandparent === null) break;
    links.push([parent, grandparent]);
  }
  return links;
}

/**
 * Under a script runner, sends this process SIGTERM once a wrapper between it and the runner
 * (or the runner itself) is gone. The check is unref'd: it never keeps the process alive.
 */
export function stopWithWrapper(): void {
  if (process.env.npm_command === undefined && process.env.npm_lifecycle_event === undefined) {
    return;
  }
  const links = chain();
  const broken = () =>
    links.some(([pid, parent]) => (pid === process.pid ? process.ppid : parentOf(pid)) !== parent);
  const timer = setInterval(() => {
    if (!broken()) return;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  }, EVERY_MS);
  (timer as { unref?: () => void }).unref?.();
}
