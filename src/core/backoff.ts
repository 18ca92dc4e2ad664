/**
 * @module backoff — how long a failed task waits before its next attempt.
 */
import type { Backoff } from "./task.ts";

/** A custom back-off through the library API: ms to wait before attempt `attempt + 1`. */
export type BackoffFn = (attempt: number, error: unknown) => number;

/**
 * Delay in ms after failed attempt number `attempt` (1-based).
 * Exponential: `base * 2^(attempt-1)`, capped at `max`, then spread by ±`jitter` (a
 * fraction) so a burst of failures does not retry in lock-step; the cap holds after jitter.
 * No policy means retry at once.
 *
 * @example
 * backoffDelay({ type: "exponential", baseMs: 500, maxMs: 10_000, jitter: 0 }, 3); // 2000
 */
export function backoffDelay(
  policy: Backoff | null,
  attempt: number,
  random = Math.random,
): number {
  if (!policy) return 0;
  if (policy.type === "fixed") return policy.delayMs;
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  const spread = raw * policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.min(policy.maxMs, Math.round(raw + spread)));
}
