/**
 * @module lease-keeper — renews the lease of every attempt this process runs, every
 * `leaseMs / 3`, in one storage call, and stops handlers whose lease is gone:
 * - a renewal that answers "lost" (recovered by a peer, cancelled, claimed again) aborts
 *   the attempt at once (`lease-lost`);
 * - a renewal that fails or is slow aborts nothing: a Redis stall shorter than the lease
 *   costs no work. Only when the worker's own clock says the lease has run out (no renewal
 *   got through in time, so a peer may run the task now) is the handler stopped
 *   (`lease-expired`), and the task handed back once the store answers.
 * A renewal never waits for another; when the earliest lease would run out before the next
 * renewal, a timer fires at that moment to stop its handler.
 */
import type { Clock } from "../core/clock.ts";
import { isStorageFault, toErrorInfo } from "../core/errors.ts";
import type { QueueStore } from "../storage/storage.ts";
import type { Logger } from "./middleware.ts";
import { Periodic } from "./periodic.ts";
import { AbortReason, type Attempt } from "./runner.ts";

export class LeaseKeeper {
  readonly #periodic: Periodic;
  readonly #renewEveryMs: number;
  #renewing = false;
  #failing = false;
  #expiryTimer: unknown;

  constructor(
    private readonly storage: QueueStore,
    private readonly clock: Clock,
    private readonly running: Map<string, Attempt>,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {
    this.#renewEveryMs = Math.max(10, Math.floor(leaseMs / 3));
    this.#periodic = new Periodic(
      "lease renewal",
      this.#renewEveryMs,
      () => this.step(),
      clock,
      logger,
    );
  }

  start(): void {
    this.#periodic.start();
  }

  stop(): void {
    this.#periodic.stop();
    this.#disarm();
  }

  step(): Promise<void> {
    const now = this.clock.now();
    this.#expire(now);
    if (this.running.size > 0 && !this.#renewing) {
      this.#renewing = true;
      // Not awaited: a renewal stuck in a stalled store must not hold up the expiry timer.
      this.#renew(now).finally(() => (this.#renewing = false));
    }
    this.#arm(now);
    return Promise.resolve();
  }

  /** Stops the handlers whose lease ran out by this worker's clock. */
  #expire(now: number): void {
    for (const attempt of this.running.values()) {
      if (!attempt.ended && attempt.leaseUntil <= now) {
        attempt.abort(
          new AbortReason(
            "lease-expired",
            "lease ran out: the store could not be reached to renew it",
          ),
        );
      }
    }
  }

  /** Arms a timer for the earliest lease that would run out before the next renewal. */
  #arm(now: number): void {
    this.#disarm();
    let earliest = Infinity;
    for (const a of this.running.values()) {
      if (!a.ended && a.reason === null) earliest = Math.min(earliest, a.leaseUntil);
    }
    if (earliest >= now + this.#renewEveryMs) return;
    this.#expiryTimer = this.clock.setTimer(() => {
      this.#expiryTimer = undefined;
      const at = this.clock.now();
      this.#expire(at);
      this.#arm(at);
    }, earliest - now);
    this.clock.unrefTimer?.(this.#expiryTimer);
  }

  #disarm(): void {
    if (this.#expiryTimer !== undefined) this.clock.clearTimer(this.#expiryTimer);
    this.#expiryTimer = undefined;
  }

  async #renew(sentAt: number): Promise<void> {
    const attempts = [...this.running.values()];
    try {
      const lost = new Set(
        await this.storage.renewLeases({
          leases: attempts.map((a) => a.lease),
          leaseMs: this.leaseMs,
          now: sentAt,
        }),
      );
      if (this.#failing) this.logger.info("lease renewal works again");
      this.#failing = false;
      for (const attempt of attempts) {
        if (lost.has(attempt.lease.id)) {
          attempt.abort(new AbortReason("lease-lost", "lease lost"));
        } else {
          attempt.leaseUntil = Math.max(attempt.leaseUntil, sentAt + this.leaseMs);
        }
      }
    } catch (error) {
      if (!isStorageFault(error) || !this.#failing) {
        this.logger.warn("lease renewal failed", { error: toErrorInfo(error).message });
      }
      this.#failing = true;
    }
  }
}
