/**
 * @module schemas — valibot schemas of the API's own inputs (the task spec itself is the
 * library's `TaskSpecSchema`). The routes validate with these and the OpenAPI document is
 * generated from them, so the two cannot drift.
 */
import * as v from "valibot";
import {
  ALL_STATUSES,
  type LogFilter,
  MAX_GLOBAL_CONCURRENCY,
  MAX_RATE_LIMIT,
  NameSchema,
  RESUBMITTABLE_STATUSES,
  type TaskFilter,
  type TaskStatus,
} from "../src/mod.ts";
import { validate } from "./body.ts";

/** Most specs in one `POST /tasks/batch`. */
export const MAX_BATCH = 1000;

const name = NameSchema;

export const TASK_STATUSES: readonly TaskStatus[] = ALL_STATUSES;

/** Outcomes of one attempt, as `history` filters them. */
export const ATTEMPT_STATUSES = ["succeeded", "retrying", "dead", "cancelled", "stalled"] as const;

/** `POST /tasks/resubmit`: which dead, cancelled or expired tasks to queue again. */
export const BulkResubmitSchema = v.strictObject({
  status: v.picklist(RESUBMITTABLE_STATUSES, 'expected "dead", "cancelled" or "expired"'),
  type: v.optional(name),
  pool: v.optional(name),
});

/** A cluster-wide limit: an integer 1..max. */
const limit = (max: number) =>
  v.pipe(
    v.number("expected a number"),
    v.integer("expected an integer"),
    v.minValue(1, "must be at least 1"),
    v.maxValue(max, `must be at most ${max}`),
  );

/**
 * `POST /pools/:name`: any of the pool's concurrency on every instance, its cluster-wide
 * `globalConcurrency` and `rateLimit` (null removes a limit). `per` is checked as a
 * duration by the Scheduler (400 naming `rateLimit.per`).
 */
export const PoolSizeSchema = v.pipe(
  v.strictObject({
    concurrency: v.optional(v.pipe(
      v.number("expected a number"),
      v.integer("expected an integer"),
      v.minValue(0, "must be at least 0"),
      v.maxValue(10_000, "must be at most 10000"),
    )),
    globalConcurrency: v.optional(v.nullable(limit(MAX_GLOBAL_CONCURRENCY))),
    rateLimit: v.optional(v.nullable(v.strictObject({
      max: limit(MAX_RATE_LIMIT),
      per: v.union(
        [v.string(), v.number()],
        'expected a duration like "1s" or "500ms", or ms',
      ),
    }, 'expected { "max": n, "per": "1s" } or null'))),
  }),
  v.check(
    (b) => Object.keys(b).length > 0,
    "expected at least one of concurrency, globalConcurrency, rateLimit",
  ),
);

/** `POST /pause` and `/resume`: one pool, or every pool when omitted. */
export const PauseSchema = v.strictObject({ pool: v.optional(name) });

/** `POST /tasks/:id/cancel`: an optional reason kept on the task. */
export const CancelSchema = v.strictObject({
  reason: v.optional(v.pipe(v.string("expected a string"), v.maxLength(500, "at most 500 chars"))),
});

/** `POST /skedulr/login` as JSON. */
export const LoginSchema = v.strictObject({
  token: v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty")),
});

const digits = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,7}$/, "expected a whole number"),
    v.transform(Number),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

/** The query of `GET /tasks` and `GET /history`, for the given allowed statuses. */
export function listQuerySchema(statuses: readonly string[]) {
  return v.strictObject({
    status: v.optional(v.pipe(
      v.string(),
      v.transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean)),
      v.check(
        (list) => list.every((s) => statuses.includes(s)),
        (issue) =>
          `unknown status in ${JSON.stringify((issue.input as string[]).join(","))} (allowed: ${
            statuses.join(", ")
          }; several may be comma-separated)`,
      ),
    )),
    type: v.optional(name),
    pool: v.optional(name),
    q: v.optional(v.pipe(v.string(), v.maxLength(256, "at most 256 characters"))),
    limit: v.optional(digits(1, 1000)),
    cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
  });
}

const taskQuery = listQuerySchema(TASK_STATUSES);
const historyQuery = listQuerySchema(ATTEMPT_STATUSES);

/** `GET /tasks/:id`'s query: a page of the task's workflow children. */
const taskQuerySchema = v.strictObject({
  childrenLimit: v.optional(digits(1, 100)),
  childrenCursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
});

/** The children page `GET /tasks/:id` was asked for (default: the first 20), or a 400. */
export function parseTaskQuery(url: string): { limit: number; cursor?: string } {
  const params = Object.fromEntries(new URL(url).searchParams);
  const q = validate(taskQuerySchema, params, "query");
  return {
    limit: q.childrenLimit ?? 20,
    ...(q.childrenCursor ? { cursor: q.childrenCursor } : {}),
  };
}

/** `GET /tasks/:id/logs`'s query: a page of the task's log lines, one attempt's or all. */
const logsQuerySchema = v.strictObject({
  attempt: v.optional(digits(1, 1_000_000)),
  limit: v.optional(digits(1, 1000)),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
});

/** The log page `GET /tasks/:id/logs` was asked for, or a 400 naming the parameter. */
export function parseLogsQuery(url: string): LogFilter {
  const params = Object.fromEntries(new URL(url).searchParams);
  const q = validate(logsQuerySchema, params, "query");
  const filter: LogFilter = {};
  if (q.attempt !== undefined) filter.attempt = q.attempt;
  if (q.limit !== undefined) filter.limit = q.limit;
  if (q.cursor !== undefined) filter.cursor = q.cursor;
  return filter;
}

/** The documented query parameters of listings (OpenAPI). */
export const LIST_PARAMS = ["status", "type", "pool", "q", "limit", "cursor"] as const;

/**
 * Turns a listing's query string into a {@link TaskFilter}, or throws 400 naming each bad
 * parameter. Unknown parameters are refused too, so a typo never silently lists everything.
 * A parameter given several times counts once (the last), except `status`, which merges.
 */
export function parseListQuery(url: string, kind: "tasks" | "history"): TaskFilter {
  const params = new URL(url).searchParams;
  const raw: Record<string, string> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    raw[key] = key === "status" ? values.join(",") : values[values.length - 1];
  }
  const q = validate(kind === "tasks" ? taskQuery : historyQuery, raw, "query");
  const filter: TaskFilter = {};
  if (q.status?.length) filter.status = q.status as TaskStatus[];
  if (q.type !== undefined) filter.type = q.type;
  if (q.pool !== undefined) filter.pool = q.pool;
  if (q.q) filter.q = q.q;
  if (q.limit !== undefined) filter.limit = q.limit;
  if (q.cursor !== undefined) filter.cursor = q.cursor;
  return filter;
}
