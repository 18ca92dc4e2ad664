/**
 * @module http-task-schema — the `http` task type's payload, checked at submit (400 naming
 * the field) and again by the worker before it sends anything: the URL against the outbound
 * policy, and header names that would change how the request is routed or framed.
 */
import * as v from "valibot";
import { parseDuration } from "../core/duration.ts";
import { DEFAULT_OUTBOUND_POLICY, type OutboundPolicy } from "../core/outbound-policy.ts";
import { headerNameProblem, OutboundHeadersSchema, urlProblem } from "../core/outbound-checks.ts";

export { headerNameProblem, urlProblem };

/**
 * The payload schema of the `http` type under `policy` (default: public addresses only).
 * Register it as the type's `payloadSchema` so a refused target is a 400 at submit.
 *
 * @example
 * const policy = outboundPolicy("hooks.internal, 10.1.0.0/16"); // as SKEDULR_HTTP_ALLOW
 * scheduler.register("http", httpTaskHandler({ policy }), {
 *   payloadSchema: httpTaskPayloadSchema(policy),
 * });
 */
export function httpTaskPayloadSchema(policy: OutboundPolicy = DEFAULT_OUTBOUND_POLICY) {
  return v.strictObject({
    url: v.pipe(
      v.string("expected a string"),
      v.check((u) => urlProblem(u, policy) === null, (i) => urlProblem(i.input, policy)!),
    ),
    method: v.optional(
      v.picklist(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"], "expected an HTTP method"),
    ),
    /** Values are credentials: the API shows them as "[redacted]" (core/secret-headers.ts). */
    headers: v.optional(OutboundHeadersSchema),
    body: v.optional(v.unknown()),
    /** Up to 100 years, like every duration; waits past setTimeout's limit chain. */
    timeout: v.optional(
      v.pipe(
        v.union([v.number(), v.string()], 'expected ms or a duration like "10s"'),
        v.check(
          (d) => !("error" in parseDuration(d)),
          (issue) => (parseDuration(issue.input) as { error: string }).error,
        ),
        v.check((d) => (parseDuration(d) as { ms?: number }).ms !== 0, "must be more than 0 ms"),
      ),
    ),
  });
}

/** The schema under the default policy (public addresses only). */
export const HttpTaskPayloadSchema = httpTaskPayloadSchema();

export type HttpTaskPayload = v.InferOutput<typeof HttpTaskPayloadSchema>;
