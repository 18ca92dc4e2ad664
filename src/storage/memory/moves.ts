/**
 * @module moves — the steps the embedded store's transitions (queue.ts) are made of, as the
 * Lua scripts share them through lua/includes/: insert a task, put an attempt back, fail
 * or finish one (settling workflow children through the bounded cascade), announce what
 * became ready or delayed, and end a call (cascades saved, retention applied).
 */
import { ALL_STATUSES, FINAL_STATUSES, type NewTask, parentConditions } from "../../core/task.ts";
import type { Listeners } from "../listeners.ts";
import type { HistoryRetention, Lease } from "../types.ts";
import { Cascade, type EndStatus } from "./cascade.ts";
import { callbackFor, snapshotOf } from "./callbacks.ts";
import type { AttemptLog } from "./history.ts";
import type { Row, TaskTable } from "./task-table.ts";
import type { InstanceTable } from "./registry.ts";
import { brokenReason, conditionOutcome } from "./workflow.ts";
import type { EventDetail, MemoryTaskEvents } from "./task-events.ts";
import type { TaskEventKind } from "../../core/task-event.ts";

/** The parts of the store the transitions share with its other roles. */
export interface QueueParts {
  table: TaskTable;
  log: AttemptLog;
  events: Listeners;
  /** Task events for the event stream (as lua/includes/task-events.lua records them). */
  taskEvents: MemoryTaskEvents;
  isPaused(pool: string): boolean;
  /** The pools' cluster-wide limits and start logs (registry.ts). */
  limits: Pick<InstanceTable, "globalLimit" | "rateTokens" | "logStarts" | "nextStartAt">;
  retention: HistoryRetention;
  /** Reject `enqueue` once this many tasks are unfinished (back-pressure). */
  maxUnfinished?: number;
}

export class TaskMoves {
  readonly p: QueueParts;
  readonly #t: TaskTable;
  readonly #cascade: Cascade;
  /** A row was finished since the last endCall: retention has rows to prune. */
  #finishedAny = false;

  constructor(parts: QueueParts) {
    this.p = parts;
    this.#t = parts.table;
    this.#cascade = new Cascade({
      children: (id) => this.#t.rows.get(id)?.children ?? [],
      settle: (childId, parentId, status, now) => this.#settleChild(childId, parentId, status, now),
      retain: (id, _status, prunable, now) => this.#t.retain(id, prunable, now),
    });
  }

  unfinished(): number {
    const counts = this.#t.counts;
    return ALL_STATUSES.filter((s) => !FINAL_STATUSES.has(s)).reduce((n, s) => n + counts[s], 0);
  }

  /** Inserts one checked task (as lua/includes/insert.lua); also used by schedule firings. */
  insert(task: NewTask, now: number): Row {
    const row = this.#t.newRow(task);
    row.historyFrom = this.p.log.mark();
    let broken: string | null = null;
    for (const [parentId, condition] of parentConditions(task)) {
      row.ownConditions()[parentId] = condition;
      const parent = this.#t.rows.get(parentId)!;
      const outcome = conditionOutcome(condition, parent.status);
      if (outcome === "broken") broken ??= brokenReason(parentId, parent.status);
      if (outcome === null) {
        row.pendingParents++;
        parent.ownChildren().push(row.id);
      }
    }
    if (task.key) this.#t.keys.set(task.key, task.id);
    if (broken) {
      row.status = "cancelled";
      row.cancelReason = broken;
      row.finishedAt = now;
      if (task.key) this.#t.keys.delete(task.key);
    } else if (row.pendingParents > 0) row.status = "waiting";
    else if (row.runAt !== null && row.runAt > now) row.status = "scheduled";
    const fc = task.flowControl;
    if (fc) {
      // The latest submit's limits are the key's; raised ones may let parked tasks start.
      this.#t.flows.setLimits(fc, now);
    }
    this.#t.insert(row, now);
    this.event("created", row, now, { status: row.status });
    // Cancelled at insert (a parent already ended the wrong way): an ending like any other.
    if (broken) this.#callback(row, "cancelled", now);
    if (fc) this.#t.flows.unpark(fc.key, now);
    this.announce(row);
    if (!broken) this.trackExpiry(row);
    return row;
  }

  /** Inserts the callback task of a row that just ended, if its `callback` asks for one. */
  #callback(row: Row, status: EndStatus, now: number): void {
    const task = callbackFor(this.#t, row, status, now);
    if (!task) return;
    const callback = this.#t.newRow(task);
    callback.historyFrom = this.p.log.mark();
    callback.snapshot = snapshotOf(row);
    this.#t.insert(callback, now);
    this.announce(callback);
  }

  /**
   * A task that may expire before it starts joins the expiry index (again: a running one
   * leaves it lazily) and its expiry is announced, so a worker arms its wheel for it.
   */
  trackExpiry(row: Row): void {
    if (row.expiresAt === null) return;
    this.#t.expiries.add(row.id, row.expiresAt);
    this.p.events.emit({ kind: "expiry", id: row.id, at: row.expiresAt });
  }

  /** Ends a task that was not started by its expiresAt (lua/includes/expire.lua). */
  expire(row: Row, now: number): void {
    this.#t.expiries.delete(row.id);
    this.finish(row, "expired", now);
    this.p.log.totals.expired++;
  }

  /**
   * A running attempt back in its queue, uncounted, at the position it had (see release):
   * `stalled` when its worker was lost, `requeued` when handed back.
   */
  requeue(row: Row, now: number, kind: "stalled" | "requeued"): void {
    this.event(kind, row, now, { attempt: row.attempt });
    row.attempt--;
    row.startedAt = null;
    row.leaseUntil = null;
    row.claimSeq = null;
    this.#t.move(row, "queued", now, true);
    this.announce(row);
    this.trackExpiry(row);
  }

  /** Ends a failed attempt: retrying at `retryAt`, or dead (src/storage/redis/lua/includes/fail-task.lua). */
  failRow(row: Row, retryAt: number | null, now: number): "retrying" | "dead" {
    row.leaseUntil = null;
    if (retryAt !== null) {
      this.p.log.record(row, "retrying", now);
      row.runAt = retryAt;
      this.#t.move(row, "retrying", now);
      this.event("retrying", row, now, { attempt: row.attempt, runAt: retryAt });
      this.announce(row);
      this.trackExpiry(row);
      return "retrying";
    }
    this.p.log.record(row, "dead", now);
    this.finish(row, "dead", now);
    this.p.log.totals.dead++;
    return "dead";
  }

  /**
   * Moves a row to a final status and settles its workflow children (bounded per call: see
   * cascade.ts; every public transition ends with endCall()).
   */
  finish(row: Row, status: EndStatus, now: number): void {
    row.finishedAt = now;
    row.leaseUntil = null;
    this.#finishedAny = true;
    if (row.key && this.#t.keys.get(row.key) === row.id) this.#t.keys.delete(row.key);
    this.#t.move(row, status, now);
    this.event(status, row, now, { attempt: row.attempt });
    this.#callback(row, status, now);
    this.#cascade.ended(row.id, status, row.children.length > 0, now);
  }

  #settleChild(childId: string, parentId: string, status: EndStatus, now: number): void {
    const child = this.#t.rows.get(childId);
    if (!child || child.status !== "waiting") return;
    const outcome = conditionOutcome(child.conditions![parentId], status);
    if (outcome === "broken") {
      child.cancelReason = brokenReason(parentId, status);
      this.finish(child, "cancelled", now);
    } else if (outcome === "met" && --child.pendingParents === 0) {
      this.#t.move(child, child.runAt !== null && child.runAt > now ? "scheduled" : "queued", now);
      this.announce(child);
    }
  }

  /** Takes up to `limit` deferred cascades further (recoverExpired). */
  continueCascades(limit: number, now: number): void {
    if (this.#cascade.deferred.length > 0) this.#cascade.continue(limit, now);
  }

  /**
   * Ends a public transition: saves unfinished cascades, then applies retention (unless
   * `retain` is false: the claim, whose script is given no retention, prunes nothing).
   */
  endCall(now: number, retain = true): boolean {
    const pending = this.#cascade.endCall();
    if (pending) this.p.events.emit({ kind: "cascade" });
    const { maxAgeMs, maxCount } = this.p.retention;
    // Rows are pruned by calls that finished one, as lua/includes/retention.lua does.
    if (this.#finishedAny && retain) this.#t.prune(now, maxAgeMs, maxCount);
    this.#finishedAny = false;
    if (retain) this.p.log.prune(now);
    return pending;
  }

  /** A running attempt the lease belongs to: same instance, same claim. */
  held(lease: Lease): Row | undefined {
    const row = this.#t.rows.get(lease.id);
    return row && row.status === "running" && row.workerId === lease.workerId &&
        row.claimSeq === lease.token
      ? row
      : undefined;
  }

  /**
   * A row whose log the claim may still append to: held, or cancelled while the claim ran it
   * (the lines its aborted handler logged). As lua/appendLogs-1.lua decides.
   */
  loggable(lease: Lease): Row | undefined {
    const row = this.#t.rows.get(lease.id);
    return row && (row.status === "running" || row.status === "cancelled") &&
        row.workerId === lease.workerId && row.claimSeq === lease.token
      ? row
      : undefined;
  }

  /** The status a row reached under this claim's token, when the claim already settled it. */
  settledBy(lease: Lease): Row["status"] | null {
    const row = this.#t.rows.get(lease.id);
    return row && row.claimSeq === lease.token ? row.status : null;
  }

  /** Records a task event of `row` (the stream's: src/core/task-event.ts). */
  event(kind: TaskEventKind, row: Row, now: number, detail?: EventDetail): void {
    this.p.taskEvents.record(kind, row, now, detail);
  }

  /** Tells listeners what a row's new status offers: work to claim, or a time to arm. */
  announce(row: Row): void {
    if (row.status === "queued") this.p.events.emit({ kind: "ready", pool: row.pool });
    else if (row.status === "scheduled" || row.status === "retrying") {
      this.p.events.emit({ kind: "delayed", id: row.id, runAt: row.runAt! });
    }
  }
}
