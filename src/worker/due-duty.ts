/**
 * @module due-duty — a duty that acts on work due by a time kept in the store (delayed tasks,
 * expiries), through the timing wheel: one wheel entry per due tick, armed by events and by a
 * look-ahead scan on start and every `lookAheadMs / 2` (which also covers events missed
 * while disconnected). Each firing runs bounded storage passes until one comes back short;
 * concurrent firings coalesce into one more run, and a failed run is retried with back-off
 * rather than left to the next scan. The store decides each item once, however many
 * instances fire for the same tick.
 *
 * On a partitioned store (`parts` > 1) each wheel entry, run and retry is one partition's
 * (events say which), and each scan reads one partition, the next one each time, looking
 * far enough ahead to cover it until its next turn: an idle worker's scans cost the same
 * however many partitions there are.
 */
import type { Clock } from "../core/clock.ts";
import type { TimingWheel } from "../core/timing-wheel.ts";
import type { Logger } from "./middleware.ts";
import { Periodic } from "./periodic.ts";
import { ExactTimer } from "./exact-timer.ts";

/** A run the store could not take is tried again after this back-off (doubling). */
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;

/** How many due times one look-ahead scan reads. */
const SCAN_LIMIT = 10_000;

export interface DueDutyOptions {
  clock: Clock;
  wheel: TimingWheel;
  logger: Logger;
  tickMs: number;
  lookAheadMs: number;
  /** The store's partitions (Storage.partitions; default 1). */
  parts?: number;
  /**
   * Act at each due time (rounded up to a grid of this many ms, 1 to the tick) rather than at
   * the start of the wheel tick after it: the wheel wakes the duty when a due time's tick
   * opens, and an {@link ExactTimer} takes it from there (lateness about half the grid instead
   * of half a tick, at the price of a storage pass per grid step with work due instead of per
   * tick). One partition only. Default 0: at the tick.
   */
  exactGridMs?: number;
}

/** What a due duty does: where its due times come from, and one bounded pass. */
export interface DueWork {
  /** The wheel entries' prefix and the log's word for a failed run ("promote", "expiry"). */
  name: string;
  /** The look-ahead scan's name in logs. */
  scanName: string;
  /** Due times up to `until`, at most `limit` (of partition `part` only, when given). */
  due(until: number, limit: number, part?: number): Promise<number[]>;
  /** One bounded pass over what is due at `now`; true when it may have left some. */
  pass(now: number, part?: number): Promise<boolean>;
}

/** One partition's runs (the key `undefined`: the whole store's). */
interface Runs {
  running: Promise<void> | null;
  again: boolean;
  retryMs: number;
  retry: unknown;
}

export class DueDuty {
  readonly #o: DueDutyOptions;
  readonly #work: DueWork;
  readonly #scan: Periodic;
  readonly #parts: number;
  /** How far ahead a scan arms: one partition's scans are `parts` intervals apart. */
  readonly #horizonMs: number;
  #nextScan = 0;
  readonly #runs = new Map<number | undefined, Runs>();
  #stopped = true;
  /** Exact mode: per wheel tick not yet opened, the distinct due ms within it. */
  readonly #waiting = new Map<number, number[]>();
  readonly #exact: ExactTimer | null;
  readonly #grid: number;

  constructor(options: DueDutyOptions, work: DueWork) {
    this.#o = options;
    this.#work = work;
    this.#parts = Math.max(1, options.parts ?? 1);
    const interval = Math.max(options.tickMs, Math.floor(options.lookAheadMs / 2));
    this.#horizonMs = options.lookAheadMs + (this.#parts - 1) * interval;
    const grid = options.exactGridMs ?? 0;
    this.#grid = Math.min(options.tickMs, Math.max(1, Math.floor(grid)));
    this.#exact = grid > 0 && this.#parts === 1
      ? new ExactTimer(options.clock, () => void this.run())
      : null;
    this.#scan = new Periodic(
      work.scanName,
      interval,
      () => this.step(),
      options.clock,
      options.logger,
    );
  }

  start(): void {
    this.#stopped = false;
    this.#scan.start();
  }

  stop(): void {
    this.#stopped = true;
    this.#scan.stop();
    for (const runs of this.#runs.values()) {
      if (runs.retry !== undefined) this.#o.clock.clearTimer(runs.retry);
      runs.retry = undefined;
    }
    for (const tick of this.#waiting.keys()) this.#o.wheel.cancel(this.#entry(tick));
    this.#waiting.clear();
    this.#exact?.clear();
  }

  #entry(tick: number, part?: number): string {
    return part === undefined ? `${this.#work.name}:${tick}` : `${this.#work.name}:${part}:${tick}`;
  }

  /** One look-ahead scan (of the next partition): arms the wheel for what is due. */
  async step(): Promise<void> {
    const { clock } = this.#o;
    const part = this.#parts > 1 ? this.#nextScan++ % this.#parts : undefined;
    const due = await this.#work.due(clock.now() + this.#horizonMs, SCAN_LIMIT, part);
    for (const at of due) this.arm(at, part);
  }

  /** Makes sure the duty runs when `at` is due (inside the look-ahead). */
  arm(at: number, part?: number): void {
    const { wheel, clock, tickMs } = this.#o;
    const now = clock.now();
    if (at > now + this.#horizonMs) return; // a later scan arms it
    // One entry per tick of the wheel's own grid: everything due in that tick fires with it,
    // and rounding on any other grid could add a second tick of lateness.
    const tick = wheel.firesAt(at);
    if (this.#exact === null) {
      const id = this.#entry(tick, part);
      if (!wheel.has(id)) wheel.schedule(id, tick, () => this.run(part));
      return;
    }
    // Exact: the wheel entry wakes the duty when the tick opens (its previous tick's start,
    // before any due time in it); the exact timer takes each due time (rounded up to the grid)
    // from there.
    const due = Math.ceil(at / this.#grid) * this.#grid;
    const opens = tick - tickMs;
    if (opens <= now) return this.#exact.add(due);
    let times = this.#waiting.get(tick);
    if (times === undefined) {
      this.#waiting.set(tick, times = []);
      wheel.schedule(this.#entry(tick), opens, () => this.#open(tick));
    }
    if (!times.includes(due)) times.push(due);
  }

  /** The tick's due times go to the exact timer. */
  #open(tick: number): void {
    const times = this.#waiting.get(tick);
    this.#waiting.delete(tick);
    if (times) { for (const at of times) this.#exact!.add(at); }
  }

  #runsOf(part: number | undefined): Runs {
    let runs = this.#runs.get(part);
    if (!runs) {
      runs = { running: null, again: false, retryMs: 0, retry: undefined };
      this.#runs.set(part, runs);
    }
    return runs;
  }

  /** Handles everything due now; concurrent requests coalesce into one more pass. */
  run(part?: number): Promise<void> {
    const runs = this.#runsOf(part);
    if (runs.running) {
      runs.again = true;
      return runs.running;
    }
    runs.running = (async () => {
      try {
        do {
          runs.again = false;
          while (await this.#work.pass(this.#o.clock.now(), part));
        } while (runs.again);
        runs.retryMs = 0;
      } catch (error) {
        // Due work must not wait for the next look-ahead scan: try again soon.
        if (runs.retryMs === 0) {
          this.#o.logger.warn(`${this.#work.name} failed`, {
            error: (error as Error)?.message ?? error,
            ...(part === undefined ? {} : { partition: part }),
          });
        }
        runs.retryMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, runs.retryMs * 2));
        if (runs.retry === undefined && !this.#stopped) {
          runs.retry = this.#o.clock.setTimer(() => {
            runs.retry = undefined;
            this.run(part);
          }, runs.retryMs);
        }
      } finally {
        runs.running = null;
      }
    })();
    return runs.running;
  }
}
