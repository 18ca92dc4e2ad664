/**
 * @module batcher — coalesces calls made in the same tick into one script call.
 *
 * Completions and failures arrive one handler at a time; sending each as its own EVALSHA
 * costs a script invocation apiece. The batcher gathers the calls queued before the next
 * microtask checkpoint and runs them as one script call over many tasks (applied in call
 * order, so the outcome equals running them one by one).
 */

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/** Runs items in batches of at most `max`, one `run` call per batch. */
export class Batcher<I, O> {
  readonly #run: (items: I[]) => Promise<O[]>;
  readonly #max: number;
  #pending: Pending<I, O>[] = [];
  #scheduled = false;

  constructor(run: (items: I[]) => Promise<O[]>, max = 200) {
    this.#run = run;
    this.#max = max;
  }

  /** Queues one item; resolves with its own result once its batch has run. */
  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const all = this.#pending;
    this.#pending = [];
    for (let i = 0; i < all.length; i += this.#max) {
      const chunk = all.slice(i, i + this.#max);
      this.#run(chunk.map((p) => p.item)).then(
        (outs) => chunk.forEach((p, j) => p.resolve(outs[j])),
        (error) => chunk.forEach((p) => p.reject(error)),
      );
    }
  }
}
