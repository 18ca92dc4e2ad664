/**
 * @module faulty-storage — wraps any Storage and injects the faults a real store has: a
 * call that is refused before it reaches the store (`reject`: a dropped connection), a call
 * that takes effect but whose reply is lost (`lose-reply`), and a call held until the test
 * lets it go (`hang`: a stalled Redis; it then runs, late). Faulted calls throw
 * StorageUnavailableError, exactly what the Redis store throws for the real thing.
 */
import { StorageUnavailableError } from "../../src/core/errors.ts";
import type { Storage } from "../../src/storage/storage.ts";
import { gate } from "../../scripts/tools/wait.ts";

export type FaultKind = "reject" | "lose-reply" | "hang";
type Method = Exclude<keyof Storage, "name" | "subscribe">;

interface Rule {
  kind: FaultKind;
  /** Calls left to fault; Infinity until healed. */
  left: number;
}

/** The faults in force, and what they did. */
export class Faults {
  readonly #rules = new Map<string, Rule>();
  #held = gate();
  /** `method:kind` of every call a fault was applied to, in order. */
  readonly applied: string[] = [];
  /** Every call that reached the wrapped store, by method. */
  readonly reached = new Map<string, number>();

  /** Faults the next `times` calls of `method` (every call until healed by default). */
  inject(method: Method, kind: FaultKind, times = Infinity): this {
    this.#rules.set(method, { kind, left: times });
    return this;
  }

  /** Ends the fault on `method` (every method without an argument) and lets held calls run. */
  heal(method?: Method): void {
    if (method) this.#rules.delete(method);
    else this.#rules.clear();
    this.#held.open();
    this.#held = gate();
  }

  /** The fault to apply to this call of `method`, if any. */
  take(method: string): FaultKind | null {
    const rule = this.#rules.get(method);
    if (!rule || rule.left <= 0) return null;
    rule.left--;
    this.applied.push(`${method}:${rule.kind}`);
    return rule.kind;
  }

  /** Resolves when the held calls may go on. */
  held(): Promise<void> {
    return this.#held.promise;
  }

  count(method: string): void {
    this.reached.set(method, (this.reached.get(method) ?? 0) + 1);
  }
}

/** Wraps `inner`: calls go through unless `faults` says otherwise. */
export function faultyStorage(inner: Storage, faults: Faults): Storage {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (prop === "subscribe") return value.bind(target);
      return async (...args: unknown[]) => {
        const kind = faults.take(String(prop));
        if (kind === "reject") throw new StorageUnavailableError("unreachable", "injected");
        if (kind === "hang") await faults.held();
        faults.count(String(prop));
        const result = await value.apply(target, args);
        if (kind === "lose-reply") {
          throw new StorageUnavailableError("unreachable", "injected: the reply was lost");
        }
        return result;
      };
    },
  });
}
