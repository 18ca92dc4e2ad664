/**
 * @module openapi-operations — the OpenAPI paths besides tasks: schedules, workers, stats,
 * pause/resume, pool sizes, history, and docs, health, metrics and the dashboard login.
 */
import { ATTEMPT_STATUSES } from "./schemas.ts";
import {
  body,
  BODY_ERRORS,
  failure,
  int,
  type Json,
  json,
  list,
  listParams,
  LOCATION,
  NOT_FOUND,
  nullable,
  obj,
  ok,
  op,
  pathId,
  ref,
  RETRY_AFTER,
  STORAGE_DOWN,
  str,
  text,
  unavailable,
} from "./openapi-parts.ts";

/** POST /schedules/{id}/pause or /resume. */
const scheduleAction = (id: string, summary: string) => ({
  post: op(id, "Schedules", summary, {
    parameters: [pathId("id", "Schedule id")],
    responses: { "200": ok("The schedule", ref("ScheduleView")), ...NOT_FOUND },
  }),
});

/** Schedules, workers, stats, pools and history. */
export function operationPaths(a: string): Json {
  const O = "Operations";
  const pause = (id: string, summary: string, paused: boolean) => ({
    post: op(id, O, summary, {
      requestBody: body(ref("PauseRequest"), false),
      responses: {
        "200": ok("Done", obj({ pool: nullable("string"), paused: { const: paused } })),
        ...BODY_ERRORS,
      },
    }),
  });
  return {
    [`${a}/schedules`]: {
      get: op("listSchedules", "Schedules", "List every/cron schedules", {
        responses: { "200": ok("Schedules", obj({ schedules: list(ref("Schedule")) })) },
      }),
    },
    [`${a}/schedules/{id}`]: {
      get: op("getSchedule", "Schedules", "A schedule, with its next 5 run times", {
        parameters: [pathId("id", "Schedule id")],
        responses: { "200": ok("The schedule", ref("ScheduleView")), ...NOT_FOUND },
      }),
      put: op("putSchedule", "Schedules", "Create or replace a named schedule", {
        description: "The body is a task spec with `every` or `cron` (its `id`, if any, the " +
          "path's). A replacement keeps the schedule's runs, pause and creation time; an " +
          "interval schedule given no `runAt` keeps its slots; no occurrence already fired " +
          "fires again.",
        parameters: [pathId("id", "Schedule id")],
        requestBody: body(ref("TaskSpec")),
        responses: {
          "200": ok("Replaced", ref("ScheduleView")),
          "201": { ...ok("Created", ref("ScheduleView")), headers: LOCATION },
          ...BODY_ERRORS,
          "409": failure("conflict: a task has this id"),
        },
      }),
      delete: op("deleteSchedule", "Schedules", "Delete a schedule (no further firings)", {
        parameters: [pathId("id", "Schedule id")],
        responses: {
          "200": ok("Deleted", obj({ id: str, status: { const: "deleted" } })),
          ...NOT_FOUND,
        },
      }),
    },
    [`${a}/schedules/{id}/pause`]: scheduleAction("pauseSchedule", "Pause: nothing fires"),
    [`${a}/schedules/{id}/resume`]: scheduleAction(
      "resumeSchedule",
      "Resume: missed occurrences follow catchUp",
    ),
    [`${a}/schedules/{id}/trigger`]: {
      post: op("triggerSchedule", "Schedules", "One run now, outside the cadence", {
        parameters: [pathId("id", "Schedule id")],
        responses: {
          "201": {
            ...ok("The run", obj({ id: str, status: { const: "queued" } })),
            headers: LOCATION,
          },
          ...NOT_FOUND,
        },
      }),
    },
    [`${a}/workers`]: {
      get: op("listWorkers", O, "Live worker instances (id, host, pools, running, last seen)", {
        responses: { "200": ok("Workers", obj({ workers: list(ref("Worker")) })) },
      }),
    },
    [`${a}/stats`]: {
      get: op("getStats", O, "Counts by status and pool, totals, per-type durations", {
        responses: { "200": ok("Stats", ref("Stats")) },
      }),
    },
    [`${a}/pause`]: pause("pause", "Pause one pool (or all): running work finishes", true),
    [`${a}/resume`]: pause("resume", "Resume one pool (or all)", false),
    [`${a}/pools/{name}`]: {
      post: op("setPoolSize", O, "Set a pool's concurrency and cluster-wide limits", {
        description: "Pools are made by configuration; this sizes one that exists. " +
          "`concurrency` applies on every instance; `globalConcurrency` caps the pool's " +
          "running tasks across all of them and `rateLimit` its starts in any window of " +
          "`per` (null removes a limit). Any one field may come alone.",
        parameters: [pathId("name", "Pool name")],
        requestBody: body(ref("PoolSize")),
        responses: {
          "200": ok(
            "Set: the fields given",
            obj({
              pool: str,
              concurrency: int,
              globalConcurrency: nullable("integer"),
              rateLimit: { oneOf: [ref("RateLimitInput"), { type: "null" }] },
            }, ["pool"]),
          ),
          ...BODY_ERRORS,
          "404": failure("not_found: no instance runs this pool"),
        },
      }),
    },
    [`${a}/history`]: {
      get: op("listHistory", O, "Finished attempts, newest first", {
        parameters: listParams(ATTEMPT_STATUSES),
        responses: {
          "200": ok("A page", ref("AttemptPage")),
          "400": failure("invalid_request: a bad query parameter"),
        },
      }),
    },
  };
}

/** Docs, health, metrics and the dashboard login. */
export function otherPaths(a: string): Json {
  const D = "Docs";
  const health = (ok: boolean) =>
    obj({ ok: { const: ok }, storage: str, error: str }, [
      "ok",
      "storage",
      ...(ok ? [] : ["error"]),
    ]);
  return {
    [`${a}/openapi.json`]: {
      get: op("getOpenApi", D, "This document", {
        responses: { "200": ok("OpenAPI 3.1", { type: "object", additionalProperties: true }) },
      }),
    },
    [`${a}/docs`]: {
      get: op("getDocs", D, "Human-readable docs", {
        responses: { "200": text("HTML", "text/html") },
      }),
    },
    "/skedulr/healthz": {
      get: op("getHealth", "Operations", "Storage reachable?", {
        security: [],
        responses: {
          "200": ok("Healthy", health(true)),
          "503": {
            ...ok(
              "The store failed PING or did not answer it within 1 s; `error` says which",
              health(false),
            ),
            headers: RETRY_AFTER,
          },
        },
      }),
    },
    "/skedulr/metrics": {
      get: op("getMetrics", "Operations", "Prometheus text metrics", {
        responses: { "200": text("Prometheus exposition format 0.0.4", "text/plain") },
      }),
    },
    "/skedulr/login": {
      post: op("login", D, "Set the dashboard session cookie", {
        description: "JSON `{ token }` answers JSON; a form field `token` redirects (303).",
        security: [],
        requestBody: {
          required: true,
          content: {
            ...json(ref("Login")),
            "application/x-www-form-urlencoded": { schema: ref("Login") },
          },
        },
        responses: {
          "200": ok("Logged in (Set-Cookie)", obj({ ok: { const: true } })),
          "303": { description: "Form login: to /skedulr", headers: LOCATION },
          ...BODY_ERRORS,
          "401": failure("unauthorized: a wrong token or key"),
          "503": unavailable(STORAGE_DOWN),
        },
      }),
    },
  };
}
