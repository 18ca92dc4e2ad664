/**
 * @module task-schema — the one valibot schema for a task spec, used by `submit` and the
 * HTTP API alike, and the normalisation that turns a valid spec into absolute times and ms.
 */
import * as v from "valibot";
import { type FieldIssue, ValidationError } from "./errors.ts";
import { MAX_DURATION_MS, parseDuration } from "./duration.ts";
import type { CatchUp } from "./task.ts";
import { isTraceparent } from "./traceparent.ts";
import { isPlainJson, quickValid } from "./spec-quick-check.ts";
import { NAME_PATTERN, NAME_RULE, TASK_REF_PATTERN } from "./ids.ts";
import { CALLBACK_STATUSES, callbackIssues, CallbackSpecSchema } from "./callback-schema.ts";
import { DEFAULT_OUTBOUND_POLICY, type OutboundPolicy } from "./outbound-policy.ts";
import {
  type Backoff,
  type Callback,
  type Debounce,
  type Dedupe,
  DEFAULT_MAX_STALLS,
  DEFAULT_POOL,
  type FlowControl,
} from "./task.ts";
import {
  cronIntervalProblem,
  cronProblem,
  debounceWaitProblem,
  dedupeKeyProblem,
  dedupeTtlProblem,
  DEFAULT_MIN_INTERVAL_MS,
  everyProblem,
  expiresAtProblem,
  expiresInProblem,
  isTimeZone,
  MAX_FLOW_PARALLELISM,
  MAX_RATE_LIMIT,
  MAX_RATE_PER_MS,
  textIssues,
} from "./bounds.ts";

/** A task type, custom id or pool name ({@link NAME_PATTERN}); the API's schemas use it too. */
export const NameSchema = v.pipe(
  v.string("expected a string"),
  v.regex(NAME_PATTERN, (issue) => `${NAME_RULE}, got ${JSON.stringify(issue.input)}`),
);
const name = NameSchema;

/** A workflow parent: a task id as the store gave it (a custom id, or one with `~<k>`). */
const taskRef = v.pipe(
  v.string("expected a string"),
  v.regex(
    TASK_REF_PATTERN,
    (issue) => `${NAME_RULE} (or an id the store made), got ${JSON.stringify(issue.input)}`,
  ),
);

const duration = v.pipe(
  v.union([v.number(), v.string()], 'expected ms or a duration string like "30s"'),
  v.check(
    (value) => !("error" in parseDuration(value)),
    (issue) => (parseDuration(issue.input) as { error: string }).error,
  ),
);

const positiveDuration = v.pipe(
  duration,
  v.check((value) => (parseDuration(value) as { ms: number }).ms > 0, "must be more than 0 ms"),
);

const instant = v.pipe(
  v.union(
    [
      v.pipe(v.number(), v.integer("expected an integer of epoch ms"), v.minValue(0)),
      v.pipe(
        v.string(),
        v.isoTimestamp("expected an ISO 8601 timestamp like 2026-01-31T09:00:00Z"),
      ),
    ],
    "expected epoch ms or an ISO 8601 timestamp",
  ),
  // The same 100-year horizon as a delay (see MAX_DURATION_MS).
  v.check(
    (at) => (typeof at === "number" ? at : Date.parse(at)) <= Date.now() + MAX_DURATION_MS,
    (issue) => `expected at most 100 years from now, got ${JSON.stringify(issue.input)}`,
  ),
);

const backoffSchema = v.variant("type", [
  v.strictObject({ type: v.literal("fixed"), delay: duration }),
  v.strictObject({
    type: v.literal("exponential"),
    base: positiveDuration,
    max: v.optional(duration),
    jitter: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1))),
  }),
], 'expected { type: "fixed", delay } or { type: "exponential", base, max, jitter }');

const dedupeSchema = v.strictObject({
  key: v.pipe(
    v.string("expected a string"),
    v.check((key) => dedupeKeyProblem(key) === null, (i) => dedupeKeyProblem(i.input)!),
  ),
  ttl: v.pipe(
    duration,
    v.check(
      (ttl) => dedupeTtlProblem((parseDuration(ttl) as { ms: number }).ms) === null,
      (i) => dedupeTtlProblem((parseDuration(i.input) as { ms: number }).ms)!,
    ),
  ),
});

/** A `debounce.delay` or `debounce.maxWait`: a duration from 1 ms to MAX_DEBOUNCE_MS. */
const debounceWait = v.pipe(
  duration,
  v.check(
    (d) => debounceWaitProblem((parseDuration(d) as { ms: number }).ms) === null,
    (i) => debounceWaitProblem((parseDuration(i.input) as { ms: number }).ms)!,
  ),
);

const debounceSchema = v.strictObject({
  // The same rule as dedupe.key: it becomes part of a Redis key name.
  key: v.pipe(
    v.string("expected a string"),
    v.check((key) => dedupeKeyProblem(key) === null, (i) => dedupeKeyProblem(i.input)!),
  ),
  delay: debounceWait,
  maxWait: v.optional(debounceWait),
});

const flowLimit = (max: number) =>
  v.pipe(
    v.number("expected an integer"),
    v.integer("expected an integer"),
    v.minValue(1, "must be at least 1"),
    v.maxValue(max, `must be at most ${max}`),
  );

/** `flowControl`: a key (a Redis key name part, as dedupe.key) and its limits. */
const flowControlSchema = v.strictObject({
  key: v.pipe(
    v.string("expected a string"),
    v.check((key) => dedupeKeyProblem(key) === null, (i) => dedupeKeyProblem(i.input)!),
  ),
  parallelism: v.optional(flowLimit(MAX_FLOW_PARALLELISM)),
  rate: v.optional(flowLimit(MAX_RATE_LIMIT)),
  period: v.optional(v.pipe(
    duration,
    // The raw number too: a fractional ms would be rounded up to a valid period.
    v.check((d) => {
      const ms = (parseDuration(d) as { ms: number }).ms;
      return ms >= 1 && ms <= MAX_RATE_PER_MS && (typeof d !== "number" || d >= 1);
    }, `must be from 1 ms to ${MAX_RATE_PER_MS} ms (1 day)`),
  )),
});

const jsonValue = v.check(
  (value: unknown) => isPlainJson(value),
  "must be plain JSON (no functions, undefined, NaN, Infinity, BigInt or cycles; depth ≤ 64)",
);

/** The task spec as the HTTP API and `submit` accept it. */
export const TaskSpecSchema = v.strictObject({
  type: name,
  payload: v.optional(v.pipe(v.unknown(), jsonValue)),
  id: v.optional(name),
  key: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
  dedupe: v.optional(dedupeSchema),
  debounce: v.optional(debounceSchema),
  flowControl: v.optional(flowControlSchema),
  // Where the task lives in a partitioned deployment (docs/PARTITIONS.md); 1 to 256 bytes.
  partitionKey: v.optional(v.pipe(
    v.string("expected a string"),
    v.check((key) => dedupeKeyProblem(key) === null, (i) => dedupeKeyProblem(i.input)!),
  )),
  priority: v.optional(
    v.pipe(v.number(), v.integer("expected an integer"), v.minValue(-1e9), v.maxValue(1e9)),
  ),
  pool: v.optional(name),
  delay: v.optional(duration),
  runAt: v.optional(instant),
  every: v.optional(positiveDuration),
  cron: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
  timezone: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  maxRetries: v.optional(
    v.pipe(v.number(), v.integer("expected an integer"), v.minValue(0), v.maxValue(1000)),
  ),
  maxStalls: v.optional(
    v.pipe(v.number(), v.integer("expected an integer"), v.minValue(0), v.maxValue(1000)),
  ),
  backoff: v.optional(backoffSchema),
  timeout: v.optional(positiveDuration),
  dependsOn: v.optional(v.pipe(v.array(taskRef), v.maxLength(1000))),
  onSuccessOf: v.optional(taskRef),
  onFailureOf: v.optional(taskRef),
  expiresIn: v.optional(duration),
  expiresAt: v.optional(instant),
  catchUp: v.optional(v.picklist(["none", "last", "all"], 'expected "none", "last" or "all"')),
  traceparent: v.optional(v.pipe(
    v.string("expected a string"),
    v.check(
      isTraceparent,
      "must be a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>",
    ),
  )),
  skipIfRunning: v.optional(v.boolean("expected true or false")),
  callback: v.optional(CallbackSpecSchema),
});

/** A task spec as written by a caller. Durations are ms or strings like `"30s"`. */
export type TaskSpec = v.InferInput<typeof TaskSpecSchema>;

/** A spec after validation, with every duration in ms and `runAt` absolute. */
export interface ParsedSpec {
  type: string;
  payload: unknown;
  id: string | null;
  key: string | null;
  dedupe: Dedupe | null;
  debounce: Debounce | null;
  flowControl: FlowControl | null;
  /** The key that places it in a partitioned deployment (src/core/partitions.ts), or null. */
  partitionKey: string | null;
  priority: number;
  pool: string;
  runAt: number | null;
  everyMs: number | null;
  cron: string | null;
  timezone: string | null;
  maxRetries: number;
  maxStalls: number;
  backoff: Backoff | null;
  timeoutMs: number | null;
  dependsOn: string[];
  onSuccessOf: string | null;
  onFailureOf: string | null;
  /** When a one-off task expires (from `expiresIn` or `expiresAt`); null: never. */
  expiresAt: number | null;
  /** `expiresIn` in ms (a schedule's runs expire this long after their occurrence). */
  expiresInMs: number | null;
  /** A schedule's missed occurrences (default last). */
  catchUp: CatchUp;
  /** A schedule skips an occurrence while its previous run is unfinished (default true). */
  skipIfRunning: boolean;
  /** The W3C trace context the task continues, or null. */
  traceparent: string | null;
  /** Where its final record goes (`on` defaulted); the pool is the deployment's. */
  callback: Omit<Callback, "pool"> | null;
}

/** Bounds set by the deployment rather than by the spec. */
export interface SpecBounds {
  /** Floor of `every` and of the gap between two cron occurrences (default 1 s). */
  minIntervalMs?: number;
  /** The submit's `now`: an `expiresAt` must be after it (default: the system clock). */
  now?: number;
  /** What `callback.url` may call, as for `http` tasks (default: public addresses only). */
  outboundPolicy?: OutboundPolicy;
}

/**
 * Validates a spec and normalises it, or throws a {@link ValidationError} naming each bad
 * field. `pathPrefix` is prepended to paths (e.g. `[3].` for the 4th spec of a batch).
 *
 * @example
 * parseTaskSpec({ type: "send_email", delay: "30s" }, Date.now()).runAt; // now + 30000
 */
export function parseTaskSpec(
  input: unknown,
  now: number,
  pathPrefix = "",
  bounds: SpecBounds = {},
): ParsedSpec {
  const issues = collectSpecIssues(input, pathPrefix, { now, ...bounds });
  if (issues.length) throw new ValidationError(issues);
  return normalise(input as TaskSpec, now);
}

/**
 * What `PUT /schedules/:id` refuses before the spec's own checks: a body that is not an
 * object, an `id` other than the path's, a spec with neither `every` nor `cron`.
 */
export function scheduleSpecIssues(id: string, spec: unknown): FieldIssue[] {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    return [{ path: "", message: "expected a schedule spec (an object)" }];
  }
  const s = spec as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  if (s.id !== undefined && s.id !== id) {
    issues.push({ path: "id", message: `must be the path's id "${id}" or absent` });
  }
  if (s.every === undefined && s.cron === undefined) {
    issues.push({ path: "every", message: "a schedule needs every or cron" });
  }
  return issues;
}

/** Fields a debounced one-off spec must not have: the store decides its id and runAt. */
const NOT_WITH_DEBOUNCE = [
  "id",
  "key",
  "dedupe",
  "delay",
  "runAt",
  "dependsOn",
  "onSuccessOf",
  "onFailureOf",
  // A debounced submit replaces a waiting task's spec: its expiry would have to move too.
  "expiresIn",
  "expiresAt",
] as const;

/** Fields a recurring or cron schedule must not have. */
const NOT_RECURRING = [
  "dependsOn",
  "onSuccessOf",
  "onFailureOf",
  "key",
  "dedupe",
  "debounce",
  "flowControl",
  // A schedule lives, and its runs with it, where its id hashes.
  "partitionKey",
  // Each run is a trace of its own.
  "traceparent",
  // Runs expire relative to their occurrence: expiresIn.
  "expiresAt",
] as const;

const PIPE_EARLY = { abortPipeEarly: true } as const;

/** Every problem with a spec, or an empty list. Shared by single and batch validation. */
export function collectSpecIssues(
  input: unknown,
  pathPrefix = "",
  bounds: SpecBounds = {},
): FieldIssue[] {
  const at = (path: string) => path ? `${pathPrefix}${path}` : pathPrefix.replace(/\.$/, "");
  // First, and alone: text that is not well-formed Unicode cannot be stored as UTF-8 JSON.
  const text = textIssues(input);
  if (text.length) return text.map((i) => ({ path: at(i.path), message: i.message }));
  let spec = input as TaskSpec;
  if (!quickValid(input)) {
    const result = v.safeParse(TaskSpecSchema, input, PIPE_EARLY);
    if (!result.success) {
      return result.issues.map((issue) => ({
        path: at(v.getDotPath(issue) ?? ""),
        message: issueMessage(issue),
      }));
    }
    spec = result.output;
  }
  const issues: FieldIssue[] = [];
  const exclusive = (a: keyof TaskSpec, b: keyof TaskSpec) => {
    if (spec[a] !== undefined && spec[b] !== undefined) {
      issues.push({ path: at(b), message: `cannot be combined with ${a}` });
    }
  };
  exclusive("delay", "runAt");
  exclusive("every", "cron");
  // `key` refuses a second task while the first is unfinished; `dedupe` answers with it.
  exclusive("key", "dedupe");
  exclusive("expiresIn", "expiresAt");
  if (spec.expiresIn !== undefined) {
    const problem = expiresInProblem(parseMs(spec.expiresIn));
    if (problem) issues.push({ path: at("expiresIn"), message: problem });
  }
  if (spec.expiresAt !== undefined) {
    const problem = expiresAtProblem(instantMs(spec.expiresAt), bounds.now ?? Date.now());
    if (problem) issues.push({ path: at("expiresAt"), message: problem });
  }
  if (spec.flowControl !== undefined) issues.push(...flowControlIssues(spec.flowControl, at));
  if (spec.callback !== undefined) {
    const policy = bounds.outboundPolicy ?? DEFAULT_OUTBOUND_POLICY;
    issues.push(...callbackIssues(spec.callback, at, policy));
  }
  // A debounced submit replaces a waiting task's spec: its flow key would have to move too.
  exclusive("flowControl", "debounce");
  const recurring = spec.every !== undefined || spec.cron !== undefined;
  if (spec.debounce !== undefined && !recurring) {
    for (const f of NOT_WITH_DEBOUNCE) exclusive(f, "debounce");
    const { delay, maxWait } = spec.debounce;
    if (maxWait !== undefined && parseMs(maxWait) < parseMs(delay)) {
      issues.push({ path: at("debounce.maxWait"), message: "must be at least debounce.delay" });
    }
  }
  if (recurring) {
    for (const f of NOT_RECURRING) {
      if (spec[f] !== undefined) {
        issues.push({ path: at(f), message: "is not allowed on a recurring or cron schedule" });
      }
    }
  }
  if (!recurring) {
    for (const f of ["catchUp", "skipIfRunning"] as const) {
      if (spec[f] !== undefined) issues.push({ path: at(f), message: "needs every or cron" });
    }
  }
  if (spec.timezone !== undefined) {
    if (spec.cron === undefined) issues.push({ path: at("timezone"), message: "needs cron" });
    else if (!isTimeZone(spec.timezone)) {
      issues.push({
        path: at("timezone"),
        message: `unknown IANA time zone ${JSON.stringify(spec.timezone)}`,
      });
    }
  }
  const minMs = bounds.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
  if (spec.every !== undefined) {
    const problem = everyProblem((parseDuration(spec.every) as { ms: number }).ms, minMs);
    if (problem) issues.push({ path: at("every"), message: problem });
  }
  if (spec.cron !== undefined) {
    const problem = cronProblem(spec.cron, spec.timezone) ??
      cronIntervalProblem(spec.cron, spec.timezone, minMs);
    if (problem) issues.push({ path: at("cron"), message: problem });
  }
  if (spec.onSuccessOf !== undefined && spec.onSuccessOf === spec.onFailureOf) {
    issues.push({ path: at("onFailureOf"), message: "cannot name the same parent as onSuccessOf" });
  }
  const selfRef = spec.id !== undefined &&
    [...(spec.dependsOn ?? []), spec.onSuccessOf, spec.onFailureOf].includes(spec.id);
  if (selfRef) issues.push({ path: at("id"), message: "a task cannot depend on itself (cycle)" });
  return issues;
}

/** What a schema-valid `flowControl` still lacks: a limit, and rate and period together. */
function flowControlIssues(
  fc: NonNullable<TaskSpec["flowControl"]>,
  at: (path: string) => string,
): FieldIssue[] {
  if (fc.rate !== undefined && fc.period === undefined) {
    return [{ path: at("flowControl.period"), message: "is required with flowControl.rate" }];
  }
  if (fc.period !== undefined && fc.rate === undefined) {
    return [{ path: at("flowControl.rate"), message: "is required with flowControl.period" }];
  }
  if (fc.parallelism === undefined && fc.rate === undefined) {
    return [{ path: at("flowControl"), message: "needs parallelism, or rate and period" }];
  }
  return [];
}

/** Normalises a spec that {@link collectSpecIssues} found no issue with (no re-validation). */
export function normalise(spec: TaskSpec, now: number): ParsedSpec {
  const ms = parseMs;
  let runAt: number | null = null;
  if (spec.delay !== undefined) runAt = now + ms(spec.delay);
  if (spec.debounce !== undefined) runAt = now + ms(spec.debounce.delay);
  if (spec.runAt !== undefined) runAt = instantMs(spec.runAt);
  const expiresInMs = spec.expiresIn !== undefined ? ms(spec.expiresIn) : null;
  let expiresAt = expiresInMs !== null ? now + expiresInMs : null;
  if (spec.expiresAt !== undefined) expiresAt = instantMs(spec.expiresAt);
  return {
    type: spec.type,
    payload: spec.payload ?? null,
    id: spec.id ?? null,
    key: spec.key ?? null,
    dedupe: spec.dedupe ? { key: spec.dedupe.key, ttlMs: ms(spec.dedupe.ttl) } : null,
    debounce: spec.debounce
      ? {
        key: spec.debounce.key,
        delayMs: ms(spec.debounce.delay),
        maxWaitMs: spec.debounce.maxWait !== undefined ? ms(spec.debounce.maxWait) : null,
      }
      : null,
    flowControl: spec.flowControl
      ? {
        key: spec.flowControl.key,
        parallelism: spec.flowControl.parallelism ?? null,
        rate: spec.flowControl.rate ?? null,
        periodMs: spec.flowControl.period !== undefined ? ms(spec.flowControl.period) : null,
      }
      : null,
    partitionKey: spec.partitionKey ?? null,
    priority: spec.priority ?? 0,
    pool: spec.pool ?? DEFAULT_POOL,
    runAt,
    everyMs: spec.every !== undefined ? ms(spec.every) : null,
    cron: spec.cron ?? null,
    timezone: spec.timezone ?? null,
    maxRetries: spec.maxRetries ?? 0,
    maxStalls: spec.maxStalls ?? DEFAULT_MAX_STALLS,
    backoff: spec.backoff ? normaliseBackoff(spec.backoff, ms) : null,
    timeoutMs: spec.timeout !== undefined ? ms(spec.timeout) : null,
    dependsOn: spec.dependsOn?.length ? [...new Set(spec.dependsOn)] : [],
    onSuccessOf: spec.onSuccessOf ?? null,
    onFailureOf: spec.onFailureOf ?? null,
    expiresAt,
    expiresInMs,
    catchUp: spec.catchUp ?? "last",
    skipIfRunning: spec.skipIfRunning ?? true,
    traceparent: spec.traceparent ?? null,
    callback: spec.callback
      ? {
        url: spec.callback.url,
        on: spec.callback.on ? (spec.callback.on as Callback["on"]) : [...CALLBACK_STATUSES],
        headers: { ...spec.callback.headers },
      }
      : null,
  };
}

/** An `instant` (epoch ms or ISO 8601 text) as epoch ms. */
const instantMs = (at: number | string) => (typeof at === "number" ? at : Date.parse(at));

const parseMs = (d: unknown) => (parseDuration(d) as { ms: number }).ms;

function normaliseBackoff(
  b: NonNullable<TaskSpec["backoff"]>,
  ms: (d: unknown) => number,
): Backoff {
  if (b.type === "fixed") return { type: "fixed", delayMs: ms(b.delay) };
  const baseMs = ms(b.base);
  return {
    type: "exponential",
    baseMs,
    maxMs: b.max !== undefined ? Math.max(baseMs, ms(b.max)) : Math.max(baseMs, 3_600_000),
    jitter: b.jitter ?? 0,
  };
}

function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.type === "strict_object" || issue.type === "object") {
    if (issue.expected === "never") {
      return `unknown field (allowed: ${Object.keys(TaskSpecSchema.entries).join(", ")})`;
    }
    if (issue.expected?.startsWith('"')) return "is required";
    return `expected an object, got ${describe(issue.input)}`;
  }
  if (issue.message.startsWith("Invalid ")) {
    return `${issue.expected ? `expected ${issue.expected}` : "invalid"}, got ${
      describe(issue.input)
    }`;
  }
  return issue.message;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return JSON.stringify(value) ?? String(value);
}
