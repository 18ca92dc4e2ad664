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
export async function withRetries<T>(
  call: () => Promise<T>,
  o: RetryOptions,
): Promise<T | undefined> {
  let delay = FIRST_DELAY_MS;
  for (let tries = 1;; tries++) {
    try {
      const answer = await call();
      if (tries > 1) o.logger.info(`${o.what}: stored after ${tries} tries`);
      return answer;
    } catch (error) {
      if (!isStorageFault(error)) throw error;
      if (o.clock.now() >= o.until()) {
        o.logger.error(`${o.what}: gave up after ${tries} tries`, { error: error.message });
        return undefined;
      }
      if (tries === 1) o.logger.warn(`${o.what}: retrying`, { error: error.message });
      await sleep(
        o.clock,
        Math.min(delay * (0.8 + 0.4 * Math.random()), o.until() - o.clock.now()),
      );
      delay = Math.min(MAX_DELAY_MS, delay * 2);
    }
  }
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(resolve, Math.max(0, ms)));
}
