/**
 * @module promoter — moves due delayed tasks (delay, runAt, retry back-off) to their ready
 * queues through the timing wheel.
 *
 * The delayed set in storage is the truth; the wheel is this process's hot cache of it.
 * The wheel holds one entry per due tick (its `firesAt` grid), not per task: a firing promotes everything due,
 * so 100k tasks due within 10 s cost at most one wheel entry per 10 ms tick. Entries come
 * from `delayed` events (whoever submitted) and from a look-ahead scan on start and every
 * `lookAheadMs / 2`, which also covers events missed while disconnected. Promotion itself
 * is one atomic storage call, so each task is promoted exactly once however many
 * instances fire for the same tick.
 */
import type { Clock } from "../core/clock.ts";
import type { TimingWheel } from "../core/timing-wheel.ts";
import type { QueueStore } from "../storage/storage.ts";
import type { Logger } from "./middleware.ts";
import { Periodic } from "./periodic.ts";

const PROMOTE_BATCH = 1000;

/** A promotion the store could not take is tried again after this back-off (doubling). */
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;

export interface PromoterOptions {
  storage: QueueStore;
  clock: Clock;
  wheel: TimingWheel;
  logger: Logger;
  tickMs: number;
  lookAheadMs: number;
}

export class Promoter {
  readonly #o: PromoterOptions;
  readonly #scan: Periodic;
  #promoting: Promise<void> | null = null;
  #again = false;
  #retryMs = 0;
  #retry: unknown;
  #stopped = true;

  constructor(options: PromoterOptions) {
    this.#o = options;
    this.#scan = new Periodic(
      "look-ahead scan",
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

  /** One look-ahead scan: arms the wheel for delayed tasks due within the window. */
  async step(): Promise<void> {
    const { storage, clock, lookAheadMs } = this.#o;
    const due = await storage.dueDelayed({ until: clock.now() + lookAheadMs, limit: 10_000 });
    for (const { runAt } of due) this.arm(runAt);
  }

  /** Makes sure the wheel fires at the tick that covers `runAt` (inside the look-ahead). */
  arm(runAt: number): void {
    const { wheel, clock, lookAheadMs } = this.#o;
    if (runAt > clock.now() + lookAheadMs) return; // a later scan arms it
    // One entry per tick of the wheel's own grid: every task due in that tick fires with it,
    // and rounding on any other grid could add a second tick of lateness.
    const at = wheel.firesAt(runAt);
    const id = `promote:${at}`;
    if (!wheel.has(id)) wheel.schedule(id, at, () => this.promote());
  }

  /** Promotes everything due now; concurrent requests coalesce into one more pass. */
  promote(): Promise<void> {
    if (this.#promoting) {
      this.#again = true;
      return this.#promoting;
    }
    this.#promoting = (async () => {
      try {
        do {
          this.#again = false;
          while (
            await this.#o.storage.promoteDue({ now: this.#o.clock.now(), limit: PROMOTE_BATCH }) ===
              PROMOTE_BATCH
          );
        } while (this.#again);
        this.#retryMs = 0;
      } catch (error) {
        // Due work must not wait for the next look-ahead scan: try again soon.
        if (this.#retryMs === 0) {
          this.#o.logger.warn("promote failed", { error: (error as Error)?.message ?? error });
        }
        this.#retryMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, this.#retryMs * 2));
        if (this.#retry === undefined && !this.#stopped) {
          this.#retry = this.#o.clock.setTimer(() => {
            this.#retry = undefined;
            this.promote();
          }, this.#retryMs);
        }
      } finally {
        this.#promoting = null;
      }
    })();
    return this.#promoting;
  }
}
