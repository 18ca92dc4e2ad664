/**
 * @module cli/format — readable output: aligned tables, relative times, one line of an
 * error. `--json` bypasses all of it and prints the API's answer as it came.
 */

/** Columns padded to their widest cell; the last column is never padded (no trailing spaces). */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/** Aligned `label  value` lines; values spanning lines are indented under the first. */
export function fields(pairs: [string, string][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs
    .map(([k, v]) => `${k.padEnd(width)}  ${v.split("\n").join(`\n${" ".repeat(width + 2)}`)}`)
    .join("\n");
}

/** `12s ago`, `in 5m`, `3h ago`: enough to read a table at a glance. */
export function relative(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return "-";
  const delta = ms - now;
  const abs = Math.abs(delta);
  const units: [number, string][] = [[86_400_000, "d"], [3_600_000, "h"], [60_000, "m"], [
    1000,
    "s",
  ]];
  const [size, unit] = units.find(([size]) => abs >= size) ?? [1, "ms"];
  const n = `${Math.floor(abs / size)}${unit}`;
  return delta >= 0 ? `in ${n}` : `${n} ago`;
}

/** An ISO time with its relative form: `2025-01-02T09:00:00.000Z (in 3h)`. */
export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "-";
  return `${new Date(ms).toISOString()} (${relative(ms)})`;
}

/** First line, cut to `max` characters: an error message in a table cell. */
export function firstLine(text: string | null | undefined, max = 60): string {
  const line = (text ?? "").split("\n")[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Compact JSON for a cell or a field; `-` for null. */
export function json(value: unknown): string {
  return value === null || value === undefined ? "-" : JSON.stringify(value);
}

/** What a task table row says beyond its status: the error, the cancel reason, progress. */
export function note(task: any): string {
  if (task.error?.message) return firstLine(task.error.message);
  if (task.cancelReason) return firstLine(task.cancelReason);
  if (task.status === "running" && task.progress !== null) return `${task.progress}%`;
  return "";
}

/** `1/4`: the attempt and how many it may take (maxRetries + 1). */
export function attempts(task: any): string {
  return `${task.attempt}/${task.maxRetries + 1}`;
}
