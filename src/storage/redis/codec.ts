/**
 * @module codec — how records cross the wire: NewTask → script arguments, task hashes →
 * TaskRecord, schedules, events.
 *
 * A task is a Redis hash: one field per record field the scripts read or change (an absent
 * field is null), `payload` as JSON (absent: null), and `body`, the JSON of the fields only
 * TypeScript reads (each hash field costs Lua time on every transition), their defaults
 * left out (most tasks': just the creation time, stored as a bare number). Small values
 * keep the hash a listpack (every value ≤ 64 bytes: a few hundred bytes a task instead of a
 * hashtable's kilobyte). JSON holds the text JSON.stringify made; Lua never re-encodes it
 * (cjson would round numbers to 14 digits).
 */
import {
  type Callback,
  DEFAULT_MAX_STALLS,
  DEFAULT_POOL,
  type FlowControl,
  type NewTask,
  parentConditions,
  type ScheduleRecord,
  type TaskRecord,
  type TaskStatus,
} from "../../core/task.ts";
import {
  type HeaderSecrets,
  redactedPayload,
  sealPayload,
  unsealPayload,
} from "../../core/secret-headers.ts";
import { callbackPayload, plainCallback, redactedCallback } from "../../core/callback.ts";
import type { StorageEvent } from "../storage.ts";
import { pairsToObject, type RedisReply } from "./transport.ts";

/** JSON text of a value; `undefined` is stored as null, like a JSON round trip would. */
export function json(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/** The record fields kept as one JSON `body` field. */
type Body = Pick<
  TaskRecord,
  | "createdAt"
  | "timeoutMs"
  | "backoff"
  | "scheduleId"
  | "dependsOn"
  | "onSuccessOf"
  | "onFailureOf"
  | "maxStalls"
>;

/**
 * `body` as stored, with an `http` task's header values: kept out of `payload`, which
 * listings search and the API shows (see core/secret-headers.ts).
 */
export type StoredBody = Body & {
  secrets?: HeaderSecrets;
  flowControl?: FlowControl;
  traceparent?: string;
  /** Its callback, header values included (Lua reads the `cb` field instead). */
  callback?: Callback;
  /** A callback task's: the ended task's hash as HGETALL gave it (lua/includes/callback.lua). */
  snapshot?: string[];
};

/**
 * A stored `body`: the JSON of an object, or (layout 5) the bare creation time when the task
 * keeps nothing else there (16 bytes a task less, most tasks).
 */
export function parseBody(text: string): StoredBody {
  const b = JSON.parse(text) as StoredBody | number;
  return typeof b === "number" ? { createdAt: b } as StoredBody : b;
}

/** `body` as stored: the bare creation time when it holds nothing else (see parseBody). */
function bodyText(body: Partial<StoredBody>): string {
  const text = JSON.stringify(body);
  // {"createdAt":N} has no comma; any other field adds one.
  return text.includes(",") ? text : String(body.createdAt);
}

/** The body of a task stored before maxStalls existed has none: the default applies. */
export const bodyMaxStalls = (body: Partial<Body>) => body.maxStalls ?? DEFAULT_MAX_STALLS;

/** A body's fields with their defaults where the stored JSON leaves them out. */
export function bodyFields(b: Partial<Body>): Body {
  return {
    createdAt: b.createdAt!,
    timeoutMs: b.timeoutMs ?? null,
    backoff: b.backoff ?? null,
    scheduleId: b.scheduleId ?? null,
    dependsOn: b.dependsOn ?? [],
    onSuccessOf: b.onSuccessOf ?? null,
    onFailureOf: b.onFailureOf ?? null,
    maxStalls: bodyMaxStalls(b),
  };
}

/**
 * The ARGV entries every encoded task starts with, in order: lua/includes/insert.lua reads
 * them by these names (a generated fact). Then come nOptions and (option number, value) pairs
 * for the {@link TASK_OPTIONS} a task sets, then nDeps, the deps, nConds and
 * (parent, "s"|"f") pairs; a task with no option and no parent has "-" instead of all that.
 */
export const TASK_HEAD = [
  "id",
  "type",
  "pool",
  "priority",
  "payload",
  "body",
  "maxRetries",
] as const;

/**
 * A plain task (no option, no parent) at the defaults of the rest of its head (pool
 * `default`, priority 0, maxRetries 0) is sent as these entries and "=": three entries fewer
 * for the client to encode and for Redis to take in. The "=" stands where a full head has its
 * payload (JSON text or ""), which is never "=", so insert.lua tells the two apart.
 */
export const SHORT_HEAD = ["id", "type", "payload", "body"] as const;

/** The rest of the head, as a short head leaves it out (insert.lua reads these values). */
export const SHORT_HEAD_DEFAULTS = { pool: DEFAULT_POOL, priority: 0, maxRetries: 0 } as const;

/**
 * What a task may set beyond its head, each sent only when set, as its 1-based number in this
 * list and its value: most tasks set none, and every ARGV entry costs Redis ~800
 * instructions to take in (an empty one as much as any). insert.lua reads an unsent one as "".
 */
export const TASK_OPTIONS = [
  "runAt",
  "key",
  "onSuccessOf",
  "onFailureOf",
  "dedupeKey",
  "dedupeTtl",
  "debounceKey",
  "debounceDelay",
  "debounceMaxWait",
  "expiresAt",
  "flowKey",
  "flowParallelism",
  "flowRate",
  "flowPeriod",
  "callback",
] as const;

/** Each option's value in a new task (null, undefined or "": not set, not sent). */
const OPTION_OF: {
  readonly [K in typeof TASK_OPTIONS[number]]: (t: NewTask) => string | number | null | undefined;
} = {
  runAt: (t) => t.runAt,
  key: (t) => t.key,
  onSuccessOf: (t) => t.onSuccessOf,
  onFailureOf: (t) => t.onFailureOf,
  dedupeKey: (t) => t.dedupe?.key,
  dedupeTtl: (t) => t.dedupe?.ttlMs,
  debounceKey: (t) => t.debounce?.key,
  debounceDelay: (t) => t.debounce?.delayMs,
  debounceMaxWait: (t) => t.debounce?.maxWaitMs,
  expiresAt: (t) => t.expiresAt,
  flowKey: (t) => t.flowControl?.key,
  flowParallelism: (t) => t.flowControl?.parallelism,
  flowRate: (t) => t.flowControl?.rate,
  flowPeriod: (t) => t.flowControl?.periodMs,
  callback: (t) => (t.callback ? callbackField(t.callback) : null),
};
const OPTION_READERS = TASK_OPTIONS.map((name) => OPTION_OF[name]);

/**
 * The `cb` field lua/includes/callback.lua reads: the initials of the callback's statuses
 * (s, d, c, e: the final statuses' initials differ), `:`, its pool.
 */
export function callbackField(callback: Callback): string {
  return `${callback.on.map((s) => s[0]).join("")}:${callback.pool}`;
}

/** A new task as the ARGV entries lua/includes/insert.lua reads. */
export function encodeTask(t: NewTask): string[] {
  const args: string[] = [];
  encodeTaskInto(args, t);
  return args;
}

/**
 * Appends `t`'s ARGV entries (see {@link encodeTask}) to `args`, written straight in (a batch
 * of a thousand tasks is ~10 000 entries: no per-task objects or spreads on the way).
 */
export function encodeTaskInto(args: string[], t: NewTask): void {
  const { shown, secrets } = sealPayload(t.type, t.payload);
  // Defaults left out: most tasks' body is then just their creation time (see parseBody).
  const body: Partial<StoredBody> = { createdAt: t.createdAt };
  if (t.timeoutMs !== null) body.timeoutMs = t.timeoutMs;
  if (t.backoff !== null) body.backoff = t.backoff;
  if (t.scheduleId !== null) body.scheduleId = t.scheduleId;
  if (t.dependsOn.length) body.dependsOn = t.dependsOn;
  if (t.onSuccessOf !== null) body.onSuccessOf = t.onSuccessOf;
  if (t.onFailureOf !== null) body.onFailureOf = t.onFailureOf;
  if (t.maxStalls !== DEFAULT_MAX_STALLS) body.maxStalls = t.maxStalls;
  if (t.flowControl) body.flowControl = t.flowControl;
  if (t.traceparent) body.traceparent = t.traceparent;
  if (secrets) body.secrets = secrets;
  if (t.callback) body.callback = plainCallback(t.callback);
  // A null payload is not stored (an absent field reads as null).
  const payload = shown === null || shown === undefined ? "" : json(shown);
  const text = bodyText(body);
  // TASK_HEAD, then the options set, as (number in TASK_OPTIONS, value).
  const start = args.length;
  args.push(t.id, t.type, t.pool, String(t.priority), payload, text, String(t.maxRetries));
  const counted = args.length;
  args.push("0");
  for (let n = 0; n < TASK_OPTIONS.length; n++) {
    const value = OPTION_READERS[n](t);
    if (value !== null && value !== undefined && value !== "") {
      args.push(String(n + 1), String(value));
    }
  }
  // A plain task (no option, no parent: a condition comes with one or the other) is its
  // head and "-" (or, at the head's defaults, SHORT_HEAD and "="): the script skips what
  // only the others need.
  if (args.length === counted + 1 && t.dependsOn.length === 0) {
    const d = SHORT_HEAD_DEFAULTS;
    if (t.pool === d.pool && t.priority === d.priority && t.maxRetries === d.maxRetries) {
      args.length = start;
      args.push(t.id, t.type, payload, text, "=");
    } else args[counted] = "-";
    return;
  }
  args[counted] = String((args.length - counted - 1) / 2);
  args.push(String(t.dependsOn.length));
  for (const dep of t.dependsOn) args.push(dep);
  if (t.dependsOn.length === 0 && !t.onSuccessOf && !t.onFailureOf) args.push("0");
  else {
    const conds = parentConditions(t);
    args.push(String(conds.size));
    for (const [id, c] of conds) args.push(id, c === "success" ? "s" : "f");
  }
}

const numOrNull = (v: string | undefined) => (v === undefined ? null : Number(v));
const jsonOrNull = (v: string | undefined) => (v === undefined ? null : JSON.parse(v));

/**
 * A task hash (flat HGETALL reply) as a record plus its creation order, or null when empty.
 * The id comes from the reply (lua/includes/record.lua puts it in; layout-1 hashes hold it)
 * or from `id`. Fields at their default are left out of the hash (lua/includes/insert.lua).
 */
export function decodeTask(
  reply: RedisReply,
  id?: string,
): { record: TaskRecord; order: number } | null {
  const f = pairsToObject(reply);
  if (f.status === undefined) return null;
  const body = parseBody(f.body);
  const b = bodyFields(body);
  const record: TaskRecord = {
    id: f.id ?? id!,
    type: f.type,
    status: f.status as TaskStatus,
    pool: f.pool ?? DEFAULT_POOL,
    priority: Number(f.priority ?? 0),
    payload: storedPayload(f.type, jsonOrNull(f.payload), body, false),
    attempt: Number(f.attempt ?? 0),
    maxRetries: Number(f.maxRetries ?? 0),
    stalls: Number(f.stalls ?? 0),
    maxStalls: b.maxStalls,
    progress: numOrNull(f.progress),
    result: jsonOrNull(f.result),
    error: jsonOrNull(f.error),
    createdAt: b.createdAt,
    runAt: numOrNull(f.runAt),
    startedAt: numOrNull(f.startedAt),
    finishedAt: numOrNull(f.finishedAt),
    scheduleId: b.scheduleId,
    dependsOn: b.dependsOn,
    onSuccessOf: b.onSuccessOf,
    onFailureOf: b.onFailureOf,
    key: f.key ?? null,
    timeoutMs: b.timeoutMs,
    backoff: b.backoff,
    cancelReason: f.cancelReason ?? null,
    workerId: f.workerId ?? null,
    expiresAt: numOrNull(f.expiresAt),
    flowControl: body.flowControl ?? null,
    waitingFor: (f.wf ?? null) as TaskRecord["waitingFor"],
    traceparent: body.traceparent ?? null,
    callback: body.callback ? redactedCallback(body.callback) : null,
  };
  return { record, order: Number(f.order) };
}

/**
 * A payload as read: an `http` task's header values redacted in JSON (or, with `reveal`,
 * put back: the claim), a callback task's with the final record it carries.
 */
export function storedPayload(
  type: string,
  stored: unknown,
  body: StoredBody,
  reveal: boolean,
): unknown {
  const task = body.snapshot && decodeTask(body.snapshot)?.record;
  if (task) return callbackPayload(stored, task, reveal);
  return reveal ? unsealPayload(stored, body.secrets) : redactedPayload(type, stored, body.secrets);
}

/** A schedule from the getSchedules script: {json, nextRunAt, lastRunId, lastRunAt}. */
export function decodeSchedule(entry: RedisReply): ScheduleRecord {
  const [text, nextRunAt, lastRunId, lastRunAt, firedAt, paused, createdAt] = entry as string[];
  const s = JSON.parse(text) as ScheduleRecord;
  s.nextRunAt = Number(nextRunAt);
  s.lastRunId = lastRunId ? lastRunId : null;
  s.lastRunAt = lastRunAt ? Number(lastRunAt) : null;
  // Schedules stored before named schedules: no catch-up choice, never paused.
  s.catchUp ??= "last";
  s.lastFiredAt = firedAt ? Number(firedAt) : null;
  s.paused = paused === "1";
  if (createdAt) s.createdAt = Number(createdAt);
  s.template.payload = redactedPayload(s.template.type, s.template.payload, null);
  if (s.template.callback) s.template.callback = redactedCallback(s.template.callback);
  return s;
}

const KINDS = new Set(["ready", "delayed", "expiry", "schedule", "cancel", "cascade", "control"]);

/** A pub/sub message as an event, or null when it is not one of ours. */
export function decodeEvent(message: string): StorageEvent | null {
  try {
    const e = JSON.parse(message);
    return e && KINDS.has(e.kind) ? (e as StorageEvent) : null;
  } catch {
    return null;
  }
}
