/**
 * @module openapi — the OpenAPI 3.1 document of the API, written for client generators: every
 * operation has a stable `operationId` (it becomes the method name), every answer a schema
 * (routes/openapi-schemas.ts), every error its 4xx/5xx, and the security is declared.
 * test/unit/openapi-client.test.ts lints it with Redocly's recommended rules, generates a
 * client from it, and type-checks real answers against that client.
 */
import { MAX_BATCH, TASK_STATUSES } from "./schemas.ts";
import { operationPaths, otherPaths } from "./openapi-operations.ts";
import {
  body,
  BODY_ERRORS,
  failure,
  int,
  type Json,
  listParams,
  NOT_FOUND,
  obj,
  ok,
  op,
  pathId,
  query,
  ref,
  RETRY_AFTER,
  STORAGE_DOWN,
  str,
  unavailable,
} from "./openapi-parts.ts";
import { componentSchemas } from "./openapi-schemas.ts";
import { EVENT_KEEP_ALIVE_MS, MAX_EVENT_STREAMS } from "./events.ts";
import { TASK_EVENT_BUFFER, TASK_EVENT_CHUNK, TASK_EVENT_KINDS } from "../src/mod.ts";

const SUBMIT_ERRORS = {
  ...BODY_ERRORS,
  "409": failure("conflict: id in use (with a different spec) or duplicate key"),
  "422": failure(
    "unknown_type: strict task types (SKEDULR_STRICT_TYPES=1) and no live worker handles " +
      "the type; nothing was stored",
  ),
  "503": unavailable(
    "capacity: the store holds its limit of unfinished tasks; or " + STORAGE_DOWN +
      ". A submit that got a storage 503 may or may not have been stored: retry it with " +
      "the same custom id, and an identical retry answers 200.",
  ),
};
const IDENTICAL_RETRY = "Already stored by an identical earlier submit (same custom id, " +
  "same spec): nothing new was stored, `existing` is true; or its `dedupe` key was taken " +
  "within its ttl: nothing stored, the first task is answered with `deduplicated: true`; " +
  "or its `debounce` key re-armed a waiting task: `debounced: true` and its new `runAt`";

/** The paths of `/skedulr/api/tasks...`. */
function taskPaths(a: string): Json {
  const T = "Tasks";
  return {
    [`${a}/tasks`]: {
      post: op("submitTask", T, "Submit a task (or an every/cron schedule)", {
        requestBody: body(ref("TaskSpec")),
        responses: {
          "200": ok(IDENTICAL_RETRY, ref("SubmitAnswer")),
          "201": {
            ...ok("Stored", ref("SubmitAnswer")),
            headers: { Location: { description: "The task's URL", schema: { type: "string" } } },
          },
          ...SUBMIT_ERRORS,
        },
      }),
      get: op("listTasks", T, "List tasks, newest first", {
        parameters: listParams(TASK_STATUSES),
        responses: {
          "200": ok("A page", ref("TaskPage")),
          "400": failure("invalid_request: a bad query parameter"),
        },
      }),
    },
    [`${a}/tasks/batch`]: {
      post: op("submitTaskBatch", T, `Submit up to ${MAX_BATCH} specs, all or none`, {
        requestBody: body(ref("TaskBatch")),
        responses: {
          "200": ok(`Every spec: ${IDENTICAL_RETRY}`, ref("BatchAnswer")),
          "201": ok("Stored", ref("BatchAnswer")),
          ...SUBMIT_ERRORS,
        },
      }),
    },
    [`${a}/tasks/{id}`]: {
      get: op("getTask", T, "Get a task, with its workflow parents and children", {
        parameters: [
          pathId("id", "Task id"),
          query("childrenLimit", "Children per page (1..100, default 20)", {
            type: "integer",
            minimum: 1,
            maximum: 100,
          }),
          query("childrenCursor", "The `childrenNext` of the page before", str),
        ],
        responses: {
          "200": ok("The task record", ref("TaskDetail")),
          "400": failure("invalid_request: a bad query parameter"),
          ...NOT_FOUND,
        },
      }),
    },
    [`${a}/tasks/{id}/wait`]: {
      get: op("waitTask", T, "Wait until a task is final (or the timeout), then get it", {
        description: "Answers 200 with the record as soon as the task is final, or with its " +
          "current record at the timeout. The answer streams: spaces keep the connection " +
          "busy while it waits (leading whitespace is valid JSON).",
        parameters: [
          pathId("id", "Task id"),
          query(
            "timeout",
            "How long to wait: ms or a duration such as 30s (default 30 s, at most 60 s)",
          ),
        ],
        responses: {
          "200": ok("The task record", ref("Task")),
          "400": failure("invalid_request: a bad timeout"),
          ...NOT_FOUND,
        },
      }),
    },
    [`${a}/events`]: {
      get: op("streamTaskEvents", T, "Task events as Server-Sent Events, live and resumable", {
        description: "A text/event-stream of task events from every process, in order, " +
          "each once: `event: <kind>`, `id: <batch>/<index>`, `data: <TaskEvent JSON>`. " +
          "Send `Last-Event-ID` (browsers do on reconnect; or `?lastEventId=`) to get the " +
          `events after it first, from a buffer of the last ${TASK_EVENT_BUFFER} batches ` +
          `(a batch: one call's events, at most ${TASK_EVENT_CHUNK}); \`event: missed\` ` +
          "says some were lost (read the tasks again). `event: open` starts the stream; " +
          `a comment every ${EVENT_KEEP_ALIVE_MS / 1000} s keeps a quiet one open; ` +
          "`event: error` ends one the server cut (a client too slow, a store that did not " +
          "answer): reconnect.",
        parameters: [
          query("id", "Only these task ids (comma list, at most 100)", str),
          query("type", "Only these task types (comma list)", str),
          query("pool", "Only these pools (comma list)", str),
          query("kind", `Only these kinds (comma list of ${TASK_EVENT_KINDS.join(", ")})`, str),
          query("lastEventId", "Resume after this event id (the Last-Event-ID header wins)", str),
          {
            name: "Last-Event-ID",
            in: "header",
            description: "Resume after this event id",
            schema: str,
          },
        ],
        responses: {
          "200": {
            description: "The event stream; each task event's data line is a TaskEvent",
            content: {
              "text/event-stream": {
                schema: { type: "string", contentSchema: ref("TaskEvent") },
              },
            },
          },
          "400": failure("invalid_request: a bad filter or Last-Event-ID"),
          "429": {
            ...failure(`rate_limited: this node serves ${MAX_EVENT_STREAMS} streams already`),
            headers: RETRY_AFTER,
          },
        },
      }),
    },
    [`${a}/tasks/{id}/logs`]: {
      get: op("getTaskLogs", T, "A task's log lines (ctx.log), oldest first", {
        description: "Each attempt's lines, stored with its outcome and every 5 s while it " +
          "runs. A page of at most `limit` lines; `dropped` counts the lines not kept.",
        parameters: [
          pathId("id", "Task id"),
          query("attempt", "Only this attempt's lines", { type: "integer", minimum: 1 }),
          query("limit", "Lines per page, 1..1000 (default 50)", {
            type: "integer",
            minimum: 1,
            maximum: 1000,
          }),
          query("cursor", "The `next` of the page before"),
        ],
        responses: {
          "200": ok("A page of lines", ref("LogPage")),
          "400": failure("invalid_request: a bad query parameter"),
          ...NOT_FOUND,
        },
      }),
    },
    [`${a}/tasks/{id}/cancel`]: {
      post: op("cancelTask", T, "Cancel a task (a running one is aborted) or a schedule", {
        parameters: [pathId("id", "Task or schedule id")],
        requestBody: body(ref("CancelRequest"), false),
        responses: {
          "200": ok("Cancelled", obj({ id: str, status: { const: "cancelled" } })),
          ...BODY_ERRORS,
          ...NOT_FOUND,
          "409": failure("conflict: the task already finished"),
        },
      }),
    },
    [`${a}/tasks/{id}/resubmit`]: {
      post: op(
        "resubmitTask",
        T,
        "Queue a dead, cancelled or expired task again (same id, attempts reset, no expiry)",
        {
          parameters: [pathId("id", "Task id")],
          requestBody: body({ type: "object", maxProperties: 0 }, false),
          responses: {
            "200": ok("Queued again", obj({ id: str, status: ref("TaskStatus") })),
            ...BODY_ERRORS,
            ...NOT_FOUND,
            "409": failure("conflict: the task is not dead, cancelled or expired"),
          },
        },
      ),
    },
    [`${a}/tasks/resubmit`]: {
      post: op(
        "resubmitTasks",
        T,
        "Resubmit every dead (cancelled, expired) task matching a filter",
        {
          requestBody: body(ref("BulkResubmit")),
          responses: { "200": ok("How many", obj({ resubmitted: int })), ...BODY_ERRORS },
        },
      ),
    },
  };
}

/** Builds the document; `secured` (a token or keys configured) declares bearer and cookie. */
export function openApiDocument(options: { version: string; secured: boolean }): Json {
  const a = "/skedulr/api";
  const paths = {
    ...taskPaths(a),
    ...operationPaths(a),
    ...otherPaths(a),
  } as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const o of Object.values(item)) {
      const responses = o.responses as Json;
      // Every operation that reads or writes the store has the request deadline.
      const store = (path.startsWith(a) || path === "/skedulr/metrics") &&
        !(o.tags as string[]).includes("Docs");
      if (store) responses["503"] ??= unavailable(STORAGE_DOWN);
      if (options.secured && !o.security) responses["401"] = failure("unauthorized");
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Skedulr API",
      version: options.version,
      license: { name: "MIT", identifier: "MIT" },
      description: "Submit, inspect and control background tasks. Errors are " +
        '`{ "error": { "code", "message", "issues"?: [{ "path", "message" }] } }`. ' +
        "Codes: 400 invalid_request, 401 unauthorized, 403 forbidden (a cookie-borne change " +
        "from another origin), 404 not_found, 409 conflict, 413 payload_too_large, " +
        "415 unsupported_media_type, 422 unknown_type (strict task types only), " +
        "503 capacity or storage (with Retry-After). 503 storage " +
        "means the store is unreachable, loading, full, or did not answer within the request " +
        "deadline: a submit that got it may or may not have been stored, so retry it with the " +
        "same custom `id`; an identical retry answers 200 with the stored task.",
    },
    // Relative: the document describes the server that serves it, whatever its address.
    servers: [{ url: "/", description: "The server this document came from" }],
    tags: [
      { name: "Tasks", description: "Submit, read, cancel and resubmit tasks" },
      { name: "Schedules", description: "Recurring (every) and cron schedules" },
      { name: "Operations", description: "Workers, stats, pools, history, health, metrics" },
      { name: "Docs", description: "This document, the docs page and the dashboard login" },
    ],
    paths,
    components: {
      schemas: componentSchemas(),
      ...(options.secured
        ? {
          securitySchemes: {
            bearer: { type: "http", scheme: "bearer" },
            cookie: { type: "apiKey", in: "cookie", name: "skedulr_token" },
          },
        }
        : {}),
    },
    // Open (no token, no keys: loopback only) says so explicitly: no credential needed.
    security: options.secured ? [{ bearer: [] }, { cookie: [] }] : [],
  };
}
