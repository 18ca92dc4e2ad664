/**
 * @module cli/command — what every CLI command is: a name, its help, its options, and a
 * `run` that talks to the API through {@link Context} and returns an exit code.
 */
import type { ParseArgsConfig } from "node:util";
import { type Api, CliError, EXIT } from "./api.ts";

export interface Context {
  api: Api;
  /** Positional arguments after the command name. */
  args: string[];
  /** Parsed options (`--json` and `--help` included). */
  opts: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
  /** One block of output on stdout. */
  out(text: string): void;
  /** A note or warning on stderr, which scripts reading stdout never see. */
  note(text: string): void;
  /** All of stdin, or null when stdin is a terminal (nothing piped). */
  stdin(): Promise<string | null>;
}

export interface Command {
  name: string;
  /** One line for `skedulr --help`. */
  summary: string;
  /** `skedulr <name> --help`: the usage line and what follows it. */
  help: string;
  options?: NonNullable<ParseArgsConfig["options"]>;
  /** How many positional arguments it takes. */
  positionals: [min: number, max: number];
  run(ctx: Context): Promise<number | void>;
}

export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** A string option's value, or undefined. */
export function opt(ctx: Context, name: string): string | undefined {
  const v = ctx.opts[name];
  return typeof v === "string" ? v : undefined;
}

/** `--limit 20` as a positive integer, or a usage error naming the option. */
export function intOpt(ctx: Context, name: string): number | undefined {
  const v = opt(ctx, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) {
    throw usageError(`--${name}: expected a positive integer, got ${JSON.stringify(v)}`);
  }
  return Number(v);
}

/** `60`, `60s`, `2m`, `500ms` → milliseconds (a bare number is seconds). */
export function durationOpt(ctx: Context, name: string, fallbackMs: number): number {
  const v = opt(ctx, name);
  if (v === undefined) return fallbackMs;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) {
    throw usageError(
      `--${name}: expected seconds or a duration like 30s, 2m; got ${JSON.stringify(v)}`,
    );
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? "s"]!;
  return Number(m[1]) * unit;
}

/** A query string of the options that are set (status may repeat or hold commas). */
export function query(params: Record<string, string | number | string[] | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

export const FINAL = new Set(["succeeded", "dead", "cancelled", "expired"]);
