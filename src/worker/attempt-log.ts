/**
 * @module attempt-log — one attempt's `ctx.log` lines, held in the worker until the store
 * has them: they go with the attempt's settle (complete, fail, a hand-back), and while it
 * runs log-flusher.ts writes them now and then. The buffer keeps the newest lines within
 * the task's caps (MAX_TASK_LOG_LINES, MAX_TASK_LOG_BYTES): a handler that logs faster than
 * the store takes lines loses the oldest, and the store counts them as dropped.
 */
import { MAX_TASK_LOG_BYTES, MAX_TASK_LOG_LINES } from "../core/bounds.ts";
import { type LogLine, logLineJson, utf8Bytes } from "../core/task-log.ts";
import type { LogBatch } from "../storage/storage.ts";

export class AttemptLog {
  /** Lines the store may not hold yet, oldest first. */
  #lines: { line: LogLine; bytes: number }[] = [];
  /** The attempt's number for `#lines[0]` (its first line is 1). */
  #first = 1;
  #bytes = 0;
  /** A write of these lines is in flight (log-flusher.ts starts one at a time). */
  flushing = false;

  /** Lines waiting for the store. */
  get pending(): number {
    return this.#lines.length;
  }

  /** Their bytes, as the store counts them (JSON, UTF-8). */
  get bytes(): number {
    return this.#bytes;
  }

  add(line: LogLine): void {
    const bytes = utf8Bytes(logLineJson(line));
    this.#lines.push({ line, bytes });
    this.#bytes += bytes;
    let drop = 0;
    while (
      this.#lines.length - drop > MAX_TASK_LOG_LINES ||
      (this.#bytes > MAX_TASK_LOG_BYTES && drop < this.#lines.length)
    ) {
      this.#bytes -= this.#lines[drop++].bytes;
    }
    if (drop > 0) {
      this.#lines.splice(0, drop);
      this.#first += drop;
    }
  }

  /**
   * Every line the store has not confirmed, numbered for it (a batch sent twice, or lines
   * it got from a write whose reply was lost, are kept once: see LogBatch); undefined when
   * none wait.
   */
  batch(): LogBatch | undefined {
    if (this.#lines.length === 0) return undefined;
    return { from: this.#first, lines: this.#lines.map((l) => l.line) };
  }

  /** The store holds `batch`: its lines leave the buffer (those still in it). */
  confirm(batch: LogBatch): void {
    const held = batch.from + batch.lines.length - this.#first;
    const n = Math.min(this.#lines.length, Math.max(0, held));
    for (let i = 0; i < n; i++) this.#bytes -= this.#lines[i].bytes;
    this.#lines.splice(0, n);
    this.#first += n;
  }
}
