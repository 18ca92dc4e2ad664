/**
 * @module task-table — the embedded store's tables: task rows, status counters, per-pool
 * ready heaps, the delayed heap, held keys, and retention of finished rows. No policy lives
 * here; the transitions are in queue.ts.
 */
import { ALL_STATUSES, type NewTask, type TaskStatus } from "../../core/task.ts";
import { sealPayload } from "../../core/secret-headers.ts";
import { plainCallback } from "../../core/callback.ts";
import type { StorageEvent } from "../types.ts";
import { FlowTable } from "./flows.ts";
import { ExpiryIndex } from "./expiries.ts";
import { Row } from "./row.ts";
import { RowHeap } from "./row-heap.ts";
import { RowIndex } from "./row-index.ts";
import { CreationOrder } from "./creation-order.ts";

export { Row } from "./row.ts";

export class TaskTable {
  readonly rows = new RowIndex<Row>();
  /** The same rows in creation order, for listings. */
  readonly byOrder = new CreationOrder();
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

  /** Tasks that may expire before they start (Redis: the `expiries` zset). */
  readonly expiries = new ExpiryIndex();
  /** Per pool, its queued rows by priority (highest first), then seq. */
  readonly #ready = new Map<string, RowHeap>();
  /** Delayed rows by runAt, then seq. */
  readonly #delayed = new RowHeap();
  #seq = 0;
  /**
   * Finished prunable rows in the order they entered retention, with when, from
   * `#retainedHead` on; an entry whose row moved on since (its `retainedAt` differs) is
   * skipped when reached. A mark on the row and two arrays, not a Map: a Map that gains and
   * loses an entry per finished task (and is asked about every move) cost ~0.5–1.5 µs a task.
   */
  #retainedRows: (Row | undefined)[] = [];
  #retainedAts: number[] = [];
  #retainedHead = 0;
  /** Rows in retention now (the live entries of the arrays). */
  #retained = 0;

  nextSeq(): number {
    return ++this.#seq;
  }

  /** A fresh row for a new task, status `queued` until the store decides otherwise. */
  newRow(task: NewTask): Row {
    const { shown, secrets } = sealPayload(task.type, task.payload);
    const row = new Row(
      task.id,
      task.type,
      task.pool,
      task.priority,
      task.maxRetries,
      task.runAt,
      task.createdAt,
      JSON.stringify(shown ?? null),
    );
    row.seq = this.nextSeq();
    row.order = this.nextSeq();
    // Each setter makes the row's extra part only for a value other than the default.
    row.maxStalls = task.maxStalls;
    row.secrets = secrets;
    row.key = task.key;
    row.timeoutMs = task.timeoutMs;
    row.backoff = task.backoff;
    row.scheduleId = task.scheduleId;
    if (task.dependsOn.length > 0) row.dependsOn = [...task.dependsOn];
    row.onSuccessOf = task.onSuccessOf;
    row.onFailureOf = task.onFailureOf;
    row.expiresAt = task.expiresAt ?? null;
    if (task.flowControl) row.flowControl = { ...task.flowControl };
    row.traceparent = task.traceparent ?? null;
    if (task.callback) row.callback = plainCallback(task.callback);
    return row;
  }

  /** Inserts a new row in `status` and files it where that status lives. */
  insert(row: Row, now: number): void {
    this.rows.set(row.id, row);
    this.byOrder.add(row);
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
    const row = this.rows.get(id);
    if (!row) return;
    if (!prunable) this.#release(row);
    else if (PRUNABLE_STATUSES.has(row.status)) this.#retain(row, now);
  }

  #retain(row: Row, now: number): void {
    if (row.retainedAt === null) this.#retained++;
    row.retainedAt = now;
    this.#retainedRows.push(row);
    this.#retainedAts.push(now);
  }

  #release(row: Row): void {
    if (row.retainedAt === null) return;
    row.retainedAt = null;
    this.#retained--;
  }

  /**
   * Pops the next ready row of `pool` (priority desc, FIFO), skipping stale entries: a row
   * queued again since (a new seq), or no longer queued (a pruned row is finished).
   */
  popReady(pool: string): Row | undefined {
    const heap = this.#ready.get(pool);
    while (heap !== undefined && heap.size > 0) {
      const row = heap.topRow(), seq = heap.topSecond();
      heap.pop();
      if (row.status === "queued" && row.seq === seq && !row.waitingFor) return row;
    }
    return undefined;
  }

  /** Pops the next delayed row due at or before `now`, skipping stale entries. */
  popDue(now: number): Row | undefined {
    const heap = this.#delayed;
    while (heap.size > 0 && heap.topFirst() <= now) {
      const row = heap.topRow(), runAt = heap.topFirst(), seq = heap.topSecond();
      heap.pop();
      if (isCurrentDelayed(row, runAt, seq)) return row;
    }
    return undefined;
  }

  /** The runAt of the next delayed row due at or before `now` (stale entries dropped). */
  nextDueAt(now: number): number | undefined {
    const heap = this.#delayed;
    while (heap.size > 0 && heap.topFirst() <= now) {
      const row = heap.topRow(), runAt = heap.topFirst();
      if (isCurrentDelayed(row, runAt, heap.topSecond())) return runAt;
      heap.pop();
    }
    return undefined;
  }

  /** Delayed rows due at or before `until`, earliest first. */
  dueBy(until: number, limit: number): Row[] {
    const out: Row[] = [];
    if (limit <= 0) return out;
    // Through the delayed heap, not every row: a look-ahead scan reads the earliest few.
    this.#delayed.walk(until, (row, runAt, seq) => {
      if (isCurrentDelayed(row, runAt, seq)) out.push(row);
      return out.length < limit;
    });
    return out;
  }

  poolCounts(pool: string): { queued: number; running: number } {
    let counts = this.perPool.get(pool);
    if (!counts) this.perPool.set(pool, counts = { queued: 0, running: 0 });
    return counts;
  }

  /** Drops finished rows beyond `maxCount` or older than `maxAgeMs` (dead rows stay). */
  prune(now: number, maxAgeMs: number, maxCount: number): void {
    const rows = this.#retainedRows, ats = this.#retainedAts;
    while (this.#retainedHead < rows.length) {
      const i = this.#retainedHead, row = rows[i]!, at = ats[i];
      const live = row.retainedAt === at;
      if (live && this.#retained <= maxCount && now - at <= maxAgeMs) break;
      this.#retainedHead++;
      rows[i] = undefined;
      if (!live) continue; // resubmitted, or finished again since
      this.#release(row);
      this.counts[row.status]--;
      this.rows.delete(row.id);
      this.byOrder.remove(row);
    }
    if (this.#retainedHead > 1024 && this.#retainedHead * 2 > rows.length) {
      this.#retainedRows = rows.slice(this.#retainedHead);
      this.#retainedAts = ats.slice(this.#retainedHead);
      this.#retainedHead = 0;
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
        this.#delayed.push(row, row.runAt!, row.seq);
        break;
      case "running":
        this.running.add(row.id);
        this.poolCounts(row.pool).running++;
        break;
      default:
        if (PRUNABLE_STATUSES.has(row.status)) this.#retain(row, now);
    }
  }

  #pushReady(row: Row): void {
    let heap = this.#ready.get(row.pool);
    if (!heap) this.#ready.set(row.pool, heap = new RowHeap());
    heap.push(row, -row.priority, row.seq);
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
    this.#release(row);
  }
}

/** Final statuses whose rows retention prunes: dead and expired rows stay until resubmitted. */
export const PRUNABLE_STATUSES: ReadonlySet<TaskStatus> = new Set(["succeeded", "cancelled"]);

function isDelayed(row: Row): boolean {
  return row.status === "scheduled" || row.status === "retrying";
}

/** Whether a delayed heap entry (`runAt`, `seq`) is its row's current one, not stale. */
function isCurrentDelayed(row: Row, runAt: number, seq: number): boolean {
  return isDelayed(row) && row.runAt === runAt && row.seq === seq;
}
