/**
 * @module openapi-schemas — `components.schemas` of the OpenAPI document: request bodies
 * generated from the routes' valibot schemas, and the answers (task and attempt records,
 * pages, schedules, workers, stats, errors) written to match what the routes really send,
 * field for field, so a client generated from the document types them usefully.
 * test/unit/openapi-client.test.ts holds real answers against these.
 */
import {
  ALL_STATUSES,
  FINAL_STATUSES,
  MAX_LOG_MESSAGE_BYTES,
  MAX_TASK_LOG_BYTES,
  MAX_TASK_LOG_LINES,
  PRUNED_STATUS,
  TASK_EVENT_KINDS,
  TaskSpecSchema,
} from "../src/mod.ts";
import { API_ERROR_CODES } from "./errors.ts";
import { int, type Json, jsonSchemaOf, list, nullable, obj, ref, str } from "./openapi-parts.ts";
import {
  ATTEMPT_STATUSES,
  BulkResubmitSchema,
  CancelSchema,
  LoginSchema,
  MAX_BATCH,
  PauseSchema,
  PoolSizeSchema,
  TASK_STATUSES,
} from "./schemas.ts";

const ms = (description: string) => ({ type: "integer", description });
const at = (what: string) => ms(`${what} (epoch ms)`);
const orNull = (schema: Json) => ({ oneOf: [schema, { type: "null" }] });
const map = (values: Json) => ({ type: "object", additionalProperties: values });
const bool = { type: "boolean" };
const FINAL = ALL_STATUSES.filter((s) => FINAL_STATUSES.has(s));

/** Fields a task and a schedule's template share. */
const t = {
  type: str,
  pool: str,
  priority: int,
  payload: {
    description: 'Any JSON. For type http, each value of `headers` shows as "[redacted]"; ' +
      "for type callback, `{event, taskId, url, headers, task}` (`task`: the final record)",
  },
  maxRetries: int,
  maxStalls: { ...int, description: "Stalls allowed before the task is dead" },
  timeoutMs: nullable("integer"),
  backoff: orNull(ref("Backoff")),
  dependsOn: list(str),
  onSuccessOf: nullable("string"),
  onFailureOf: nullable("string"),
};

/** The schemas of answers (every field the routes send; optional ones are not `required`). */
function answerSchemas(): Json {
  return {
    TaskStatus: { type: "string", enum: TASK_STATUSES },
    TaskEvent: obj({
      eventId: {
        type: "string",
        description: "`<batch>/<index>`: the stream's position (`<b0>.<b1>…/<part>.<index>` " +
          "on a partitioned store: every partition's)",
      },
      kind: { type: "string", enum: [...TASK_EVENT_KINDS] },
      id: str,
      type: str,
      pool: str,
      at: at("When it happened"),
      status: { type: "string", description: "created: the task's first status" },
      attempt: { type: "integer", description: "The attempt's number (started and after)" },
      runAt: at("retrying: when the next attempt is due"),
      progress: { type: "integer", minimum: 0, maximum: 100, description: "progress: 0..100" },
    }, ["eventId", "kind", "id", "type", "pool", "at"]),
    Submitted: obj({
      id: str,
      status: {
        type: "string",
        enum: [...TASK_STATUSES, "active", PRUNED_STATUS],
        description: "`pruned`: a deduplicated submit's first task, its row removed by retention",
      },
      nextRunAt: at("A schedule's first firing"),
      existing: { const: true, description: "An identical earlier submit had stored it" },
      deduplicated: {
        const: true,
        description: "Its `dedupe` key was taken: nothing stored, `id` is the first task's",
      },
      debounced: {
        const: true,
        description: "Its `debounce` key re-armed the waiting task `id`: nothing new stored",
      },
      runAt: at("A debounced task's new runAt"),
    }, ["id", "status"]),
    SubmitAnswer: {
      allOf: [ref("Submitted"), {
        type: "object",
        properties: {
          warnings: { ...list(str), description: "E.g. no live worker handles the type" },
        },
      }],
    },
    BatchAnswer: obj({
      tasks: list(ref("Submitted")),
      warnings: { ...list(str), description: "Each names its spec as `[i]`" },
    }, ["tasks"]),
    TaskError: obj({ message: str, stack: str }, ["message"]),
    Backoff: {
      oneOf: [
        obj({ type: { const: "fixed" }, delayMs: int }),
        obj({
          type: { const: "exponential" },
          baseMs: int,
          maxMs: int,
          jitter: { type: "number" },
        }),
      ],
    },
    Task: obj({
      id: str,
      type: t.type,
      status: ref("TaskStatus"),
      pool: t.pool,
      priority: t.priority,
      payload: t.payload,
      attempt: { ...int, description: "Attempts started so far" },
      maxRetries: t.maxRetries,
      stalls: { ...int, description: "Attempts lost with their worker (no retry spent)" },
      maxStalls: t.maxStalls,
      progress: { type: ["number", "null"], description: "0..100 as the handler reported it" },
      result: { description: "What the handler returned (any JSON), or null" },
      error: orNull(ref("TaskError")),
      createdAt: at("Stored"),
      runAt: nullable("integer"),
      startedAt: nullable("integer"),
      finishedAt: nullable("integer"),
      scheduleId: nullable("string"),
      dependsOn: t.dependsOn,
      onSuccessOf: t.onSuccessOf,
      onFailureOf: t.onFailureOf,
      key: nullable("string"),
      timeoutMs: t.timeoutMs,
      backoff: t.backoff,
      cancelReason: nullable("string"),
      workerId: nullable("string"),
      expiresAt: {
        type: ["integer", "null"],
        description: "Not started by then (epoch ms), it ends expired; null: never",
      },
      flowControl: orNull(obj({
        key: str,
        parallelism: nullable("integer"),
        rate: nullable("integer"),
        periodMs: nullable("integer"),
      })),
      traceparent: {
        ...nullable("string"),
        description: "The W3C trace context it was submitted in; its attempts' spans continue it",
      },
      callback: {
        ...orNull(ref("Callback")),
        description: "Where its final record is POSTed when it ends in one of `on`",
      },
      waitingFor: {
        type: ["string", "null"],
        enum: ["parallelism", "rate", "pool_limit", "paused", null],
        description: "Why a queued task is not running: its flow key's limit (parallelism, " +
          "rate), else its pool's (pool_limit: at its globalConcurrency; rate: no start " +
          "left in its rate window; paused); null: none",
      },
    }),
    Callback: obj({
      url: str,
      on: { ...list({ type: "string", enum: FINAL }), description: "The endings reported" },
      headers: { ...map(str), description: 'Sent with it; each value shows as "[redacted]"' },
      pool: { ...str, description: "The pool its callback tasks run in (the deployment's)" },
    }),
    TaskPage: obj({ tasks: list(ref("Task")), next: nullable("string") }),
    TaskDetail: {
      allOf: [
        ref("Task"),
        obj({
          parents: {
            ...list(obj({
              id: str,
              relation: { type: "string", enum: ["dependsOn", "onSuccessOf", "onFailureOf"] },
              status: { type: "string", enum: [...ALL_STATUSES, PRUNED_STATUS] },
            })),
            description: "Its workflow parents (at most 100), with their status now",
          },
          children: {
            ...list(obj({ id: str, status: { type: "string", enum: ALL_STATUSES } })),
            description: "A page of the tasks that wait on it, oldest first",
          },
          childrenNext: { ...nullable("string"), description: "childrenCursor of the next page" },
        }),
      ],
    },
    Attempt: obj({
      taskId: str,
      type: str,
      pool: str,
      attempt: int,
      status: { type: "string", enum: ATTEMPT_STATUSES },
      error: orNull(ref("TaskError")),
      startedAt: at("Started"),
      finishedAt: at("Finished"),
      durationMs: int,
      workerId: str,
    }),
    AttemptPage: obj({ attempts: list(ref("Attempt")), next: nullable("string") }),
    LogLine: obj({
      at: at("When the handler logged it (the worker's clock)"),
      attempt: { ...int, description: "The attempt that logged it" },
      message: { ...str, description: `Cut at ${MAX_LOG_MESSAGE_BYTES} bytes, with a marker` },
      fields: {
        type: "object",
        additionalProperties: true,
        description: "The structured fields given, if any",
      },
    }, ["at", "attempt", "message"]),
    LogPage: obj({
      logs: list(ref("LogLine")),
      dropped: {
        ...int,
        description: `Lines not kept: a task keeps its newest ${MAX_TASK_LOG_LINES} lines ` +
          `within ${MAX_TASK_LOG_BYTES} bytes`,
      },
      next: { ...nullable("string"), description: "The `cursor` of the next page, or null" },
    }),
    Schedule: obj({
      id: str,
      kind: { type: "string", enum: ["every", "cron"] },
      everyMs: nullable("integer"),
      cron: nullable("string"),
      timezone: nullable("string"),
      // expiresInMs only on a template that has one.
      template: obj({
        ...t,
        expiresInMs: { ...int, description: "Each run expires this long after its occurrence" },
        callback: { ...ref("Callback"), description: "Each run carries it" },
      }, Object.keys(t)),
      startAt: at("Interval schedules are anchored here"),
      nextRunAt: at("Next firing"),
      lastRunId: nullable("string"),
      lastRunAt: nullable("integer"),
      skipIfRunning: bool,
      catchUp: {
        type: "string",
        enum: ["none", "last", "all"],
        description: "Missed occurrences: none run, the latest once, or each (at most 100)",
      },
      paused: bool,
      lastFiredAt: {
        ...nullable("integer"),
        description: "The latest occurrence fired, skipped or caught up",
      },
      createdAt: at("Created"),
    }),
    ScheduleView: {
      allOf: [
        ref("Schedule"),
        obj({ nextRuns: { ...list(int), description: "Next 5 run times (none while paused)" } }),
      ],
    },
    Worker: obj({
      id: str,
      host: str,
      pid: int,
      pools: { ...map(int), description: "Pool name → concurrency on this instance" },
      types: { ...list(str), description: "Task types it has handlers for" },
      running: int,
      startedAt: at("Started"),
      lastSeen: at("Last heartbeat"),
    }, ["id", "host", "pid", "pools", "running", "startedAt", "lastSeen"]),
    PoolStats: obj({
      size: int,
      running: { ...int, description: "Running across every instance" },
      queued: int,
      parked: { ...int, description: "Of queued, those held back by their flow key's limit" },
      paused: bool,
      globalConcurrency: { ...nullable("integer"), description: "Cluster-wide cap on running" },
      rateLimit: {
        type: ["object", "null"],
        properties: { max: int, perMs: int },
        required: ["max", "perMs"],
        description: "At most max starts in any window of perMs, across every instance",
      },
      startsInWindow: { ...int, description: "Starts inside the rate limit's current window" },
    }),
    RateLimitInput: obj({ max: int, per: { type: ["string", "integer"] } }),
    DurationStats: obj({
      count: int,
      meanMs: { type: "number" },
      medianMs: { type: "number" },
      minMs: { type: "number" },
      maxMs: { type: "number" },
      p95Ms: { type: "number", description: "From 100 samples on" },
      p99Ms: { type: "number", description: "From 100 samples on" },
    }, ["count", "meanMs", "medianMs", "minMs", "maxMs"]),
    Stats: obj({
      byStatus: obj(Object.fromEntries(TASK_STATUSES.map((s) => [s, int]))),
      pools: map(ref("PoolStats")),
      totals: obj({ succeeded: int, failedAttempts: int, dead: int, stalled: int, expired: int }),
      durations: { ...map(ref("DurationStats")), description: "Per task type" },
      flowKeys: {
        ...list(ref("FlowKeyStats")),
        description: "Busy flow keys (running or parked work), most recently submitted " +
          "first, at most 50 (looked for among the 1000 last submitted)",
      },
    }),
    FlowKeyStats: obj({
      key: str,
      parallelism: nullable("integer"),
      rate: nullable("integer"),
      periodMs: nullable("integer"),
      running: int,
      parked: { ...int, description: "Queued tasks held back by the key's limit" },
    }),
    Error: obj({
      error: obj({
        code: { type: "string", enum: API_ERROR_CODES },
        message: str,
        issues: list(obj({ path: str, message: str })),
      }, ["code", "message"]),
    }),
  };
}

/** `components.schemas`: generated request bodies plus the answers. */
export function componentSchemas(): Json {
  return {
    TaskSpec: jsonSchemaOf(TaskSpecSchema),
    TaskBatch: { type: "array", minItems: 1, maxItems: MAX_BATCH, items: ref("TaskSpec") },
    CancelRequest: jsonSchemaOf(CancelSchema),
    BulkResubmit: jsonSchemaOf(BulkResubmitSchema),
    PoolSize: jsonSchemaOf(PoolSizeSchema),
    PauseRequest: jsonSchemaOf(PauseSchema),
    Login: jsonSchemaOf(LoginSchema),
    ...answerSchemas(),
  };
}
