/**
 * @module runtime adapter — the runtime-specific bits the core leaves out: timer unref,
 * signals, environment, host name and pid. `node:process` and `node:os` work on Bun, Node
 * and Deno alike; only unref differs (Deno's timers are numbers).
 */
import process from "node:process";
import { hostname } from "node:os";
import { type Clock, systemClock, unrefEachLink } from "../core/clock.ts";

declare const Deno: { unrefTimer(id: number): void } | undefined;

function unrefOne(handle: unknown): void {
  if (typeof handle === "number" && typeof Deno !== "undefined") Deno.unrefTimer(handle);
  else (handle as { unref?: () => void })?.unref?.();
}

/**
 * The real clock, whose `unrefTimer` lets the process exit while only that timer is pending
 * (every link of a wait chained past the setTimeout limit included).
 */
export const runtimeClock: Clock = {
  ...systemClock,
  unrefTimer: (handle) => unrefEachLink(handle, unrefOne),
};

/** Calls `fn` once on the first SIGINT or SIGTERM. */
export function onShutdownSignal(fn: (signal: string) => void): void {
  let fired = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (fired) return;
      fired = true;
      fn(signal);
    });
  }
}

/** An environment variable, or undefined. */
export function env(name: string): string | undefined {
  return process.env[name];
}

export function hostName(): string {
  return hostname();
}

export function processId(): number {
  return process.pid;
}

export function exit(code: number): never {
  return process.exit(code);
}
