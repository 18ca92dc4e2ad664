/**
 * @module openapi-parts — building blocks of the OpenAPI document: the component schemas
 * (request bodies generated from the routes' valibot schemas) and small object helpers.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { TaskSpecSchema } from "../src/mod.ts";
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

export type Json = Record<string, unknown>;

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a valibot schema, minus what it cannot express. */
export function jsonSchemaOf(schema: v.GenericSchema): Json {
  const { $schema: _, ...rest } = toJsonSchema(schema, {
    target: "draft-2020-12",
    errorMode: "ignore",
  }) as Json;
  return rest;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: Json) => ({ "application/json": { schema } });
export const ok = (description: string, schema: Json) => ({ description, content: json(schema) });
export const failure = (description: string) => ({ description, content: json(ref("Error")) });
/** The header every 503 carries. */
export const RETRY_AFTER = {
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } },
};
/** A 503: the error body plus `Retry-After`. */
export const unavailable = (description: string) => ({
  ...failure(description),
  headers: RETRY_AFTER,
});
export const body = (schema: Json, required = true) => ({ required, content: json(schema) });
export const pathId = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

export const nullable = (type: string) => ({ type: [type, "null"] });
export const str = { type: "string" };
export const int = { type: "integer" };
export const obj = (properties: Json, required: string[] = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
});

export function listParams(statuses: readonly string[]): Json[] {
  const q = (name: string, description: string, schema: Json = str) => ({
    name,
    in: "query",
    required: false,
    description,
    schema,
  });
  return [
    q("status", `One or more (comma-separated) of: ${statuses.join(", ")}`),
    q("type", "Task type"),
    q("pool", "Pool name"),
    q("q", "Case-insensitive text search (id, type, key, payload, error; not http header values)"),
    q("limit", "Page size, 1..1000 (default 50)", { type: "integer", minimum: 1, maximum: 1000 }),
    q("cursor", "The `next` of the previous page"),
  ];
}

/** `components.schemas`: generated request bodies plus hand-written response shapes. */
export function componentSchemas(): Json {
  return {
    TaskSpec: jsonSchemaOf(TaskSpecSchema),
    TaskBatch: { type: "array", minItems: 1, maxItems: MAX_BATCH, items: ref("TaskSpec") },
    CancelRequest: jsonSchemaOf(CancelSchema),
    BulkResubmit: jsonSchemaOf(BulkResubmitSchema),
    PoolSize: jsonSchemaOf(PoolSizeSchema),
    PauseRequest: jsonSchemaOf(PauseSchema),
    Login: jsonSchemaOf(LoginSchema),
    Submitted: obj({
      id: str,
      status: str,
      nextRunAt: int,
      existing: { const: true, description: "An identical earlier submit had stored it" },
    }, ["id", "status"]),
    Task: obj({
      id: str,
      type: str,
      status: { enum: TASK_STATUSES },
      pool: str,
      priority: int,
      payload: {
        description: 'For type http, each value of `headers` shows as "[redacted]" (names stay)',
      },
      attempt: int,
      maxRetries: int,
      stalls: { ...int, description: "Attempts lost with their worker (no retry spent)" },
      maxStalls: { ...int, description: "Stalls allowed before the task is dead" },
      progress: nullable("number"),
      result: {},
      error: { type: ["object", "null"] },
      createdAt: int,
      runAt: nullable("integer"),
      startedAt: nullable("integer"),
      finishedAt: nullable("integer"),
      scheduleId: nullable("string"),
      dependsOn: { type: "array", items: str },
      onSuccessOf: nullable("string"),
      onFailureOf: nullable("string"),
      key: nullable("string"),
      timeoutMs: nullable("integer"),
      backoff: { type: ["object", "null"] },
      cancelReason: nullable("string"),
      workerId: nullable("string"),
    }, ["id", "type", "status", "pool"]),
    Attempt: obj({
      taskId: str,
      type: str,
      pool: str,
      attempt: int,
      status: { enum: ATTEMPT_STATUSES },
      error: { type: ["object", "null"] },
      startedAt: int,
      finishedAt: int,
      durationMs: int,
      workerId: str,
    }, ["taskId", "status", "attempt"]),
    Error: obj({
      error: obj({
        code: str,
        message: str,
        issues: { type: "array", items: obj({ path: str, message: str }) },
      }, ["code", "message"]),
    }),
  };
}
