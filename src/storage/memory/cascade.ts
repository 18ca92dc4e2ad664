/**
 * @module cascade — workflow cascades in the embedded store, in bounded steps, exactly as
 * lua/includes/finish.lua runs them: a parent that ends settles its waiting children
 * breadth first, at most {@link CASCADE_BUDGET} children per storage call; what is left
 * waits in a list that `recoverExpired` continues. No recursion, so no depth limit.
 */

/** Children examined per storage call (the Lua scripts use the same number). */
export const CASCADE_BUDGET = 1000;

export type EndStatus = "succeeded" | "dead" | "cancelled" | "expired";

/** A parent whose children still need settling, from child `offset` on. */
export interface CascadeEntry {
  parentId: string;
  status: EndStatus;
  offset: number;
  /** Taken from the deferred list (its parent left the finished index meanwhile). */
  fromList: boolean;
}

/** What the cascade needs from the store. */
export interface CascadeHost {
  /** The parent's children ids, in the order they were added. */
  children(parentId: string): readonly string[];
  /** Settles one child of a parent that ended in `status` (may end it: see {@link Cascade.ended}). */
  settle(childId: string, parentId: string, status: EndStatus, now: number): void;
  /** A deferred parent leaves row retention (false) until its cascade is done (true). */
  retain(parentId: string, status: EndStatus, prunable: boolean, now: number): void;
}

export class Cascade {
  readonly #host: CascadeHost;
  /** Deferred to a later call, oldest first. */
  readonly deferred: CascadeEntry[] = [];
  #queue: CascadeEntry[] = [];
  #head = 0;
  #budget = CASCADE_BUDGET;
  #draining = false;
  #now = 0;

  constructor(host: CascadeHost) {
    this.#host = host;
  }

  /** A task ended in `status`: settle its children now, as far as the budget goes. */
  ended(parentId: string, status: EndStatus, hasChildren: boolean, now: number): void {
    this.#now = Math.max(this.#now, now);
    if (hasChildren) this.#queue.push({ parentId, status, offset: 0, fromList: false });
    if (!this.#draining) this.#drain();
  }

  /** Takes up to `limit` deferred parents and settles what the budget allows. */
  continue(limit: number, now: number): void {
    this.#now = Math.max(this.#now, now);
    this.#queue.push(...this.deferred.splice(0, limit));
    this.#drain();
  }

  /** Ends a storage call: saves what is left for later; true when anything is left. */
  endCall(): boolean {
    for (let i = this.#head; i < this.#queue.length; i++) {
      const e = this.#queue[i];
      if (!e.fromList) this.#host.retain(e.parentId, e.status, false, this.#now);
      this.deferred.push({ ...e, fromList: true });
    }
    this.#queue = [];
    this.#head = 0;
    this.#budget = CASCADE_BUDGET;
    this.#now = 0;
    return this.deferred.length > 0;
  }

  #drain(): void {
    this.#draining = true;
    while (this.#head < this.#queue.length && this.#budget > 0) {
      const e = this.#queue[this.#head];
      const want = this.#budget;
      const ids = this.#host.children(e.parentId).slice(e.offset, e.offset + want);
      this.#budget -= ids.length;
      for (const id of ids) this.#host.settle(id, e.parentId, e.status, this.#now);
      if (ids.length < want) {
        this.#head++;
        if (e.fromList) this.#host.retain(e.parentId, e.status, true, this.#now);
      } else {
        e.offset += ids.length;
      }
    }
    this.#draining = false;
  }
}
