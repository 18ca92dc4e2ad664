/**
 * @module expiring-map — the embedded store's dedupe and debounce entries (Redis: the
 * `dedupe:<key>` and `debounce:<key>` strings with a TTL): a value per key until a time on
 * the callers' clock. Expired entries are dropped on each write, earliest expiry first, so
 * the map holds only the entries still live.
 */
import { Heap } from "../../core/heap.ts";

interface Expiry {
  key: string;
  expiresAt: number;
}

export class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #expiries = new Heap<Expiry>((a, b) => a.expiresAt < b.expiresAt);

  /** The value of `key` at `now`, or undefined (none, or expired). */
  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    return entry && entry.expiresAt > now ? entry.value : undefined;
  }

  /** `key` holds `value` until `expiresAt` (exclusive). */
  set(key: string, value: V, expiresAt: number): void {
    this.#entries.set(key, { value, expiresAt });
    this.#expiries.push({ key, expiresAt });
  }

  /** Drops the entries expired at `now` (an entry set again since is kept). */
  prune(now: number): void {
    for (let next = this.#expiries.peek(); next && next.expiresAt <= now;) {
      this.#expiries.pop();
      if (this.#entries.get(next.key)?.expiresAt === next.expiresAt) {
        this.#entries.delete(next.key);
      }
      next = this.#expiries.peek();
    }
  }

  /** Live entries (tests: the map stays bounded). */
  get size(): number {
    return this.#entries.size;
  }
}
