/**
 * @module start-log — a sliding log of start times (ascending) that allows at most `max`
 * starts in any window of `perMs`: a pool's rateLimit and a flow key's rate alike, as
 * lua/includes/start-log.lua keeps them in Redis.
 */

/**
 * Starts still allowed at `now`, after trimming `log` to the window `(now - perMs, now]` and
 * to its newest `max` (older entries can never matter again).
 */
export function logTokens(log: number[], max: number, perMs: number, now: number): number {
  let drop = 0;
  while (drop < log.length && log[drop] <= now - perMs) drop++;
  drop = Math.max(drop, log.length - max);
  if (drop > 0) log.splice(0, drop);
  return max - log.length;
}
