/**
 * @module due-duty — a duty that acts on work due by a time kept in the store (delayed tasks,
 * expiries), through the timing wheel: one wheel entry per due tick, armed by events and by a
 * look-ahead scan on start and every `lookAheadMs / 2` (which also covers events missed
 * while disconnected). Each firing runs bounded storage passes until one comes back short;
 * concurrent firings coalesce into one more run, and a failed run is retried with back-off
 * rather than left to the next scan. The store decides each item once, however many
 * instances fire for the same tick.
 */
import type { Clock } from "../core/clock.ts";
import type { TimingWheel } from "../core/timing-wheel.ts";
import type { Logger } from "./middleware.ts";
import { Periodic } from "./periodic.ts";

/** A run the store could not take is tried again after this back-off (doubling). */
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;

/** How many due times one look-ahead scan reads. */
const SCAN_LIMIT = 10_000;

export interface DueDutyOptions {
  clock: Clock;
  wheel: TimingWheel;
  logger: Logger;
  tickMs: number;
  lookAheadMs: number;
}

/** What a due duty does: where its due times come from, and one bounded pass. */
export interface DueWork {
  /** The wheel entries' prefix and the log's word for a failed run ("promote", "expiry"). */
  name: string;
  /** The look-ahead scan's name in logs. */
  scanName: string;
  /** Due times up to `until`, at most `limit`. */
  due(until: number, limit: number): Promise<number[]>;
  /** One bounded pass over what is due at `now`; true when it may have left some. */
  pass(now: number): Promise<boolean>;
}

export class DueDuty {
  readonly #o: DueDutyOptions;
  readonly #work: DueWork;
  readonly #scan: Periodic;
  #running: Promise<void> | null = null;
  #again = false;
  #retryMs = 0;
  #retry: unknown;
  #stopped = true;

  constructor(options: DueDutyOptions, work: DueWork) {
    this.#o = options;
    this.#work = work;
    this.#scan = new Periodic(
      work.scanName,
      Math.max(options.tickMs, Math.floor(options.lookAheadMs / 2)),
      () => this.step(),
      options.clock,
      options.logger,
    );
  }

  start(): void {
    this.#stopped = false;
    this.#scan.start();
  }

  stop(): void {
    this.#stopped = true;
    this.#scan.stop();
    if (this.#retry !== undefined) this.#o.clock.clearTimer(this.#retry);
    this.#retry = undefined;
  }

  /** One look-ahead scan: arms the wheel for what is due within the window. */
  async step(): Promise<void> {
    const { clock, lookAheadMs } = this.#o;
    for (const at of await this.#work.due(clock.now() + lookAheadMs, SCAN_LIMIT)) this.arm(at);
  }

  /** Makes sure the wheel fires at the tick that covers `at` (inside the look-ahead). */
  arm(at: number): void {
    const { wheel, clock, lookAheadMs } = this.#o;
    if (at > clock.now() + lookAheadMs) return; // a later scan arms it
    // One entry per tick of the wheel's own grid: everything due in that tick fires with it,
    // and rounding on any other grid could add a second tick of lateness.
    const tick = wheel.firesAt(at);
    const id = `${this.#work.name}:${tick}`;
    if (!wheel.has(id)) wheel.schedule(id, tick, () => this.run());
  }

  /** Handles everything due now; concurrent requests coalesce into one more pass. */
  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          while (await this.#work.pass(this.#o.clock.now()));
        } while (this.#again);
        this.#retryMs = 0;
      } catch (error) {
        // Due work must not wait for the next look-ahead scan: try again soon.
        if (this.#retryMs === 0) {
          this.#o.logger.warn(`${this.#work.name} failed`, {
            error: (error as Error)?.message ?? error,
          });
        }
        this.#retryMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, this.#retryMs * 2));
        if (this.#retry === undefined && !this.#stopped) {
          this.#retry = this.#o.clock.setTimer(() => {
            this.#retry = undefined;
            this.run();
          }, this.#retryMs);
        }
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }
}
