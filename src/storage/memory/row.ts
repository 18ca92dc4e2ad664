/**
 * @module row — the embedded store's task row, laid out for memory: a pending task holds a
 * fixed-shape object of 15 slots (~140 B), not 45 fields of which most are null.
 *
 * What every task has is inline. What an attempt sets (start, lease, result) lives in a
 * {@link RunState} made at its first claim, and what only some specs or some lives have
 * (options, workflow links, errors, logs) in a {@link RowExtra} made when one is first set.
 * Accessors on the prototype read both with their defaults, so every other module reads and
 * writes `row.key`, `row.leaseUntil`, … as plain fields. Writing a field's default where
 * its holder was never made makes nothing.
 */
import {
  type Backoff,
  type Callback,
  DEFAULT_MAX_STALLS,
  type FlowControl,
  type ParentCondition,
  type TaskError,
  type TaskStatus,
  type WaitingFor,
} from "../../core/task.ts";
import type { HeaderSecrets } from "../../core/secret-headers.ts";
import type { LogState } from "./task-logs.ts";

/** The ids of no task: the parents and children of most tasks. Never written to. */
export const NO_IDS: readonly string[] = Object.freeze([]);

/** What an attempt sets: made at a task's first claim (or when it ends unstarted). */
class RunState {
  startedAt: number | null = null;
  finishedAt: number | null = null;
  workerId: string | null = null;
  leaseUntil: number | null = null;
  /** The running claim's token (its seq), which every settle must present; null once void. */
  claimSeq: string | null = null;
  resultJson = "null";
  progress: number | null = null;
  /** Finished and prunable: when it entered retention (task-table.ts); else null. */
  retainedAt: number | null = null;
}

/** What only some tasks have, each field at its default until set. */
class RowExtra {
  maxStalls = DEFAULT_MAX_STALLS;
  stalls = 0;
  error: TaskError | null = null;
  scheduleId: string | null = null;
  dependsOn: readonly string[] = NO_IDS;
  onSuccessOf: string | null = null;
  onFailureOf: string | null = null;
  key: string | null = null;
  timeoutMs: number | null = null;
  backoff: Backoff | null = null;
  cancelReason: string | null = null;
  expiresAt: number | null = null;
  flowControl: FlowControl | null = null;
  waitingFor: WaitingFor | null = null;
  traceparent: string | null = null;
  callback: Callback | null = null;
  /** With an `http` task's header values redacted: the values are in `secrets`. */
  secrets: HeaderSecrets | null = null;
  /** Parent id → the outcome this task needs from it (no inherited keys to collide with). */
  conditions: Record<string, ParentCondition> | null = null;
  /** Parents whose outcome is still unknown. */
  pendingParents = 0;
  children: readonly string[] = NO_IDS;
  /** Its log lines (task-logs.ts); null until an attempt logs one. */
  log: LogState | null = null;
  /** Callback tasks made for its endings, and ids skipped (Redis: the `cbn` field). */
  callbacksMade = 0;
  /** A callback task's copy of the task it reports, as the task ended (else null). */
  snapshot: Row | null = null;
}

/**
 * A stored task: the public record (less payload and result, kept as JSON text, as Redis
 * keeps them: every reader gets its own copy, and parsing small JSON is several times
 * cheaper than structuredClone) plus the store's bookkeeping.
 */
export class Row {
  status: TaskStatus = "queued";
  attempt = 0;
  /** Queue position: renewed each time the row is queued or delayed. */
  seq = 0;
  /** Creation order, for listings. */
  order = 0;
  /** The history seq when the task was created: its attempts all come after it. */
  historyFrom = 0;
  run: RunState | null = null;
  x: RowExtra | null = null;

  constructor(
    public id: string,
    public type: string,
    public pool: string,
    public priority: number,
    public maxRetries: number,
    public runAt: number | null,
    public createdAt: number,
    public payloadJson: string,
  ) {}

  // Accessors: what a RunState holds, read with its defaults while there is none.
  get startedAt(): number | null {
    return this.run === null ? null : this.run.startedAt;
  }
  set startedAt(value: number | null) {
    if (this.run !== null || value !== null) this.runState().startedAt = value;
  }
  get finishedAt(): number | null {
    return this.run === null ? null : this.run.finishedAt;
  }
  set finishedAt(value: number | null) {
    if (this.run !== null || value !== null) this.runState().finishedAt = value;
  }
  get workerId(): string | null {
    return this.run === null ? null : this.run.workerId;
  }
  set workerId(value: string | null) {
    if (this.run !== null || value !== null) this.runState().workerId = value;
  }
  get leaseUntil(): number | null {
    return this.run === null ? null : this.run.leaseUntil;
  }
  set leaseUntil(value: number | null) {
    if (this.run !== null || value !== null) this.runState().leaseUntil = value;
  }
  get claimSeq(): string | null {
    return this.run === null ? null : this.run.claimSeq;
  }
  set claimSeq(value: string | null) {
    if (this.run !== null || value !== null) this.runState().claimSeq = value;
  }
  get resultJson(): string {
    return this.run === null ? "null" : this.run.resultJson;
  }
  set resultJson(value: string) {
    if (this.run !== null || value !== "null") this.runState().resultJson = value;
  }
  get retainedAt(): number | null {
    return this.run === null ? null : this.run.retainedAt;
  }
  set retainedAt(value: number | null) {
    if (this.run !== null || value !== null) this.runState().retainedAt = value;
  }
  get progress(): number | null {
    return this.run === null ? null : this.run.progress;
  }
  set progress(value: number | null) {
    if (this.run !== null || value !== null) this.runState().progress = value;
  }
  // What a RowExtra holds.
  get maxStalls(): number {
    return this.x === null ? DEFAULT_MAX_STALLS : this.x.maxStalls;
  }
  set maxStalls(value: number) {
    if (this.x !== null || value !== DEFAULT_MAX_STALLS) this.extra().maxStalls = value;
  }
  get stalls(): number {
    return this.x === null ? 0 : this.x.stalls;
  }
  set stalls(value: number) {
    if (this.x !== null || value !== 0) this.extra().stalls = value;
  }
  get error(): TaskError | null {
    return this.x === null ? null : this.x.error;
  }
  set error(value: TaskError | null) {
    if (this.x !== null || value !== null) this.extra().error = value;
  }
  get scheduleId(): string | null {
    return this.x === null ? null : this.x.scheduleId;
  }
  set scheduleId(value: string | null) {
    if (this.x !== null || value !== null) this.extra().scheduleId = value;
  }
  get dependsOn(): readonly string[] {
    return this.x === null ? NO_IDS : this.x.dependsOn;
  }
  set dependsOn(value: readonly string[]) {
    if (this.x !== null || value !== NO_IDS) this.extra().dependsOn = value;
  }
  get onSuccessOf(): string | null {
    return this.x === null ? null : this.x.onSuccessOf;
  }
  set onSuccessOf(value: string | null) {
    if (this.x !== null || value !== null) this.extra().onSuccessOf = value;
  }
  get onFailureOf(): string | null {
    return this.x === null ? null : this.x.onFailureOf;
  }
  set onFailureOf(value: string | null) {
    if (this.x !== null || value !== null) this.extra().onFailureOf = value;
  }
  get key(): string | null {
    return this.x === null ? null : this.x.key;
  }
  set key(value: string | null) {
    if (this.x !== null || value !== null) this.extra().key = value;
  }
  get timeoutMs(): number | null {
    return this.x === null ? null : this.x.timeoutMs;
  }
  set timeoutMs(value: number | null) {
    if (this.x !== null || value !== null) this.extra().timeoutMs = value;
  }
  get backoff(): Backoff | null {
    return this.x === null ? null : this.x.backoff;
  }
  set backoff(value: Backoff | null) {
    if (this.x !== null || value !== null) this.extra().backoff = value;
  }
  get cancelReason(): string | null {
    return this.x === null ? null : this.x.cancelReason;
  }
  set cancelReason(value: string | null) {
    if (this.x !== null || value !== null) this.extra().cancelReason = value;
  }
  get expiresAt(): number | null {
    return this.x === null ? null : this.x.expiresAt;
  }
  set expiresAt(value: number | null) {
    if (this.x !== null || value !== null) this.extra().expiresAt = value;
  }
  get flowControl(): FlowControl | null {
    return this.x === null ? null : this.x.flowControl;
  }
  set flowControl(value: FlowControl | null) {
    if (this.x !== null || value !== null) this.extra().flowControl = value;
  }
  get waitingFor(): WaitingFor | null {
    return this.x === null ? null : this.x.waitingFor;
  }
  set waitingFor(value: WaitingFor | null) {
    if (this.x !== null || value !== null) this.extra().waitingFor = value;
  }
  get traceparent(): string | null {
    return this.x === null ? null : this.x.traceparent;
  }
  set traceparent(value: string | null) {
    if (this.x !== null || value !== null) this.extra().traceparent = value;
  }
  get callback(): Callback | null {
    return this.x === null ? null : this.x.callback;
  }
  set callback(value: Callback | null) {
    if (this.x !== null || value !== null) this.extra().callback = value;
  }
  get secrets(): HeaderSecrets | null {
    return this.x === null ? null : this.x.secrets;
  }
  set secrets(value: HeaderSecrets | null) {
    if (this.x !== null || value !== null) this.extra().secrets = value;
  }
  get pendingParents(): number {
    return this.x === null ? 0 : this.x.pendingParents;
  }
  set pendingParents(value: number) {
    if (this.x !== null || value !== 0) this.extra().pendingParents = value;
  }
  get log(): LogState | null {
    return this.x === null ? null : this.x.log;
  }
  set log(value: LogState | null) {
    if (this.x !== null || value !== null) this.extra().log = value;
  }
  get callbacksMade(): number {
    return this.x === null ? 0 : this.x.callbacksMade;
  }
  set callbacksMade(value: number) {
    if (this.x !== null || value !== 0) this.extra().callbacksMade = value;
  }
  get snapshot(): Row | null {
    return this.x === null ? null : this.x.snapshot;
  }
  set snapshot(value: Row | null) {
    if (this.x !== null || value !== null) this.extra().snapshot = value;
  }
  get children(): readonly string[] {
    return this.x === null ? NO_IDS : this.x.children;
  }
  get conditions(): Readonly<Record<string, ParentCondition>> | null {
    return this.x === null ? null : this.x.conditions;
  }

  /** The children list, made writable (for a parent that gets its first child). */
  ownChildren(): string[] {
    const x = this.extra();
    if (x.children === NO_IDS) x.children = [];
    return x.children as string[];
  }

  /** The parent conditions, made writable. */
  ownConditions(): Record<string, ParentCondition> {
    return this.extra().conditions ??= Object.create(null);
  }

  extra(): RowExtra {
    return this.x ??= new RowExtra();
  }

  runState(): RunState {
    return this.run ??= new RunState();
  }

  /** A copy that later changes to this row leave as it is (a callback's snapshot). */
  copy(): Row {
    const c = new Row(
      this.id,
      this.type,
      this.pool,
      this.priority,
      this.maxRetries,
      this.runAt,
      this.createdAt,
      this.payloadJson,
    );
    c.status = this.status;
    c.attempt = this.attempt;
    c.seq = this.seq;
    c.order = this.order;
    c.historyFrom = this.historyFrom;
    if (this.run) c.run = Object.assign(new RunState(), this.run);
    if (this.x) {
      c.x = Object.assign(new RowExtra(), this.x);
      c.x.dependsOn = [...this.x.dependsOn];
      c.x.children = NO_IDS;
      c.x.snapshot = null;
    }
    return c;
  }
}
