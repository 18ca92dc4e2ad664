/**
 * @module callback-schema — a task spec's `callback` (`{url, on?, headers?}`), validated at
 * submit with a 400 naming the field: `callback.url` (a URL the outbound policy refuses, as
 * for `http` tasks), `callback.on[i]` (not a final status, or one named twice),
 * `callback.headers.<name>` (a header that would change routing or framing).
 */
import * as v from "valibot";
import type { FieldIssue } from "./errors.ts";
import { MAX_CALLBACK_HEADERS, MAX_CALLBACK_URL_LENGTH } from "./bounds.ts";
import { OutboundHeadersSchema, urlProblem } from "./outbound-checks.ts";
import type { OutboundPolicy } from "./outbound-policy.ts";
import { ALL_STATUSES, FINAL_STATUSES, type FinalStatus } from "./task.ts";

/** What `on` may list, and its default: every final status. */
export const CALLBACK_STATUSES = ALL_STATUSES.filter((s) => FINAL_STATUSES.has(s)) as FinalStatus[];

/** The shape; values the deployment decides (the URL's policy) are {@link callbackIssues}'. */
export const CallbackSpecSchema = v.strictObject({
  url: v.pipe(
    v.string("expected a string"),
    v.maxLength(MAX_CALLBACK_URL_LENGTH, `must be at most ${MAX_CALLBACK_URL_LENGTH} characters`),
  ),
  // Statuses are checked by callbackIssues, so an unknown one is named `callback.on[i]`.
  on: v.optional(v.pipe(
    v.array(v.unknown(), "expected an array of final statuses"),
    v.minLength(1, `expected at least one of ${CALLBACK_STATUSES.join(", ")}`),
    v.maxLength(CALLBACK_STATUSES.length, `expected at most ${CALLBACK_STATUSES.length} statuses`),
  )),
  headers: v.optional(v.pipe(
    OutboundHeadersSchema,
    v.check(
      (h) => Object.keys(h).length <= MAX_CALLBACK_HEADERS,
      `must hold at most ${MAX_CALLBACK_HEADERS} headers`,
    ),
  )),
});

export type CallbackSpec = v.InferOutput<typeof CallbackSpecSchema>;

/**
 * What a schema-valid `callback` still lacks: a URL `policy` allows, and `on` values that
 * are final statuses, each once. `at` prefixes paths (a batch's `[i].`).
 */
export function callbackIssues(
  spec: CallbackSpec,
  at: (path: string) => string,
  policy: OutboundPolicy,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const refused = urlProblem(spec.url, policy);
  if (refused) issues.push({ path: at("callback.url"), message: refused });
  const seen = new Set<unknown>();
  (spec.on ?? []).forEach((status, i) => {
    const path = at(`callback.on[${i}]`);
    if (!(CALLBACK_STATUSES as readonly unknown[]).includes(status)) {
      const got = JSON.stringify(status) ?? String(status);
      issues.push({ path, message: `expected one of ${CALLBACK_STATUSES.join(", ")}, got ${got}` });
    } else if (seen.has(status)) {
      issues.push({ path, message: `names ${status} twice` });
    }
    seen.add(status);
  });
  return issues;
}
