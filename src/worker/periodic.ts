/**
 * @module periodic — a background duty: one `step()` run every `intervalMs` on the injected
 * clock, never overlapping itself, with `start()` and `stop()` (the Asynq component shape).
 * Any interval works: the clock chains waits past setTimeout's limit; Infinity runs once.
 */
import type { Clock } from "../core/clock.ts";
import type { Logger } from "./middleware.ts";

export class Periodic {
  #timer: unknown;
  #running = false;
  #stopped = true;

  constructor(
    readonly name: string,
    readonly intervalMs: number,
    private readonly step: () => Promise<unknown>,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    // A NaN interval (e.g. from an option left undefined) would otherwise spin or stall.
    if (!(intervalMs >= 0)) {
      throw new RangeError(
        `Creating ${name}: expected an interval of 0 ms or more, got ${intervalMs}`,
      );
    }
  }

  /** Runs the first step now, then every interval. */
  start(): void {
    this.#stopped = false;
    this.runNow();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.clock.clearTimer(this.#timer);
    this.#timer = undefined;
  }

  /** Runs a step at once (unless one is in flight) and restarts the interval. */
  runNow(): void {
    if (this.#stopped || this.#running) return;
    if (this.#timer !== undefined) this.clock.clearTimer(this.#timer);
    this.#running = true;
    this.step().catch((error) => {
      this.logger.warn(`${this.name} step failed`, { error: (error as Error)?.message ?? error });
    }).finally(() => {
      this.#running = false;
      if (this.#stopped) return;
      this.#timer = this.clock.setTimer(() => {
        this.#timer = undefined;
        this.runNow();
      }, this.intervalMs);
      this.clock.unrefTimer?.(this.#timer);
    });
  }
}
