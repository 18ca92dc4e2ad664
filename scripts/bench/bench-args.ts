/**
 * @module bench-args — what every bench reads from its command line (`--name value`
 * options), and the median its tables show.
 */
import process from "node:process";

/** The arguments after the script's path. */
export const argv = process.argv.slice(2);

/** The value given after `--name`, or `fallback` when the option is not there. */
export function arg(name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
}

/** The median of `xs` (of an even count, the upper of the two middle values). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1];
}
