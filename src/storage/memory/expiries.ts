/**
 * @module expiries — the embedded store's expiry index, as Redis keeps the `expiries` zset:
 * task id → expiresAt, read earliest first (ties by id, as a zset orders equal scores).
 * An entry is dropped when the expiry duty or a claim reads it, or a resubmit clears the
 * expiry; entries of tasks that started or finished meanwhile are dropped lazily then.
 */
import { Heap } from "../../core/heap.ts";

interface Entry {
  at: number;
  id: string;
  /** Which add made it: an entry whose id was dropped or re-added since is stale. */
  gen: number;
}

const earliest = (a: Entry, b: Entry) => (a.at !== b.at ? a.at < b.at : a.id < b.id);

export class ExpiryIndex {
  readonly #live = new Map<string, { at: number; gen: number }>();
  readonly #heap = new Heap<Entry>(earliest);
  #gen = 0;

  /** ZADD: adds `id` at `at`, or moves it there. */
  add(id: string, at: number): void {
    if (this.#live.get(id)?.at === at) return;
    const gen = ++this.#gen;
    this.#live.set(id, { at, gen });
    this.#heap.push({ at, id, gen });
  }

  /** ZREM. */
  delete(id: string): void {
    this.#live.delete(id);
  }

  /** Whether any entry is due at `now` (the claim checks its tasks only then). */
  anyDue(now: number): boolean {
    const head = this.#head();
    return head !== undefined && head.at <= now;
  }

  /** Removes and returns up to `limit` entries due at `now`, earliest first. */
  popDue(now: number, limit: number): string[] {
    const out: string[] = [];
    for (let head; out.length < limit && (head = this.#head()) && head.at <= now;) {
      this.#heap.pop();
      this.#live.delete(head.id);
      out.push(head.id);
    }
    return out;
  }

  /** Entries due at or before `until`, earliest first (for arming the wheel). */
  dueBy(until: number, limit: number): { id: string; at: number }[] {
    return [...this.#live].filter(([, e]) => e.at <= until)
      .sort(([a, x], [b, y]) => x.at - y.at || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, limit).map(([id, e]) => ({ id, at: e.at }));
  }

  /** The earliest live entry, dropping stale heap entries on the way. */
  #head(): Entry | undefined {
    for (let e; (e = this.#heap.peek());) {
      if (this.#live.get(e.id)?.gen === e.gen) return e;
      this.#heap.pop();
    }
    return undefined;
  }
}
