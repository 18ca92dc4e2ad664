/**
 * @module wheel-options — the timing wheel's options: their shape, defaults and validation.
 */

import { type Clock, systemClock } from "./clock.ts";

/** Options for {@link TimingWheel}. */
export interface TimingWheelOptions {
  /** Width of a level-0 bucket in ms: the firing resolution. Positive integer, default 10. */
  tickMs?: number;
  /** Buckets per level. Integer ≥ 2, default 256 (fewer cascades than 64; measured). */
  wheelSize?: number;
  /** Source of time and timers, default {@link systemClock}. */
  clock?: Clock;
  /** Most entries one driver turn handles before yielding to the event loop, default 10 000. */
  maxPerTurn?: number;
  /** Let the process exit while only the wheel's driver timer is pending, default false. */
  unref?: boolean;
  /**
   * Receives what a callback threw (or its promise rejected with) and the entry's id, or
   * `#<handle>` for an entry added by handle; default console.error.
   */
  onError?: (error: unknown, id: string) => void;
}

/** Options with every default filled in. */
export type ResolvedWheelOptions = Required<TimingWheelOptions>;

/** Quotes a value for an error message: strings in quotes, the rest as `String()` shows it. */
export const show = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : String(value);

const defaultOnError = (error: unknown, id: string): void => {
  console.error(`TimingWheel: callback for ${JSON.stringify(id)} failed:`, error);
};

/** Fills in defaults and rejects values the wheel cannot work with, quoting them. */
export function resolveWheelOptions(options: TimingWheelOptions): ResolvedWheelOptions {
  const { tickMs = 10, wheelSize = 256, maxPerTurn = 10_000 } = options;
  if (!Number.isInteger(tickMs) || tickMs <= 0) {
    throw new RangeError(`new TimingWheel: tickMs must be a positive integer, got ${show(tickMs)}`);
  }
  if (!Number.isInteger(wheelSize) || wheelSize < 2) {
    throw new RangeError(
      `new TimingWheel: wheelSize must be an integer of at least 2, got ${show(wheelSize)}`,
    );
  }
  if (!Number.isInteger(maxPerTurn) || maxPerTurn <= 0) {
    throw new RangeError(
      `new TimingWheel: maxPerTurn must be a positive integer, got ${show(maxPerTurn)}`,
    );
  }
  return {
    tickMs,
    wheelSize,
    maxPerTurn,
    clock: options.clock ?? systemClock,
    unref: options.unref ?? false,
    onError: options.onError ?? defaultOnError,
  };
}
