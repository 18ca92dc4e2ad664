/**
 * @module openapi — the OpenAPI 3.1 document of the API. Request bodies are generated from
 * the same valibot schemas the routes validate with (`@valibot/to-json-schema`); the path
 * objects and response shapes are written by hand.
 */
import { ATTEMPT_STATUSES, MAX_BATCH, TASK_STATUSES } from "./schemas.ts";
import {
  body,
  componentSchemas,
  failure,
  int,
  type Json,
  listParams,
  nullable,
  obj,
  ok,
  pathId,
  ref,
  RETRY_AFTER,
  str,
  unavailable,
} from "./openapi-parts.ts";

/** Every API operation can answer this when the store cannot. */
const STORAGE_DOWN = "storage: the store is unreachable, loading, full, or did not answer " +
  "within the request deadline (SKEDULR_API_TIMEOUT, default 2 s); retry later";
const ERRORS_SUBMIT = {
  "400": failure("invalid_request: bad JSON or spec; `issues` names each field"),
  "409": failure("conflict: id in use (with a different spec) or duplicate key"),
  "413": failure("payload_too_large"),
  "415": failure("unsupported_media_type"),
  "503": unavailable(
    "capacity: the store holds its limit of unfinished tasks; or " + STORAGE_DOWN +
      ". A submit that got a storage 503 may or may not have been stored: retry it with " +
      "the same custom id, and an identical retry answers 200.",
  ),
};
const IDENTICAL_RETRY = "Already stored by an identical earlier submit (same custom id, " +
  "same spec): nothing new was stored, `existing` is true";
const NOT_FOUND = { "404": failure("not_found") };

/** Builds the document; `secured` adds the bearer and cookie security schemes. */
export function openApiDocument(options: { version: string; secured: boolean }): Json {
  const a = "/skedulr/api";
  const task = ["Tasks"];
  const ops = ["Operations"];
  const paths: Json = {
    [`${a}/tasks`]: {
      post: {
        tags: task,
        summary: "Submit a task (or an every/cron schedule)",
        requestBody: body(ref("TaskSpec")),
        responses: {
          "200": ok(IDENTICAL_RETRY, ref("Submitted")),
          "201": ok("Stored", ref("Submitted")),
          ...ERRORS_SUBMIT,
        },
      },
      get: {
        tags: task,
        summary: "List tasks, newest first",
        parameters: listParams(TASK_STATUSES),
        responses: {
          "200": ok(
            "A page",
            obj({ tasks: { type: "array", items: ref("Task") }, next: nullable("string") }),
          ),
          "400": failure("invalid_request: a bad query parameter"),
        },
      },
    },
    [`${a}/tasks/batch`]: {
      post: {
        tags: task,
        summary: `Submit up to ${MAX_BATCH} specs, all or none`,
        requestBody: body(ref("TaskBatch")),
        responses: {
          "200": ok(
            `Every spec: ${IDENTICAL_RETRY}`,
            obj({ tasks: { type: "array", items: ref("Submitted") } }),
          ),
          "201": ok("Stored", obj({ tasks: { type: "array", items: ref("Submitted") } })),
          ...ERRORS_SUBMIT,
        },
      },
    },
    [`${a}/tasks/{id}`]: {
      get: {
        tags: task,
        summary: "Get a task",
        parameters: [pathId("id", "Task id")],
        responses: { "200": ok("The task record", ref("Task")), ...NOT_FOUND },
      },
    },
    [`${a}/tasks/{id}/cancel`]: {
      post: {
        tags: task,
        summary: "Cancel a task (a running one is aborted) or a schedule",
        parameters: [pathId("id", "Task or schedule id")],
        requestBody: body(ref("CancelRequest"), false),
        responses: {
          "200": ok("Cancelled", obj({ id: str, status: { const: "cancelled" } })),
          ...NOT_FOUND,
          "409": failure("conflict: the task already finished"),
        },
      },
    },
    [`${a}/tasks/{id}/resubmit`]: {
      post: {
        tags: task,
        summary: "Queue a dead or cancelled task again (same id, attempts reset)",
        parameters: [pathId("id", "Task id")],
        responses: {
          "200": ok("Queued", obj({ id: str, status: str })),
          ...NOT_FOUND,
          "409": failure("conflict: the task is not dead or cancelled"),
        },
      },
    },
    [`${a}/tasks/resubmit`]: {
      post: {
        tags: task,
        summary: "Resubmit every dead (or cancelled) task matching a filter",
        requestBody: body(ref("BulkResubmit")),
        responses: { "200": ok("How many", obj({ resubmitted: int })), ...ERRORS_SUBMIT },
      },
    },
    [`${a}/schedules`]: {
      get: {
        tags: ["Schedules"],
        summary: "List every/cron schedules",
        responses: {
          "200": ok("Schedules", obj({ schedules: { type: "array", items: { type: "object" } } })),
        },
      },
    },
    [`${a}/schedules/{id}`]: {
      delete: {
        tags: ["Schedules"],
        summary: "Delete a schedule (no further firings)",
        parameters: [pathId("id", "Schedule id")],
        responses: {
          "200": ok("Deleted", obj({ id: str, status: { const: "deleted" } })),
          ...NOT_FOUND,
        },
      },
    },
    [`${a}/workers`]: {
      get: {
        tags: ops,
        summary: "Live worker instances (id, host, pools, running, last seen)",
        responses: {
          "200": ok("Workers", obj({ workers: { type: "array", items: { type: "object" } } })),
        },
      },
    },
    [`${a}/stats`]: {
      get: {
        tags: ops,
        summary: "Counts by status and pool, totals, per-type durations",
        responses: { "200": ok("Stats", { type: "object" }) },
      },
    },
    [`${a}/pause`]: pauseOp(ops, "Pause one pool (or all): running work finishes, nothing starts"),
    [`${a}/resume`]: pauseOp(ops, "Resume one pool (or all)"),
    [`${a}/pools/{name}`]: {
      post: {
        tags: ops,
        summary: "Set a pool's concurrency on every instance (pools are made by configuration)",
        parameters: [pathId("name", "Pool name")],
        requestBody: body(ref("PoolSize")),
        responses: {
          "200": ok("Set", obj({ pool: str, concurrency: int })),
          "400": failure("invalid_request"),
          "404": failure("not_found: no instance runs this pool"),
        },
      },
    },
    [`${a}/history`]: {
      get: {
        tags: ops,
        summary: "Finished attempts, newest first",
        parameters: listParams(ATTEMPT_STATUSES),
        responses: {
          "200": ok(
            "A page",
            obj({
              attempts: { type: "array", items: ref("Attempt") },
              next: nullable("string"),
            }),
          ),
          "400": failure("invalid_request: a bad query parameter"),
        },
      },
    },
    [`${a}/openapi.json`]: {
      get: {
        tags: ["Docs"],
        summary: "This document",
        responses: { "200": ok("OpenAPI", { type: "object" }) },
      },
    },
    [`${a}/docs`]: {
      get: {
        tags: ["Docs"],
        summary: "Human-readable docs (HTML)",
        responses: { "200": { description: "HTML" } },
      },
    },
    "/skedulr/healthz": {
      get: {
        tags: ops,
        summary: "Storage reachable?",
        security: [],
        responses: {
          "200": ok("Healthy", obj({ ok: { const: true }, storage: str })),
          "503": {
            ...ok(
              "The store failed PING or did not answer it within 1 s; `error` says which",
              obj({ ok: { const: false }, storage: str, error: str }),
            ),
            headers: RETRY_AFTER,
          },
        },
      },
    },
    "/skedulr/metrics": {
      get: {
        tags: ops,
        summary: "Prometheus text metrics",
        responses: { "200": { description: "text/plain; version=0.0.4" } },
      },
    },
    "/skedulr/login": {
      post: {
        tags: ["Docs"],
        summary: "Set the dashboard cookie (JSON { token } or a form field `token`)",
        security: [],
        requestBody: body(ref("Login")),
        responses: {
          "200": ok("Logged in", obj({ ok: { const: true } })),
          "303": { description: "Form login: to /skedulr" },
          "401": failure("unauthorized"),
        },
      },
    },
  };
  // Every operation that reads or writes the store has the request deadline.
  for (const [path, item] of Object.entries(paths) as [string, Record<string, Json>][]) {
    if (!path.startsWith(a) && path !== "/skedulr/metrics") continue;
    for (const op of Object.values(item)) {
      if (!(op.tags as string[]).includes("Docs")) {
        (op.responses as Json)["503"] ??= unavailable(STORAGE_DOWN);
      }
    }
  }
  if (options.secured) {
    for (const item of Object.values(paths) as Record<string, Json>[]) {
      for (const op of Object.values(item)) {
        if (!op.security) (op.responses as Json)["401"] = failure("unauthorized");
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Skedulr API",
      version: options.version,
      description: "Submit, inspect and control background tasks. Errors are " +
        '`{ "error": { "code", "message", "issues"?: [{ "path", "message" }] } }`. ' +
        "Codes: 400 invalid_request, 401 unauthorized, 403 forbidden (a cookie-borne change " +
        "from another origin), 404 not_found, 409 conflict, 413 payload_too_large, " +
        "415 unsupported_media_type, 503 capacity or storage (with Retry-After). 503 storage " +
        "means the store is unreachable, loading, full, or did not answer within the request " +
        "deadline: a submit that got it may or may not have been stored, so retry it with the " +
        "same custom `id`; an identical retry answers 200 with the stored task.",
    },
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
    ...(options.secured ? { security: [{ bearer: [] }, { cookie: [] }] } : {}),
  };
}

function pauseOp(tags: string[], summary: string): Json {
  return {
    post: {
      tags,
      summary,
      requestBody: body(ref("PauseRequest"), false),
      responses: {
        "200": ok("Done", obj({ pool: nullable("string"), paused: { type: "boolean" } })),
      },
    },
  };
}
