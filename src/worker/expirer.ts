/**
 * @module expirer — the expiry duty: ends tasks not started by their `expiresAt` (queued in
 * a paused or busy pool, scheduled past it, retrying, waiting on parents), on time.
 *
 * The store's expiry index is the truth; the wheel holds one entry per due tick, armed by
 * `expiry` events (whoever submitted or retried the task) and by a look-ahead scan on start
 * and every `lookAheadMs / 2`. Each firing is one bounded storage call (`expireDue`),
 * repeated while a full batch came back. A claim never starts an expired task either, so
 * the duty only matters for tasks no claim reaches in time. Cheap when nothing expires: one
 * indexed range read per scan.
 */
import type { Clock } from "../core/clock.ts";
import type { TimingWheel } from "../core/timing-wheel.ts";
import type { QueueStore } from "../storage/storage.ts";
import type { Logger } from "./middleware.ts";
import { Periodic } from "./periodic.ts";

/** Index entries read per storage call. */
const EXPIRE_BATCH = 1000;

/** An expiry run the store could not take is tried again after this back-off (doubling). */
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;

export interface ExpirerOptions {
  storage: QueueStore;
  clock: Clock;
  wheel: TimingWheel;
  logger: Logger;
  tickMs: number;
  lookAheadMs: number;
}

export class Expirer {
  readonly #o: ExpirerOptions;
  readonly #scan: Periodic;
  #running: Promise<void> | null = null;
  #again = false;
  #retryMs = 0;
  #retry: unknown;
  #stopped = true;

  constructor(options: ExpirerOptions) {
    this.#o = options;
    this.#scan = new Periodic(
      "expiry scan",
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

  /** One look-ahead scan: arms the wheel for expiries within the window. */
  async step(): Promise<void> {
    const { storage, clock, lookAheadMs } = this.#o;
    const due = await storage.dueExpiries({ until: clock.now() + lookAheadMs, limit: 10_000 });
    for (const { expiresAt } of due) this.arm(expiresAt);
  }

  /** Makes sure the wheel fires at the tick that covers `at` (inside the look-ahead). */
  arm(at: number): void {
    const { wheel, clock, lookAheadMs } = this.#o;
    if (this.#stopped || at > clock.now() + lookAheadMs) return; // a later scan arms it
    const tick = wheel.firesAt(at);
    const id = `expire:${tick}`;
    if (!wheel.has(id)) wheel.schedule(id, tick, () => this.expire());
  }

  /** Expires everything due now; concurrent requests coalesce into one more pass. */
  expire(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          while (
            (await this.#o.storage.expireDue({ now: this.#o.clock.now(), limit: EXPIRE_BATCH }))
              .more
          );
        } while (this.#again);
        this.#retryMs = 0;
      } catch (error) {
        // Due expiries must not wait for the next look-ahead scan: try again soon.
        if (this.#retryMs === 0) {
          this.#o.logger.warn("expiry failed", { error: (error as Error)?.message ?? error });
        }
        this.#retryMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, this.#retryMs * 2));
        if (this.#retry === undefined && !this.#stopped) {
          this.#retry = this.#o.clock.setTimer(() => {
            this.#retry = undefined;
            this.expire();
          }, this.#retryMs);
        }
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }
}
