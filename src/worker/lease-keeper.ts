/**
 * @module lease-keeper — renews the lease of every attempt this process runs, every
 * `leaseMs / 3`, in one storage call. An attempt whose lease was lost (recovered by a peer
 * after a long stall, or cancelled) has its signal aborted so the handler can stop.
 */
import type { Clock } from "../core/clock.ts";
import type { Storage } from "../storage/storage.ts";
import type { Logger } from "./middleware.ts";
import { Periodic } from "./periodic.ts";
import { AbortReason, type Attempt } from "./runner.ts";

export class LeaseKeeper {
  readonly #periodic: Periodic;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly running: Map<string, Attempt>,
    private readonly owner: { workerId: string; leaseMs: number },
    logger: Logger,
  ) {
    this.#periodic = new Periodic(
      "lease renewal",
      Math.max(10, Math.floor(owner.leaseMs / 3)),
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
  }

  async step(): Promise<void> {
    if (this.running.size === 0) return;
    const ids = [...this.running.keys()];
    const lost = await this.storage.renewLeases(ids, this.owner, this.clock.now());
    for (const id of lost) {
      this.running.get(id)?.abort(new AbortReason("lease-lost", "lease lost"));
    }
  }
}
