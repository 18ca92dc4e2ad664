/**
 * @module submit-keys — the embedded store's dedupe and debounce keys (as enqueue-1.lua keeps
 * `dedupe:<key>` and `debounce:<key>`): which submits of a batch are answered by a task
 * already stored, and the keys a stored task takes.
 */
import { sealPayload } from "../../core/secret-headers.ts";
import { plainCallback } from "../../core/callback.ts";
import type { NewTask } from "../../core/task.ts";
import { ExpiringMap } from "./expiring-map.ts";
import { NO_IDS, type Row } from "./row.ts";

/** A submit answered by a stored task: a dedupe hit, or a debounce hit to re-arm. */
export type KeyHit =
  | { kind: "dedupe"; id: string }
  | { kind: "debounce"; id: string; firstAt: number };

interface Burst {
  id: string;
  /** The `now` of the burst's first submit: maxWait counts from it. */
  firstAt: number;
}

export class SubmitKeys {
  /** Dedupe key → the first task's id, until the first submit's now + ttl. */
  readonly #dedupe = new ExpiringMap<string>();
  /** Debounce key → its burst, until the burst's runAt (then its run is due: a new burst). */
  readonly #debounce = new ExpiringMap<Burst>();

  /**
   * Per task of a batch, the stored task that answers it, or undefined to store it. Earlier
   * tasks of the batch count; a debounce burst counts only while its task is `waiting(id)`
   * (still scheduled, never promoted).
   */
  hits(tasks: NewTask[], now: number, waiting: (id: string) => boolean): (KeyHit | undefined)[] {
    this.#dedupe.prune(now);
    this.#debounce.prune(now);
    const deduped = new Map<string, string>();
    const bursts = new Map<string, Burst>();
    return tasks.map((task): KeyHit | undefined => {
      if (task.dedupe) {
        const first = deduped.get(task.dedupe.key) ?? this.#dedupe.get(task.dedupe.key, now);
        if (first !== undefined) return { kind: "dedupe", id: first };
      }
      if (task.debounce) {
        const key = task.debounce.key;
        const stored = this.#debounce.get(key, now);
        const burst = bursts.get(key) ?? (stored && waiting(stored.id) ? stored : undefined);
        if (burst) return { kind: "debounce", ...burst };
      }
      // Stored: later tasks of the batch find its keys taken.
      if (task.dedupe) deduped.set(task.dedupe.key, task.id);
      // Only a task that waits starts a burst (the Scheduler's always does).
      if (task.debounce && task.runAt !== null && task.runAt > now) {
        bursts.set(task.debounce.key, { id: task.id, firstAt: now });
      }
      return undefined;
    });
  }

  /** The keys `task`, just stored, takes. */
  took(task: NewTask, now: number): void {
    if (task.dedupe) this.#dedupe.set(task.dedupe.key, task.id, now + task.dedupe.ttlMs);
    if (task.debounce && task.runAt !== null && task.runAt > now) {
      this.#debounce.set(task.debounce.key, { id: task.id, firstAt: now }, task.runAt);
    }
  }

  /**
   * The runAt of a debounce hit by `task` at `now`: `delayMs` after now, never past `maxWaitMs`
   * after the burst's first submit. The burst's entry now lasts until then.
   */
  rearmAt(task: NewTask, hit: { id: string; firstAt: number }, now: number): number {
    const { key, delayMs, maxWaitMs } = task.debounce!;
    const runAt = maxWaitMs === null
      ? now + delayMs
      : Math.min(now + delayMs, hit.firstAt + maxWaitMs);
    this.#debounce.set(key, { id: hit.id, firstAt: hit.firstAt }, runAt);
    return runAt;
  }

  /** Live entries (tests: the maps stay bounded). */
  get size(): number {
    return this.#dedupe.size + this.#debounce.size;
  }
}

/** A waiting debounced row takes the spec of the submit that re-armed it, keeping its id. */
export function respec(row: Row, task: NewTask, runAt: number): void {
  const { shown, secrets } = sealPayload(task.type, task.payload);
  row.payloadJson = JSON.stringify(shown ?? null);
  row.secrets = secrets;
  row.type = task.type;
  row.pool = task.pool;
  row.priority = task.priority;
  row.maxRetries = task.maxRetries;
  row.maxStalls = task.maxStalls;
  row.timeoutMs = task.timeoutMs;
  row.backoff = task.backoff;
  row.createdAt = task.createdAt;
  row.scheduleId = task.scheduleId;
  row.dependsOn = task.dependsOn.length > 0 ? [...task.dependsOn] : NO_IDS;
  row.onSuccessOf = task.onSuccessOf;
  row.onFailureOf = task.onFailureOf;
  // The burst's last submit's trace (the body the script stores is that submit's).
  row.traceparent = task.traceparent ?? null;
  row.callback = task.callback ? plainCallback(task.callback) : null;
  row.runAt = runAt;
}
