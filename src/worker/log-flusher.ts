/**
 * @module log-flusher — writes running attempts' `ctx.log` lines before their settle: within
 * LOG_FLUSH_MS of a line being logged, for every attempt with lines waiting (one storage
 * call for all of them), and at once for an attempt with LOG_FLUSH_LINES waiting. So a long
 * attempt's lines are readable while it runs, and a crash loses at most the lines since the
 * last write (lease recovery keeps the earlier ones). A write the store refuses or does not
 * answer keeps the lines for the next one, or the settle; the store skips lines it already
 * holds. The timer is armed only while lines wait: handlers that never log cost no wake-ups.
 */
import type { Clock } from "../core/clock.ts";
import { isStorageFault, toErrorInfo } from "../core/errors.ts";
import { logLine } from "../core/task-log.ts";
import type { QueueStore } from "../storage/storage.ts";
import { AttemptLog } from "./attempt-log.ts";
import type { Logger } from "./middleware.ts";
import type { Attempt } from "./runner.ts";

/** How long a logged line waits at most (a store that answers) before it is written. */
export const LOG_FLUSH_MS = 5_000;
/** ...and how many lines of one attempt are written at once, without waiting for that. */
export const LOG_FLUSH_LINES = 100;
/** About how many bytes of lines one write carries (at least one attempt's). */
const FLUSH_CALL_BYTES = 1_048_576;

export class LogFlusher {
  #timer: unknown;
  #stopped = true;
  #failing = false;

  constructor(
    private readonly storage: Pick<QueueStore, "appendLogs">,
    private readonly clock: Clock,
    private readonly running: Map<string, Attempt>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.#stopped = false;
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.clock.clearTimer(this.#timer);
    this.#timer = undefined;
  }

  /** `ctx.log` of attempt number `n` of `attempt`: never throws into the handler. */
  log(attempt: Attempt, n: number, message: unknown, fields: unknown): void {
    try {
      const log = attempt.log ??= new AttemptLog();
      log.add(logLine(message, fields, this.clock.now(), n));
      // While the store fails, only the timer tries again: no write per line logged.
      const now = log.pending >= LOG_FLUSH_LINES && !log.flushing && !this.#failing;
      if (now) void this.flush([attempt]);
      else this.#arm(true);
    } catch (error) {
      this.logger.warn("ctx.log dropped a line", { error: toErrorInfo(error).message });
    }
  }

  /**
   * A write of every waiting line LOG_FLUSH_MS from now, unless one is armed or no line
   * waits (`waiting`: the caller knows one does, so running attempts are not scanned).
   */
  #arm(waiting = false): void {
    if (this.#stopped || this.#timer !== undefined) return;
    waiting ||= [...this.running.values()].some((a) => !a.ended && a.log?.pending);
    if (!waiting) return;
    this.#timer = this.clock.setTimer(() => {
      this.#timer = undefined;
      void this.flush([...this.running.values()]);
    }, LOG_FLUSH_MS);
    this.clock.unrefTimer?.(this.#timer);
  }

  /**
   * Writes the waiting lines of those attempts still running with no write in flight, in
   * calls of about FLUSH_CALL_BYTES each (one script's work stays small however many
   * attempts log), one after the other; arms the next write when lines still wait. Never
   * rejects.
   */
  async flush(attempts: Attempt[]): Promise<void> {
    const due = attempts.filter((a) => !a.ended && a.log && !a.log.flushing && a.log.pending);
    for (const a of due) a.log!.flushing = true;
    try {
      let from = 0;
      while (from < due.length) {
        let to = from + 1;
        let bytes = due[from].log!.bytes;
        while (to < due.length && bytes + due[to].log!.bytes <= FLUSH_CALL_BYTES) {
          bytes += due[to++].log!.bytes;
        }
        if (!(await this.#write(due.slice(from, to)))) break;
        from = to;
      }
    } finally {
      for (const a of due) a.log!.flushing = false;
      this.#arm();
    }
  }

  /** One call: true when the store answered (a fault keeps the lines for the next try). */
  async #write(attempts: Attempt[]): Promise<boolean> {
    const leases = attempts.map((a) => ({ ...a.lease, logs: a.log!.batch() }));
    try {
      const held = await this.storage.appendLogs({ leases, now: this.clock.now() });
      // Lines of an attempt the store refused stay: its settle (or nobody) stores them.
      attempts.forEach((a, i) => {
        if (held[i]) a.log!.confirm(leases[i].logs!);
      });
      if (this.#failing) this.logger.info("log lines are stored again");
      this.#failing = false;
      return true;
    } catch (error) {
      if (!isStorageFault(error) || !this.#failing) {
        this.logger.warn("storing log lines failed: kept for the next try", {
          error: toErrorInfo(error).message,
        });
      }
      this.#failing = isStorageFault(error);
      return false;
    }
  }
}
