/**
 * @module task-table — the embedded store's tables: task rows, status counters, per-pool
 * ready heaps, the delayed heap, held keys, and retention of finished rows. No policy lives
 * here; the transitions are in queue.ts.
 */
import { Heap } from "../../core/heap.ts";
import {
  ALL_STATUSES,
  type NewTask,
  type ParentCondition,
  type TaskRecord,
  type TaskStatus,
} from "../../core/task.ts";
import { type HeaderSecrets, sealPayload } from "../../core/secret-headers.ts";
import { plainCallback } from "../../core/callback.ts";
import type { StorageEvent } from "../types.ts";
import { FlowTable } from "./flows.ts";
import { ExpiryIndex } from "./expiries.ts";
import type { LogState } from "./task-logs.ts";

/**
 * A stored task: the public record plus the store's bookkeeping. Payload and result are kept
 * as JSON text, as Redis keeps them: every reader gets its own copy (a handler may mutate its
 * payload), and parsing small JSON is several times cheaper than structuredClone.
 */
export interface Row extends Omit<TaskRecord, "payload" | "result"> {
  /** With an `http` task's header values redacted: the values are in `secrets`. */
  payloadJson: string;
  secrets: HeaderSecrets | null;
  resultJson: string;
  /** Queue position: renewed each time the row is queued or delayed. */
  seq: number;
  /** Creation order, for listings. */
  order: number;
  /** The history seq when the task was created: its attempts all come after it. */
  historyFrom: number;
  /** Parent id → the outcome this task needs from it. */
  conditions: Record<string, ParentCondition>;
  /** Parents whose outcome is still unknown. */
  pendingParents: number;
  children: string[];
  leaseUntil: number | null;
  /** The running claim's token (its seq), which every settle must present; null once void. */
  claimSeq: string | null;
  /** Its log lines (task-logs.ts); null until an attempt logs one. */
  log: LogState | null;
  /** Callback tasks made for its endings, and ids skipped (Redis: the `cbn` field). */
  callbacksMade: number;
  /** A callback task's copy of the task it reports, as the task ended (else null). */
  snapshot: Row | null;
}

interface ReadyEntry {
  priority: number;
  seq: number;
  id: string;
}

interface DelayedEntry {
  runAt: number;
  seq: number;
  id: string;
}

const readyFirst = (a: ReadyEntry, b: ReadyEntry) =>
  a.priority !== b.priority ? a.priority > b.priority : a.seq < b.seq;
const dueFirst = (a: DelayedEntry, b: DelayedEntry) =>
  a.runAt !== b.runAt ? a.runAt < b.runAt : a.seq < b.seq;

export class TaskTable {
  readonly rows = new Map<string, Row>();
  readonly counts = Object.fromEntries(ALL_STATUSES.map((s) => [s, 0])) as Record<
    TaskStatus,
    number
  >;
  readonly perPool = new Map<string, { queued: number; running: number }>();
  readonly running = new Set<string>();
  /** Called when a running task leaves `running` (its pool's slot frees: registry limits). */
  onRunningLeft: (pool: string) => void = () => {};
  /** Whether an id names a schedule (task and schedule ids share one namespace). */
  isScheduleId: (id: string) => boolean = () => false;
  /** Where the flows' events go (the store's listeners). */
  emit: (event: StorageEvent) => void = () => {};
  /** Flow control keys: kept in step by move(), as lua/includes/move.lua does. */
  readonly flows: FlowTable = new FlowTable({
    rows: this.rows,
    pushReady: (row) => this.#pushReady(row),
    emit: (event) => this.emit(event),
  });
  /** Key → id of the unfinished task holding it. */
  readonly keys = new Map<string, string>();
  /** Finished rows in finishing order, for retention. Dead and expired rows are kept. */
  readonly finished = new Map<string, number>();
  /** Tasks that may expire before they start (Redis: the `expiries` zset). */
  readonly expiries = new ExpiryIndex();
  readonly #ready = new Map<string, Heap<ReadyEntry>>();
  readonly #delayed = new Heap<DelayedEntry>(dueFirst);
  #seq = 0;
  /** Finished rows in finishing order; entries whose row moved on are skipped lazily. */
  #finishedQueue: { id: string; at: number }[] = [];
  #finishedHead = 0;

  nextSeq(): number {
    return ++this.#seq;
  }

  /** A fresh row for a new task, status `queued` until the store decides otherwise. */
  newRow(task: NewTask): Row {
    const { payload, ...rest } = task;
    const { shown, secrets } = sealPayload(task.type, payload);
    return {
      ...rest,
      flowControl: task.flowControl ? { ...task.flowControl } : null,
      waitingFor: null,
      traceparent: task.traceparent ?? null,
      callback: task.callback ? plainCallback(task.callback) : null,
      payloadJson: JSON.stringify(shown ?? null),
      secrets,
      dependsOn: [...task.dependsOn],
      expiresAt: task.expiresAt ?? null,
      status: "queued",
      attempt: 0,
      stalls: 0,
      progress: null,
      resultJson: "null",
      error: null,
      startedAt: null,
      finishedAt: null,
      cancelReason: null,
      workerId: null,
      seq: this.nextSeq(),
      order: this.nextSeq(),
      historyFrom: 0,
      // Keyed by parent id, a user's name: no inherited keys (`constructor`) to collide with.
      conditions: Object.create(null),
      pendingParents: 0,
      children: [],
      leaseUntil: null,
      claimSeq: null,
      log: null,
      callbacksMade: 0,
      snapshot: null,
    };
  }

  /** Inserts a new row in `status` and files it where that status lives. */
  insert(row: Row, now: number): void {
    this.rows.set(row.id, row);
    this.counts[row.status]++;
    this.#file(row, now);
  }

  /**
   * Moves a row to `status`, keeping counters and queues in step. `keepSeq` queues it at the
   * position it had before it ran (a stalled or handed-back attempt).
   */
  move(row: Row, status: TaskStatus, now: number, keepSeq = false): void {
    this.#unfile(row, now);
    this.counts[row.status]--;
    row.status = status;
    this.counts[status]++;
    this.#file(row, now, keepSeq);
  }

  /** Takes a finished row out of retention (false) or puts it back (true). */
  retain(id: string, prunable: boolean, now: number): void {
    if (!prunable) {
      this.finished.delete(id);
      return;
    }
    const row = this.rows.get(id);
    if (!row || !PRUNABLE_STATUSES.has(row.status)) return;
    this.finished.set(id, now);
    this.#finishedQueue.push({ id, at: now });
  }

  /** Pops the next ready row of `pool` (priority desc, FIFO), skipping stale entries. */
  popReady(pool: string): Row | undefined {
    const heap = this.#ready.get(pool);
    while (heap && heap.size > 0) {
      const entry = heap.pop()!;
      const row = this.rows.get(entry.id);
      if (row && row.status === "queued" && row.seq === entry.seq && !row.waitingFor) return row;
    }
    return undefined;
  }

  /** Pops the next delayed row due at or before `now`, skipping stale entries. */
  popDue(now: number): Row | undefined {
    const heap = this.#delayed;
    while (heap.size > 0 && heap.peek()!.runAt <= now) {
      const entry = heap.pop()!;
      const row = this.rows.get(entry.id);
      if (row && isDelayed(row) && row.runAt === entry.runAt && row.seq === entry.seq) return row;
    }
    return undefined;
  }

  /** The runAt of the next delayed row due at or before `now` (stale entries dropped). */
  nextDueAt(now: number): number | undefined {
    const heap = this.#delayed;
    while (heap.size > 0 && heap.peek()!.runAt <= now) {
      const entry = heap.peek()!;
      const row = this.rows.get(entry.id);
      if (row && isDelayed(row) && row.runAt === entry.runAt && row.seq === entry.seq) {
        return entry.runAt;
      }
      heap.pop();
    }
    return undefined;
  }

  /** Delayed rows due at or before `until`, earliest first. */
  dueBy(until: number, limit: number): Row[] {
    const out: Row[] = [];
    for (const row of this.rows.values()) {
      if (isDelayed(row) && row.runAt! <= until) out.push(row);
    }
    return out.sort((a, b) => a.runAt! - b.runAt! || a.seq - b.seq).slice(0, limit);
  }

  poolCounts(pool: string): { queued: number; running: number } {
    let counts = this.perPool.get(pool);
    if (!counts) this.perPool.set(pool, counts = { queued: 0, running: 0 });
    return counts;
  }

  /** Drops finished rows beyond `maxCount` or older than `maxAgeMs` (dead rows stay). */
  prune(now: number, maxAgeMs: number, maxCount: number): void {
    // Walks a queue rather than the Map: iterating a Map from its start skips every hole
    // that earlier deletes left, which made pruning O(n) per finished task.
    const queue = this.#finishedQueue;
    while (this.#finishedHead < queue.length) {
      const { id, at } = queue[this.#finishedHead];
      const live = this.finished.get(id) === at;
      if (live && this.finished.size <= maxCount && now - at <= maxAgeMs) break;
      this.#finishedHead++;
      if (!live) continue; // resubmitted, or already gone
      this.finished.delete(id);
      const row = this.rows.get(id);
      if (row) {
        this.counts[row.status]--;
        this.rows.delete(id);
      }
    }
    if (this.#finishedHead > 1024 && this.#finishedHead * 2 > queue.length) {
      this.#finishedQueue = queue.slice(this.#finishedHead);
      this.#finishedHead = 0;
    }
  }

  #file(row: Row, now: number, keepSeq = false): void {
    switch (row.status) {
      case "queued": {
        // A fresh seq per queueing makes older heap entries for this row stale.
        if (!keepSeq) row.seq = this.nextSeq();
        this.#pushReady(row);
        this.poolCounts(row.pool).queued++;
        break;
      }
      case "scheduled":
      case "retrying":
        row.seq = this.nextSeq();
        this.#delayed.push({ runAt: row.runAt!, seq: row.seq, id: row.id });
        break;
      case "running":
        this.running.add(row.id);
        this.poolCounts(row.pool).running++;
        break;
      default:
        if (PRUNABLE_STATUSES.has(row.status)) {
          this.finished.set(row.id, now);
          this.#finishedQueue.push({ id: row.id, at: now });
        }
    }
  }

  #pushReady(row: Row): void {
    let heap = this.#ready.get(row.pool);
    if (!heap) this.#ready.set(row.pool, heap = new Heap(readyFirst));
    heap.push({ priority: row.priority, seq: row.seq, id: row.id });
  }

  /** Queued rows of `pool` in its ready queue (not parked by a flow key). */
  readyCount(pool: string): number {
    return this.poolCounts(pool).queued - (this.flows.parkedByPool.get(pool) ?? 0);
  }

  #unfile(row: Row, now: number): void {
    const key = row.flowControl?.key;
    if (row.status === "queued") {
      this.poolCounts(row.pool).queued--;
      if (key && row.waitingFor) this.flows.left(row, key);
    }
    if (row.status === "running") {
      this.running.delete(row.id);
      this.poolCounts(row.pool).running--;
      this.onRunningLeft(row.pool);
      if (key) this.flows.stopped(key, now);
    }
    this.finished.delete(row.id);
  }
}

/** Final statuses whose rows retention prunes: dead and expired rows stay until resubmitted. */
export const PRUNABLE_STATUSES: ReadonlySet<TaskStatus> = new Set(["succeeded", "cancelled"]);

function isDelayed(row: Row): boolean {
  return row.status === "scheduled" || row.status === "retrying";
}
