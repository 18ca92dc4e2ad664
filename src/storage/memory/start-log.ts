/**
 * @module start-log — a sliding log of start times (ascending) that allows at most `max`
 * starts in any window of `perMs`: a pool's rateLimit and a flow key's rate alike, as
 * lua/includes/start-log.lua keeps them in Redis.
 *
 * Calls do not come in the order of their `now` (a caller's `now` is read before its call
 * runs), so a start counts against every `now` up to `perMs` after it, later starts
 * included, and the log is trimmed to its newest `max` only: trimming to one call's window
 * would drop starts still inside an earlier `now`'s window.
 */

/** Where the starts after `now - perMs` begin in `log`. */
function windowStart(log: number[], perMs: number, now: number): number {
  let i = 0;
  while (i < log.length && log[i] <= now - perMs) i++;
  return i;
}

/** The logged starts after `now - perMs`, later ones included. */
export function logCount(log: number[], perMs: number, now: number): number {
  return log.length - windowStart(log, perMs, now);
}

/** Starts still allowed at `now`, after trimming `log` to its newest `max`. */
export function logTokens(log: number[], max: number, perMs: number, now: number): number {
  if (log.length > max) log.splice(0, log.length - max);
  return max - logCount(log, perMs, now);
}

/** Adds `n` starts at `now`, in order. */
export function logStarts(log: number[], n: number, now: number): void {
  let at = log.length;
  while (at > 0 && log[at - 1] > now) at--;
  if (at === log.length && n === 1) log.push(now);
  else log.splice(at, 0, ...new Array<number>(n).fill(now));
}

/** When the next start is allowed: the oldest start after `now - perMs`, plus perMs. */
export function logNextAt(log: number[], perMs: number, now: number): number {
  const i = windowStart(log, perMs, now);
  return (i < log.length ? log[i] : now) + perMs;
}
