/**
 * @module fast-submit — `POST /skedulr/api/tasks`, the API's hottest route, answered without
 * Hono's router, context and middleware layers. The gates run as plain calls, in the chain's
 * order and through the functions its middleware call: the Host check, the credential, the
 * origin check and the `submit` role, the request deadline (held while the body uploads),
 * the body's limits, then the route itself (`submitOne`). Errors answer through the same
 * `errorAnswer`, and every answer carries the chain's headers.
 *
 * It takes only the plain case: that exact path with no query string, on an open API or
 * with an `Authorization` header, on an app nobody added routes to after `createApp`.
 * Anything else (a session cookie, a query, a changed app) goes through the chain.
 * test/unit/api-fast-submit.test.ts sends the same requests both ways and compares answers.
 */
import type { Logger, Scheduler } from "../src/mod.ts";
import { SECURITY_HEADERS } from "./answer-headers.ts";
import { admit, type AuthOptions, bearerPrincipal, OPEN_PRINCIPAL } from "./auth.ts";
import { readJson } from "./body.ts";
import type { RequestDeadlines } from "./deadline.ts";
import { errorAnswer } from "./errors.ts";
import { submitOne } from "./tasks.ts";

export const FAST_SUBMIT_PATH = "/skedulr/api/tasks";
const NAMED = `POST ${FAST_SUBMIT_PATH}`;

export interface FastSubmitOptions {
  scheduler: Scheduler;
  logger: Logger;
  auth: AuthOptions;
  /** The app's Host check (host-check.ts), null when every host is served. */
  host: ((request: Request) => void) | null;
  deadlines: RequestDeadlines;
  maxBodyBytes: number;
}

export interface FastSubmit {
  /** Whether `request` is the plain case this path answers. */
  takes(request: Request): boolean;
  answer(request: Request): Promise<Response>;
}

/** The headers of every answer, as the chain's middleware set them. */
const BASE_HEADERS: Record<string, string> = {
  ...Object.fromEntries(SECURITY_HEADERS),
  "Cache-Control": "no-store",
  "Content-Type": "application/json",
};

function json(body: unknown, status: number, extra?: Record<string, string>): Response {
  const headers = extra ? { ...BASE_HEADERS, ...extra } : BASE_HEADERS;
  return new Response(JSON.stringify(body), { status, headers });
}

/** Whether `url`'s path, after its authority, is exactly {@link FAST_SUBMIT_PATH}. */
function isSubmitUrl(url: string): boolean {
  if (!url.endsWith(FAST_SUBMIT_PATH)) return false;
  const authority = url.indexOf("//");
  return url.indexOf("/", authority < 0 ? 0 : authority + 2) ===
    url.length - FAST_SUBMIT_PATH.length;
}

export function fastSubmit(o: FastSubmitOptions): FastSubmit {
  const open = o.auth.credentials.open;
  return {
    takes: (request) =>
      request.method === "POST" && isSubmitUrl(request.url) &&
      (open || request.headers.has("authorization")),

    async answer(request) {
      try {
        o.host?.(request);
        const p = open
          ? OPEN_PRINCIPAL
          : await bearerPrincipal(request.headers.get("authorization") ?? "", o.auth);
        admit(request, p, "submit", o.auth, () => NAMED);
        // The deadline starts once the body is read, as the chain's held clock restarts
        // then: a slow upload is not the store's time.
        const body = await readJson(request, o.maxBodyBytes);
        const traceparent = request.headers.get("traceparent") ?? undefined;
        const answer = await o.deadlines.run(() => submitOne(o.scheduler, body, traceparent));
        return json(
          answer.view,
          answer.status,
          answer.location ? { Location: answer.location } : undefined,
        );
      } catch (error) {
        const a = errorAnswer(error as Error, o.logger, "POST", FAST_SUBMIT_PATH);
        return json(a.body, a.status, a.headers);
      }
    },
  };
}
