/**
 * @module bench-child — for a bench that measures in fresh processes of its own: the command
 * that runs a script on this runtime, and a child's answer (the last line it prints, JSON).
 */
import { spawnSync } from "node:child_process";
import process from "node:process";

/** This runtime as a command: `deno run -A` under Deno. */
export const RUNTIME: string[] = "Deno" in globalThis
  ? [process.execPath, "run", "-A"]
  : [process.execPath];

/** Runs `script` with `args` on this runtime and parses the last line it printed. */
export function childJson<T>(script: string, args: string[], what: string): T {
  const [bin, ...pre] = RUNTIME;
  const out = spawnSync(bin, [...pre, script, ...args], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(`${what}: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").pop()!);
}
