/**
 * @module enqueue-coalescer — concurrent one-task submits share one `enqueue` call: while
 * `maxInFlight` calls are out, later submits wait and go together when one comes back, as one
 * batch (one Lua script on Redis instead of one each). An idle store gets each submit at once,
 * alone, so coalescing adds no wait; under load the batches grow by themselves.
 *
 * Every submit keeps the answer it would have had alone. A batch is all or none, so when a
 * store refuses one (an id or key in use, an unknown parent, a full store), nothing of it was
 * stored and each of its submits is sent again alone, in the order they came: each gets its
 * own answer or error, as if they had come one after another. Only a storage fault (the
 * store unreachable, no answer in time) is every member's answer: it would have been each
 * one's alone too, and whether the batch was stored is unknown, exactly as for one submit.
 * The store decides within a batch as in a sequence (a dedupe key taken by an earlier task
 * answers a later one; parents may be earlier tasks), with the latest `now` of its members.
 */
import { isStorageFault } from "../core/errors.ts";
import type { NewTask } from "../core/task.ts";
import type { QueueStore } from "../storage/storage.ts";
import type { Enqueued } from "../storage/storage.ts";

/** Calls out at once before submits start to wait: one being run, one on its way. */
const MAX_IN_FLIGHT = 2;
/** Most submits in one call: bounds how long one script holds the store. */
const MAX_BATCH = 100;

interface Waiting {
  task: NewTask;
  now: number;
  resolve(answer: Enqueued): void;
  reject(error: unknown): void;
}

export class EnqueueCoalescer {
  readonly #store: Pick<QueueStore, "enqueue">;
  #inFlight = 0;
  #waiting: Waiting[] = [];

  constructor(store: Pick<QueueStore, "enqueue">) {
    this.#store = store;
  }

  /** Stores `task` as `enqueue({ tasks: [task], now })` would, perhaps with others. */
  enqueue(task: NewTask, now: number): Promise<Enqueued> {
    if (this.#inFlight < MAX_IN_FLIGHT) return this.#alone(task, now);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ task, now, resolve, reject });
    });
  }

  async #alone(task: NewTask, now: number): Promise<Enqueued> {
    this.#inFlight++;
    try {
      return (await this.#store.enqueue({ tasks: [task], now }))[0];
    } finally {
      this.#inFlight--;
      this.#next();
    }
  }

  /** Sends what waits, while calls may go out. */
  #next(): void {
    while (this.#inFlight < MAX_IN_FLIGHT && this.#waiting.length > 0) {
      const group = this.#waiting.splice(0, MAX_BATCH);
      if (group.length === 1) {
        const [w] = group;
        this.#alone(w.task, w.now).then(w.resolve, w.reject);
      } else {
        void this.#together(group);
      }
    }
  }

  async #together(group: Waiting[]): Promise<void> {
    this.#inFlight++;
    let now = group[0].now;
    for (const w of group) if (w.now > now) now = w.now;
    try {
      const answers = await this.#store.enqueue({ tasks: group.map((w) => w.task), now });
      for (let k = 0; k < group.length; k++) group[k].resolve(answers[k]);
    } catch (error) {
      if (isStorageFault(error)) {
        for (const w of group) w.reject(error);
      } else {
        // Nothing of the batch was stored: each again alone, in order (a store takes calls
        // in the order they are made), so each gets its own answer.
        for (const w of group) this.#retryAlone(w);
      }
    } finally {
      this.#inFlight--;
      this.#next();
    }
  }

  #retryAlone(w: Waiting): void {
    try {
      this.#store.enqueue({ tasks: [w.task], now: w.now }).then((a) => w.resolve(a[0]), w.reject);
    } catch (error) {
      w.reject(error);
    }
  }
}
