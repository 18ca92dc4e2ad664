/**
 * @module queue — the embedded store's task transitions ({@link QueueStore}), one method per
 * Lua script: each a synchronous critical section over the task table, so it is as atomic
 * as the script, built from the shared steps in moves.ts.
 */
import { CapacityError, ConflictError, NotFoundError } from "../../core/errors.ts";
import {
  EXPIRABLE_STATUSES,
  FINAL_STATUSES,
  type NewTask,
  PRUNED_STATUS,
  type TaskRecord,
} from "../../core/task.ts";
import type {
  AppendLogsParams,
  CancelParams,
  ClaimParams,
  CompleteParams,
  DueParams,
  EnqueueParams,
  FailParams,
  ProgressParams,
  ReleaseClaimParams,
  ReleaseParams,
  RenewParams,
  ResubmitMatchingParams,
  ResubmitParams,
  StepParams,
} from "../params.ts";
import type { QueueStore } from "../storage.ts";
import type { Claimed, Enqueued, Expiry, Recovery } from "../types.ts";
import { taskMatcher } from "../filter.ts";
import { type BatchStore, checkBatch } from "./batch-check.ts";
import { FLOW_SCAN_EXTRA, type QueuePlace, sortsAfter } from "./flows.ts";
import { type KeyHit, respec, SubmitKeys } from "./submit-keys.ts";
import type { AttemptLog } from "./history.ts";
import { type QueueParts, TaskMoves } from "./moves.ts";
import { claimedRecord, toRecord } from "./records.ts";
import { reviveRow } from "./revive.ts";
import { appendLines } from "./task-logs.ts";
import type { Row, TaskTable } from "./task-table.ts";
import { stallDeath } from "./workflow.ts";

export type { QueueParts } from "./moves.ts";

/** A batch without dedupe or debounce keys: no task of it is answered by another. */
const NO_HITS: readonly (KeyHit | undefined)[] = [];

export class MemoryQueue implements QueueStore {
  readonly #m: TaskMoves;
  readonly #t: TaskTable;
  readonly #log: AttemptLog;
  /** Dedupe and debounce keys (enqueue-1.lua's `dedupe:<key>`, `debounce:<key>`). */
  readonly #keys = new SubmitKeys();

  /** What the batch check asks of the table (made once, not per call). */
  readonly #batchStore: BatchStore;

  constructor(parts: QueueParts) {
    this.#m = new TaskMoves(parts);
    this.#t = parts.table;
    this.#log = parts.log;
    const t = this.#t;
    this.#batchStore = {
      exists: (id) => t.rows.has(id),
      isSchedule: (id) => t.isScheduleId(id),
      keyHolder: (key) => t.keys.get(key),
    };
  }

  // deno-lint-ignore require-await -- async so a failed check rejects rather than throws
  async enqueue({ tasks, now }: EnqueueParams): Promise<Enqueued[]> {
    // Dedupe and debounce keys, when any task of the batch has one.
    let hits: readonly (KeyHit | undefined)[] = NO_HITS;
    let skip: ReadonlySet<number> | undefined;
    if (tasks.some((t) => t.dedupe || t.debounce)) {
      const waiting = (id: string) => this.#t.rows.get(id)?.status === "scheduled";
      hits = this.#keys.hits(tasks, now, waiting);
      skip = new Set(hits.flatMap((hit, i) => (hit ? [i] : [])));
    }
    checkBatch(tasks, this.#batchStore, skip);
    const limit = this.#m.p.maxUnfinished;
    if (limit !== undefined && this.#m.unfinished() + tasks.length - (skip?.size ?? 0) > limit) {
      throw new CapacityError(limit);
    }
    return tasks.map((task, i): Enqueued => {
      const hit = hits[i];
      if (hit?.kind === "dedupe") {
        const status = this.#t.rows.get(hit.id)?.status ?? PRUNED_STATUS;
        return { id: hit.id, status, deduplicated: true };
      }
      if (hit?.kind === "debounce") {
        const row = this.#t.rows.get(hit.id)!;
        const runAt = this.#keys.rearmAt(task, hit, now);
        respec(row, task, runAt);
        this.#t.move(row, "scheduled", now);
        this.#m.announce(row);
        return { id: row.id, status: "scheduled", runAt, debounced: true };
      }
      const row = this.#m.insert(task, now);
      if (hits !== NO_HITS) this.#keys.took(task, now);
      return { id: row.id, status: row.status };
    });
  }

  /** Inserts one checked task; schedule firings use it too. */
  insert(task: NewTask, now: number): Row {
    return this.#m.insert(task, now);
  }

  claim({ pool, max, owner, now }: ClaimParams): Promise<Claimed> {
    const out: Claimed = [];
    this.#t.flows.armed();
    this.#t.flows.due(now);
    if (this.#m.p.isPaused(pool)) return Promise.resolve(out);
    // The pool's cluster-wide limits (lua/claim-1.lua): room under the global limit, then
    // the rate limit's tokens; a fraction of `max` rounds up, as the loop below would.
    const limits = this.#m.p.limits;
    const global = limits.globalLimit(pool);
    let take = Math.ceil(max);
    if (global !== null) take = Math.min(take, global - this.#t.poolCounts(pool).running);
    const tokens = limits.rateTokens(pool, now);
    const rateBound = tokens < take;
    take = Math.min(take, tokens);
    // Never start a task past its expiry: expire it and take the next, within the scan's
    // bound (lua/claim-1.lua: at most take + FLOW_SCAN_EXTRA candidates).
    const expiryDue = take > 0 && this.#t.expiries.anyDue(now);
    let expired = 0;
    let scanned = 0;
    const flows = this.#t.flows;
    // Flow keys (lua/claim-1.lua): whether each has parked tasks (a newer task parks behind
    // them), keys to unpark after the scan, keys parked for their rate (a wake to arm).
    // Made at the first flow key met: most claims meet none.
    let heads: Map<string, QueuePlace | null> | undefined;
    let unpark: Set<string> | undefined;
    let rateParked: Set<string> | undefined;
    while (out.length < take && scanned < take + FLOW_SCAN_EXTRA) {
      const row = this.#t.popReady(pool);
      if (!row) break;
      scanned++;
      if (expiryDue && row.expiresAt !== null && row.expiresAt <= now) {
        this.#m.expire(row, now);
        expired++;
        continue;
      }
      const key = row.flowControl?.key;
      if (key) {
        flows.restore(key, row, now);
        heads ??= new Map();
        let head = heads.get(key);
        if (head === undefined) heads.set(key, head = flows.parkedHead(key));
        const { room, why } = flows.room(key, now);
        // Older parked tasks of the key go first: they are unparked, this one parks.
        const behind = head !== null && sortsAfter(row, head);
        if (room > 0 && behind) (unpark ??= new Set()).add(key);
        if (room <= 0 || behind) {
          if (why === "rate") (rateParked ??= new Set()).add(key);
          flows.park(row, key, why ?? "parallelism");
          if (!behind) heads.set(key, { priority: row.priority, seq: row.seq });
          continue;
        }
        flows.started(key, now);
      }
      row.attempt++;
      row.startedAt = now;
      row.progress = null;
      row.workerId = owner.workerId;
      row.leaseUntil = now + owner.leaseMs;
      row.claimSeq = String(this.#t.nextSeq());
      this.#t.move(row, "running", now);
      out.push(claimedRecord(row, row.claimSeq));
    }
    if (expired > 0) this.#m.endCall(now, false);
    // After the scan, as lua/claim-1.lua records them (the scan's expiries come first).
    for (const task of out) {
      this.#m.p.taskEvents.record("started", task, now, { attempt: task.attempt });
    }
    limits.logStarts(pool, out.length, now);
    // The scan's bound stopped it with work left, or it unparked tasks: the worker claims
    // again at once.
    // When to claim again (lua/claim-1.lua): at once, or when a rate-parked key's next token
    // frees, or the pool's own rate limit allows the next start.
    let wake: number | undefined;
    if (out.length < take && scanned === take + FLOW_SCAN_EXTRA && this.#t.readyCount(pool) > 0) {
      wake = now;
    }
    for (const key of unpark ?? []) {
      flows.unpark(key, now);
      wake = now;
    }
    for (const key of rateParked ?? []) flows.wakeAt(key, flows.nextToken(key, now));
    // The keys this claim parked, unparked or took tokens of: their next wake is ours too.
    const armed = flows.armed();
    if (armed !== undefined && (wake === undefined || armed < wake)) wake = armed;
    if (rateBound && (wake === undefined || wake > now) && this.#t.readyCount(pool) > 0) {
      const at = limits.nextStartAt(pool, now);
      if (at !== undefined && (wake === undefined || at < wake)) wake = at;
    }
    if (wake !== undefined) out.heldUntil = wake;
    return Promise.resolve(out);
  }

  releaseClaim({ pool, owner, claimedAt, keep, now }: ReleaseClaimParams): Promise<number> {
    const kept = new Set(keep);
    const lost = [...this.#t.running].map((id) => this.#t.rows.get(id)!).filter((row) =>
      !kept.has(row.id) && row.pool === pool && row.workerId === owner.workerId &&
      row.startedAt === claimedAt && row.leaseUntil === claimedAt + owner.leaseMs
    );
    // In the order Redis lists them: equal lease scores, so by id (its events' order).
    lost.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const row of lost) this.#m.requeue(row, now, "requeued");
    return Promise.resolve(lost.length);
  }

  renewLeases({ leases, leaseMs, now }: RenewParams): Promise<string[]> {
    const lost: string[] = [];
    for (const lease of leases) {
      const row = this.#m.held(lease);
      if (row) row.leaseUntil = now + leaseMs;
      else lost.push(lease.id);
    }
    return Promise.resolve(lost);
  }

  complete({ lease, result, now, logs, history }: CompleteParams): Promise<boolean> {
    const row = this.#m.held(lease);
    if (!row) return Promise.resolve(this.#m.settledBy(lease) === "succeeded");
    if (logs) appendLines(row, lease.token, logs);
    row.resultJson = JSON.stringify(result ?? null);
    if (history === false) this.#log.sample(row, now);
    else this.#log.record(row, "succeeded", now);
    this.#m.finish(row, "succeeded", now);
    this.#log.totals.succeeded++;
    this.#m.endCall(now);
    return Promise.resolve(true);
  }

  fail({ lease, error, retryAt, now, logs }: FailParams): Promise<"retrying" | "dead" | null> {
    const row = this.#m.held(lease);
    if (!row) {
      const status = this.#m.settledBy(lease);
      if (status === "dead") return Promise.resolve("dead");
      return Promise.resolve(status === "retrying" || status === "queued" ? "retrying" : null);
    }
    if (logs) appendLines(row, lease.token, logs);
    row.error = { ...error };
    this.#log.totals.failedAttempts++;
    const status = this.#m.failRow(row, retryAt, now);
    this.#m.endCall(now);
    return Promise.resolve(status);
  }

  release({ leases, now }: ReleaseParams): Promise<number> {
    let n = 0;
    for (const lease of leases) {
      const row = this.#m.held(lease);
      if (!row) continue;
      if (lease.logs) appendLines(row, lease.token, lease.logs);
      this.#m.requeue(row, now, "requeued");
      n++;
    }
    return Promise.resolve(n);
  }

  appendLogs({ leases }: AppendLogsParams): Promise<boolean[]> {
    return Promise.resolve(leases.map((lease) => {
      const row = this.#m.loggable(lease);
      if (row && lease.logs) appendLines(row, lease.token, lease.logs);
      return row !== undefined;
    }));
  }

  setProgress({ lease, progress, now }: ProgressParams): Promise<boolean> {
    const row = this.#m.held(lease);
    if (row) {
      row.progress = Math.max(0, Math.min(100, progress));
      this.#m.event("progress", row, now, { progress: row.progress });
    }
    return Promise.resolve(row !== undefined);
  }

  cancel({ id, reason, now }: CancelParams): Promise<TaskRecord> {
    const row = this.#t.rows.get(id);
    if (!row) return Promise.reject(new NotFoundError("Task", id));
    if (FINAL_STATUSES.has(row.status)) {
      return Promise.reject(new ConflictError(`Task "${id}" already ended ${row.status}`));
    }
    const wasRunning = row.status === "running";
    if (wasRunning) this.#log.record(row, "cancelled", now, { message: reason });
    row.cancelReason = reason;
    this.#m.finish(row, "cancelled", now);
    const record = toRecord(row);
    this.#m.endCall(now);
    if (wasRunning) this.#m.p.events.emit({ kind: "cancel", id });
    return Promise.resolve(record);
  }

  resubmit({ id, now }: ResubmitParams): Promise<TaskRecord> {
    try {
      const row = this.#revived(reviveRow(this.#t, id, now), now);
      return Promise.resolve(toRecord(row));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A revived row is announced and its `resubmitted` event recorded (lua/includes/revive.lua). */
  #revived(row: Row, now: number): Row {
    this.#m.event("resubmitted", row, now);
    this.#m.announce(row);
    return row;
  }

  resubmitMatching({ filter, now }: ResubmitMatchingParams): Promise<number> {
    const match = taskMatcher<Row>(filter, (row) => row.payloadJson);
    // Oldest first, as the Redis store walks its index; the ids first, as reviving moves rows.
    const ids: string[] = [];
    for (const row of this.#t.byOrder.oldestFirst()) if (match(row)) ids.push(row.id);
    let n = 0;
    for (const id of ids) {
      try {
        this.#revived(reviveRow(this.#t, id, now), now);
        n++;
      } catch { /* a key now held by another task: leave this one dead */ }
    }
    return Promise.resolve(n);
  }

  dueDelayed({ until, limit }: DueParams): Promise<{ id: string; runAt: number }[]> {
    const rows = this.#t.dueBy(until, limit).map((r) => ({ id: r.id, runAt: r.runAt! }));
    // Flow wakes are listed as Redis lists its markers: id `~<key>`, first on a tie.
    const wakes = this.#t.flows.dueWakes(until).map((w) => ({ id: `~${w.key}`, runAt: w.at }));
    const due = wakes.length ? [...wakes, ...rows].sort((a, b) => a.runAt - b.runAt) : rows;
    return Promise.resolve(due.slice(0, limit));
  }

  dueExpiries({ until, limit }: DueParams): Promise<{ id: string; expiresAt: number }[]> {
    const due = this.#t.expiries.dueBy(until, limit);
    return Promise.resolve(due.map((e) => ({ id: e.id, expiresAt: e.at })));
  }

  expireDue({ now, limit }: StepParams): Promise<Expiry> {
    const ids = this.#t.expiries.popDue(now, limit);
    let expired = 0;
    for (const id of ids) {
      const row = this.#t.rows.get(id);
      // Entries of tasks that started, finished or lost their expiry are dropped.
      const expirable = row && EXPIRABLE_STATUSES.has(row.status);
      if (!expirable || row.expiresAt === null || row.expiresAt > now) {
        continue;
      }
      this.#m.expire(row, now);
      expired++;
    }
    this.#m.endCall(now);
    return Promise.resolve({ expired, more: ids.length === limit });
  }

  promoteDue({ now, limit }: StepParams): Promise<number> {
    // Due flow wakes (the `~<key>` markers of Redis's delayed set) interleave with the
    // tasks by time, a marker first on a tie; each unparks its key.
    const flows = this.#t.flows;
    const wakes = flows.dueWakes(now);
    let n = 0;
    for (let w = 0; n < limit; n++) {
      const taskAt = this.#t.nextDueAt(now);
      const wake = wakes[w];
      if (wake && (taskAt === undefined || wake.at <= taskAt)) {
        w++;
        flows.wakes.delete(wake.key);
        flows.unpark(wake.key, now);
        continue;
      }
      const row = this.#t.popDue(now);
      if (!row) break;
      this.#t.move(row, "queued", now);
      this.#m.announce(row);
    }
    return Promise.resolve(n);
  }

  recoverExpired({ now, limit }: StepParams): Promise<Recovery> {
    const expired = [...this.#t.running]
      .map((id) => this.#t.rows.get(id)!)
      .filter((row) => row.leaseUntil !== null && row.leaseUntil < now)
      .sort((a, b) => Number(a.claimSeq) - Number(b.claimSeq))
      .slice(0, limit);
    for (const row of expired) {
      const lost = `lease expired (worker ${row.workerId} lost)`;
      row.stalls++;
      this.#log.totals.stalled++;
      if (row.stalls > row.maxStalls) {
        row.error = { message: stallDeath(lost, row.stalls, row.maxStalls) };
        row.claimSeq = null;
        this.#m.failRow(row, null, now);
      } else {
        this.#log.record(row, "stalled", now, { message: lost });
        this.#m.requeue(row, now, "stalled");
      }
    }
    this.#m.continueCascades(100, now);
    this.#t.flows.sweep(now, 100);
    const cascadesPending = this.#m.endCall(now);
    return Promise.resolve({ recovered: expired.length, cascadesPending });
  }
}
