/**
 * @module flows — the embedded store's flow control keys, as lua/includes/flow-*.lua keep
 * them in Redis: per key its limits (the latest submit's), running and unfinished tasks,
 * start log, parked tasks (queued, held back by a limit, in their queue order) and the
 * marker that wakes a rate-parked key when its next token frees.
 */
import { Heap } from "../../core/heap.ts";
import type { FlowControl, FlowWaitingFor } from "../../core/task.ts";
import {
  FLOW_KEYS_LISTED,
  FLOW_KEYS_SCAN,
  type FlowKeyStats,
  type StorageEvent,
} from "../types.ts";
import type { Row } from "./task-table.ts";
import { logNextAt, logStarts, logTokens } from "./start-log.ts";

/** Candidates a claim may scan past its `max` (parking those of keys at their limit). */
export const FLOW_SCAN_EXTRA = 64;

/** Parked tasks one call moves back to ready per key; the rest follow in later calls. */
export const FLOW_UNPARK_BOUND = 100;

/** Due rate wakes one claim takes first (the rest: later claims, promoteDue). */
export const FLOW_DUE_BOUND = 16;

/**
 * A flow key not submitted for this long, with nothing running or parked, is forgotten by
 * the recovery duty (its limits come back from the next task of it a claim meets).
 */
export const FLOW_IDLE_TTL_MS = 86_400_000;

/** How long Redis keeps a key's start log past its period (Redis's clock may run ahead). */
export const FLOW_STARTS_GRACE_MS = 60_000;

/** A queued task's place: priority first, then FIFO by seq. */
export type QueuePlace = Pick<Parked, "priority" | "seq">;

interface Parked {
  priority: number;
  seq: number;
  id: string;
}

interface Flow {
  limits: Pick<FlowControl, "parallelism" | "rate" | "periodMs">;
  running: number;
  parked: Heap<Parked>;
  /** Live entries of `parked` (cancelled rows stay in the heap until popped). */
  parkedCount: number;
}

/** What the flows need from the task table. */
export interface FlowDeps {
  rows: ReadonlyMap<string, Row>;
  /** Puts a queued row back in its pool's ready queue (same priority and seq). */
  pushReady(row: Row): void;
  emit(event: StorageEvent): void;
}

const before = (a: Parked, b: Parked) =>
  a.priority !== b.priority ? a.priority > b.priority : a.seq < b.seq;

export class FlowTable {
  readonly #d: FlowDeps;
  readonly #flows = new Map<string, Flow>();
  /** Keys by their last submit (or restore): the sweep's index (Redis: flowkeys). */
  readonly #seen = new Map<string, number>();
  /** Start times per key, ascending (flowstarts:<key>). */
  readonly #starts = new Map<string, number[]>();
  /** Rate wake-ups: key -> when (the `~<key>` markers of the delayed set). */
  readonly wakes = new Map<string, number>();
  /** The earliest wake armed or found armed since {@link armed} was last read. */
  #armed: number | undefined;
  /** Keys that started a task under a rate limit since then. */
  readonly #rated = new Set<string>();
  /** Parked tasks per pool (they count as queued). */
  readonly parkedByPool = new Map<string, number>();

  constructor(deps: FlowDeps) {
    this.#d = deps;
  }

  #flow(key: string): Flow {
    let f = this.#flows.get(key);
    if (!f) {
      f = {
        limits: { parallelism: null, rate: null, periodMs: null },
        running: 0,
        parked: new Heap(before),
        parkedCount: 0,
      };
      this.#flows.set(key, f);
    }
    return f;
  }

  /** The key's rate tokens at `now` (Infinity: no rate), after trimming its log. */
  #tokens(key: string, f: Flow, now: number): number {
    const { rate, periodMs } = f.limits;
    if (rate === null || periodMs === null) return Infinity;
    const log = this.#starts.get(key) ?? [];
    const tokens = logTokens(log, rate, periodMs, now);
    if (log.length === 0) this.#starts.delete(key);
    return tokens;
  }

  /** How many more tasks of `key` may start now, and the limit that binds when none may. */
  room(key: string, now: number): { room: number; why: FlowWaitingFor | null } {
    const f = this.#flow(key);
    const par = f.limits.parallelism;
    if (par !== null && f.running >= par) return { room: 0, why: "parallelism" };
    const tokens = this.#tokens(key, f, now);
    if (tokens <= 0) return { room: 0, why: "rate" };
    return { room: Math.min(par !== null ? par - f.running : Infinity, tokens), why: null };
  }

  /** The key's first parked task (its queue position), or null. */
  parkedHead(key: string): Parked | null {
    const f = this.#flows.get(key);
    if (!f || f.parkedCount === 0) return null;
    for (;;) {
      const entry = f.parked.peek()!;
      if (this.#live(entry)) return entry;
      f.parked.pop();
    }
  }

  #live(entry: Parked): boolean {
    const row = this.#d.rows.get(entry.id);
    return !!row && row.status === "queued" && row.waitingFor !== null && row.seq === entry.seq;
  }

  /** A claim takes a task of `key`: one more running, its start logged. */
  started(key: string, now: number): void {
    const f = this.#flow(key);
    f.running++;
    if (f.limits.rate === null) return;
    this.#rated.add(key);
    let log = this.#starts.get(key);
    if (!log) this.#starts.set(key, log = []);
    logStarts(log, 1, now);
  }

  /** Parks a queued row popped from its ready queue. */
  park(row: Row, key: string, why: FlowWaitingFor): void {
    const f = this.#flow(key);
    f.parked.push({ priority: row.priority, seq: row.seq, id: row.id });
    f.parkedCount++;
    row.waitingFor = why;
    this.parkedByPool.set(row.pool, (this.parkedByPool.get(row.pool) ?? 0) + 1);
  }

  /** A parked row leaves `queued` (cancelled): its heap entry goes stale. */
  left(row: Row, key: string): void {
    row.waitingFor = null;
    const f = this.#flows.get(key);
    if (f) f.parkedCount--;
    this.parkedByPool.set(row.pool, (this.parkedByPool.get(row.pool) ?? 0) - 1);
  }

  /** Arms the key's wake for `at`; an earlier one stays (it re-arms when it fires). */
  wakeAt(key: string, at: number): void {
    const current = this.wakes.get(key);
    const due = current !== undefined && current < at ? current : at;
    if (this.#armed === undefined || due < this.#armed) this.#armed = due;
    if (current !== undefined && current <= at) return;
    this.wakes.set(key, at);
    this.#d.emit({ kind: "delayed", id: `~${key}`, runAt: at });
  }

  /** When the key's next token frees: its oldest start in the window + period (see logNextAt). */
  nextToken(key: string, now: number): number {
    return logNextAt(this.#starts.get(key) ?? [], this.#flow(key).limits.periodMs!, now);
  }

  /**
   * Moves the key's first parked rows back to ready, as many as it has room for and at most
   * `most` (default and at most FLOW_UNPARK_BOUND), and makes sure the rest have a wake coming.
   */
  unpark(key: string, now: number, most?: number): void {
    const f = this.#flows.get(key);
    if (!f || f.parkedCount === 0) return;
    const { room, why } = this.room(key, now);
    let n = Math.min(room, most ?? FLOW_UNPARK_BOUND);
    while (n > 0 && f.parked.size > 0) {
      const entry = f.parked.pop()!;
      if (!this.#live(entry)) continue;
      const row = this.#d.rows.get(entry.id)!;
      n--;
      f.parkedCount--;
      row.waitingFor = null;
      this.parkedByPool.set(row.pool, this.parkedByPool.get(row.pool)! - 1);
      this.#d.pushReady(row);
      this.#d.emit({ kind: "ready", pool: row.pool });
    }
    if (f.parkedCount === 0) return;
    if (room > FLOW_UNPARK_BOUND && most === undefined) this.wakeAt(key, now);
    else if (why === "rate" || (f.limits.rate !== null && room === this.#tokens(key, f, now))) {
      this.wakeAt(key, this.nextToken(key, now));
    }
  }

  /**
   * A task of `key` stopped running: its slot frees for one parked row (more room is the
   * rate's, whose wake unparks it; lua flowStopped). An idle key (nothing running or
   * parked) is forgotten; its next claim restores its limits (restore()).
   */
  stopped(key: string, now: number): void {
    const f = this.#flow(key);
    f.running--;
    if (f.parkedCount > 0) this.unpark(key, now, 1);
  }

  /**
   * Forgets keys not submitted for FLOW_IDLE_TTL_MS with nothing running or parked, at most
   * `limit` (lua flowSweep: the recovery duty); a key in use is looked at a period later.
   */
  sweep(now: number, limit: number): void {
    const stale = [...this.#seen].filter(([, at]) => at <= now - FLOW_IDLE_TTL_MS)
      .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0)).slice(0, limit);
    for (const [key] of stale) {
      const f = this.#flows.get(key);
      if (f && (f.running > 0 || f.parkedCount > 0)) {
        this.#seen.set(key, now);
        continue;
      }
      this.#seen.delete(key);
      this.#flows.delete(key);
      // Its start log goes once no window can hold its starts (Redis: the log's PEXPIRE).
      const log = this.#starts.get(key), per = f?.limits.periodMs ?? 0;
      if (!log || log[log.length - 1] <= now - per) this.#starts.delete(key);
    }
  }

  /** A forgotten key gets back the limits `row` was submitted with. */
  restore(key: string, row: Row, now: number): void {
    const f = this.#flow(key);
    if (f.limits.parallelism !== null || f.limits.rate !== null) return;
    this.#seen.set(key, now);
    if (row.flowControl) f.limits = limitsOf(row.flowControl);
  }

  /** A submit sets the key's limits (the latest submit's). */
  setLimits(fc: FlowControl, now: number): void {
    this.#seen.set(fc.key, now);
    this.#flow(fc.key).limits = limitsOf(fc);
  }

  /**
   * Keys with work running or parked among the FLOW_KEYS_SCAN last submitted, newest first
   * (ties: by key, descending, as ZREVRANGE of flowkeys), at most FLOW_KEYS_LISTED.
   */
  busy(): FlowKeyStats[] {
    const newest = [...this.#seen].sort(([a, x], [b, y]) => y - x || (a < b ? 1 : a > b ? -1 : 0))
      .slice(0, FLOW_KEYS_SCAN);
    const out: FlowKeyStats[] = [];
    for (const [key] of newest) {
      const f = this.#flows.get(key);
      if (!f || (f.running === 0 && f.parkedCount === 0)) continue;
      out.push({ key, ...f.limits, running: f.running, parked: f.parkedCount });
      if (out.length === FLOW_KEYS_LISTED) break;
    }
    return out;
  }

  /**
   * The earliest wake of the keys armed, found armed or drawn on for tokens (with parked
   * rows) since the last read, and forgets them (lua flowArmed): a claim answers it, so its
   * worker's own timer wakes a key it drained.
   */
  armed(): number | undefined {
    for (const key of this.#rated) {
      const at = this.#flows.get(key)?.parkedCount ? this.wakes.get(key) : undefined;
      if (at !== undefined && (this.#armed === undefined || at < this.#armed)) this.#armed = at;
    }
    const at = this.#armed;
    this.#armed = undefined;
    this.#rated.clear();
    return at;
  }

  /** Unparks the keys whose wake is due at `now` (a claim does this first). */
  due(now: number): void {
    if (this.wakes.size === 0) return;
    for (const { key } of this.dueWakes(now).slice(0, FLOW_DUE_BOUND)) {
      this.wakes.delete(key);
      this.unpark(key, now);
    }
  }

  /** Due wakes at `now`, earliest first (ties: by key, as the markers sort in Redis). */
  dueWakes(until: number): { key: string; at: number }[] {
    if (this.wakes.size === 0) return [];
    const out: { key: string; at: number }[] = [];
    for (const [key, at] of this.wakes) if (at <= until) out.push({ key, at });
    return out.sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

/** Whether `row` comes after `head` in queue order (priority first, then FIFO). */
export function sortsAfter(row: QueuePlace, head: QueuePlace): boolean {
  return head.priority !== row.priority ? head.priority > row.priority : head.seq < row.seq;
}

const limitsOf = (fc: FlowControl) => ({
  parallelism: fc.parallelism,
  rate: fc.rate,
  periodMs: fc.periodMs,
});
