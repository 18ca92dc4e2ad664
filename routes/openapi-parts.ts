/**
 * @module openapi-parts — small building blocks of the OpenAPI document: JSON Schema of a
 * valibot schema, references, responses, bodies and parameters.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

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
/** The header of a redirect. */
export const LOCATION = { Location: { description: "Where to go", schema: { type: "string" } } };
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
export const list = (items: Json) => ({ type: "array", items });
export const obj = (properties: Json, required: string[] = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
});

/** An optional query parameter. */
export const query = (name: string, description: string, schema: Json = str) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

export function listParams(statuses: readonly string[]): Json[] {
  const q = query;
  return [
    q("status", `One or more (comma-separated) of: ${statuses.join(", ")}`),
    q("type", "Task type"),
    q("pool", "Pool name"),
    q("q", "Case-insensitive text search (id, type, key, payload, error; not http header values)"),
    q("limit", "Page size, 1..1000 (default 50)", { type: "integer", minimum: 1, maximum: 1000 }),
    q("cursor", "The `next` of the previous page"),
  ];
}

/** Every API operation can answer this when the store cannot. */
export const STORAGE_DOWN = "storage: the store is unreachable, loading, full, or did not answer " +
  "within the request deadline (SKEDULR_API_TIMEOUT, default 2 s); retry later";
/** What any operation with a JSON body can answer before it runs. */
export const BODY_ERRORS = {
  "400": failure("invalid_request: bad JSON or a bad field; `issues` names each field"),
  "413": failure("payload_too_large: a body over the limit (1 MiB by default)"),
  "415": failure("unsupported_media_type: a body that is not JSON"),
};
export const NOT_FOUND = { "404": failure("not_found") };
/** A text answer (HTML, Prometheus) of media type `type`. */
export const text = (description: string, type: string) => ({
  description,
  content: { [type]: { schema: { type: "string" } } },
});

/** One operation; `operationId` first, as generators and readers look for it. */
export function op(operationId: string, tag: string, summary: string, rest: Json): Json {
  return { operationId, tags: [tag], summary, ...rest };
}
