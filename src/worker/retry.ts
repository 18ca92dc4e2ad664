/**
 * @module retry — calls a storage transition again while the store cannot answer.
 *
 * A call that failed with {@link StorageUnavailableError} (a lost connection, a restart, a
 * full or loading Redis) may or may not have taken effect, so only transitions that are safe
 * to repeat come here: settles, renewals and releases are fenced by the claim's token, and a
 * repeated settle answers as the first did. Any other error is thrown at once.
 */
import type { Clock } from "../core/clock.ts";
import { isStorageFault } from "../core/errors.ts";
import type { Logger } from "./middleware.ts";

const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 2_000;

export interface RetryOptions {
  clock: Clock;
  logger: Logger;
  /** What is being stored, for the log (e.g. `completing task 0mx2…`). */
  what: string;
  /** Stop trying after this time (the clock's epoch ms): the caller then gets `undefined`. */
  until: () => number;
}

/**
 * Runs `call` until it answers, retrying storage faults with jittered exponential back-off
 * (50 ms up to 2 s). Resolves with the answer, or `undefined` once `until()` has passed.
 */
export function withRetries<T>(
  call: () => Promise<T>,
  o: RetryOptions,
): Promise<T | undefined> {
  return call().catch((error) => retryAfter(error, call, () => o));
}

/**
 * The rest of {@link withRetries} once the first try failed with `error`. The options are
 * made only then, so the common path (a store that answers) allocates nothing for them.
 */
export async function retryAfter<T>(
  error: unknown,
  call: () => Promise<T>,
  options: () => RetryOptions,
): Promise<T | undefined> {
  if (!isStorageFault(error)) throw error;
  const o = options();
  o.logger.warn(`${o.what}: retrying`, { error: error.message });
  let delay = FIRST_DELAY_MS;
  for (let tries = 2;; tries++) {
    const left = o.until() - o.clock.now();
    if (left <= 0) {
      o.logger.error(`${o.what}: gave up after ${tries - 1} tries`, {
        error: (error as Error).message,
      });
      return undefined;
    }
    await sleep(o.clock, Math.min(delay * (0.8 + 0.4 * Math.random()), left));
    delay = Math.min(MAX_DELAY_MS, delay * 2);
    try {
      const answer = await call();
      o.logger.info(`${o.what}: stored after ${tries} tries`);
      return answer;
    } catch (again) {
      if (!isStorageFault(again)) throw again;
      error = again;
    }
  }
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(resolve, Math.max(0, ms)));
}
