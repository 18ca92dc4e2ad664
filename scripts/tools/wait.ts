/**
 * @module wait — wait for a condition with a deadline; never a fixed sleep.
 */

/** Polls `check` until it returns a truthy value (returned) or throws after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  message = "condition",
  timeoutMs = 5_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${message}${last ? `: ${last}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A promise with its resolve function, for handlers that block until the test lets go. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}
