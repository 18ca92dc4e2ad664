/**
 * @module app — the Skedulr HTTP app: JSON API under `/skedulr/api`, health and metrics,
 * login, docs, and the `/skedulr` page (or the dashboard, through the `dashboard` hook).
 * Web-standard only, so the same app runs on Bun, Deno and Cloudflare Workers.
 *
 * Every `/skedulr/api/*` request and `/skedulr/metrics` has a deadline (`requestTimeoutMs`,
 * default 2 s): a store that does not answer in time gives 503 `storage` with Retry-After.
 * `POST /skedulr/api/tasks` is answered by fast-submit.ts, which makes the same checks as
 * calls instead of middleware layers; a gate added below must be added there too.
 *
 * Access: with a token or keys configured, every `/skedulr/api/*` route and
 * `/skedulr/metrics` need a credential (bearer or the login session) whose role covers the
 * route's declared role (roles.ts: GETs `read`, submit/cancel/resubmit one `submit`, the
 * rest `admin`); `/skedulr/healthz` and `/skedulr/login` never do. With none, the API is
 * open but answers only loopback `Host` names (host-check.ts). Logins are rate-limited per
 * client address in the store (login-limit.ts).
 *
 * Route table:
 *
 *   POST   /skedulr/api/tasks                 201 { id, status } (+ nextRunAt for every/cron);
 *                                              200 { id, status, existing } identical retry
 *                                              200 { id, status, deduplicated } dedupe hit
 *                                              200 { id, status, debounced, runAt } debounce
 *   POST   /skedulr/api/tasks/batch           201 { tasks: [...] }   ≤ 1000, all or none;
 *                                              200 when every spec was an identical retry
 *   GET    /skedulr/api/tasks                 200 { tasks, next }    ?status&type&pool&q&limit&cursor
 *   GET    /skedulr/api/tasks/:id             200 task record        404
 *   POST   /skedulr/api/tasks/:id/cancel      200 { id, status: "cancelled" }   404, 409
 *   POST   /skedulr/api/tasks/:id/resubmit    200 { id, status: "queued" }      404, 409
 *   POST   /skedulr/api/tasks/resubmit        200 { resubmitted }    { status, type?, pool? }
 *   GET    /skedulr/api/schedules             200 { schedules }
 *   DELETE /skedulr/api/schedules/:id         200 { id, status: "deleted" }     404
 *   GET    /skedulr/api/workers               200 { workers }
 *   GET    /skedulr/api/stats                 200 stats
 *   POST   /skedulr/api/pause | /resume       200 { pool, paused }   { pool? }
 *   POST   /skedulr/api/pools/:name           200 { pool, ...fields }     { concurrency?, globalConcurrency?, rateLimit? }
 *   GET    /skedulr/api/history               200 { attempts, next } same query as tasks
 *   GET    /skedulr/api/openapi.json | /docs
 *   GET    /skedulr/api                       200 index: docs links, each route and its role
 *   GET    /skedulr/healthz                   200 { ok, storage } | 503 { ok, storage, error }
 *   GET    /skedulr/metrics                   Prometheus text
 *   GET|POST /skedulr/login, POST /skedulr/logout, GET /skedulr
 *   GET    /                                  302 to /skedulr (no credential needed)
 *
 * @example
 * const scheduler = new Scheduler({ pools: { default: 10 } });
 * const app = createApp({ scheduler, token: "s3cret" });
 * const res = await app.request("/skedulr/api/stats", {
 *   headers: { Authorization: "Bearer s3cret" },
 * });
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { Scheduler } from "../src/mod.ts";
import { adminRoutes } from "./admin.ts";
import { apiIndex } from "./api-index.ts";
import { authenticate, type AuthOptions, requireAuth } from "./auth.ts";
import { DEFAULT_MAX_BODY_BYTES, jsonBody } from "./body.ts";
import { type ApiKeyEntry, Credentials } from "./credentials.ts";
import type { Principal, SkedulrEnv } from "./env.ts";
import { eventRoutes, MAX_EVENT_STREAMS } from "./events.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS, RequestDeadlines } from "./deadline.ts";
import { errorHandler, notFoundHandler } from "./errors.ts";
import { fastSubmit } from "./fast-submit.ts";
import { noStore, securityHeaders } from "./answer-headers.ts";
import { hostCheck, hostGate } from "./host-check.ts";
import { DEFAULT_LOGIN_LIMIT, type LoginLimit } from "./login-limit.ts";
import { observabilityRoutes } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";
import { withAccessControl } from "./openapi-security.ts";
import { docsPage, indexPage, loginPage } from "./pages.ts";
import { role, routeRoles } from "./roles.ts";
import { Sessions } from "./session-cookie.ts";
import { html, sessionRoutes } from "./session.ts";
import { taskRoutes } from "./tasks.ts";
import { LOOPBACK_HOSTS, parseAllowedHosts, parseProxyHeader } from "../src/mod.ts";
import { VERSION } from "../src/mod.ts";

export type { AuthVia, Principal, SkedulrEnv } from "./env.ts";
export type { ApiKeyEntry, ApiRole } from "./credentials.ts";
export { ApiError, type ApiErrorCode, httpStatus } from "./errors.ts";
export { requireRole, role } from "./roles.ts";

/** What the `dashboard` hook receives to mount its pages under `/skedulr`. */
export interface DashboardTools {
  scheduler: Scheduler;
  /** Same guard as the API: 401 without a credential, CSRF check, the routes' roles. */
  requireAuth: MiddlewareHandler<SkedulrEnv>;
  /** Who a request is, or null (e.g. to show the login form instead). */
  authenticate(c: Context): Promise<Principal | null>;
  /** The login form page, for unauthenticated dashboard visits. */
  loginPage(failed?: boolean | string): string;
  version: string;
}

export interface CreateAppOptions {
  scheduler: Scheduler;
  /** When set, the API and metrics require `Authorization: Bearer <token>` or the login cookie. */
  token?: string;
  /** Named keys with roles, known by their SHA-256 (SKEDULR_KEYS); any makes the API protected. */
  keys?: ApiKeyEntry[];
  /**
   * `Host` names served (`name` or `name:port`). Default: any when a credential is
   * configured, else only localhost, 127.0.0.1 and [::1], which is all an open API may name.
   */
  allowedHosts?: string[];
  /** A header a trusted proxy sets to the client address (e.g. `x-forwarded-for`). */
  trustProxy?: string;
  /** Signs login sessions; default: derived from `token`, else random per app. */
  sessionSecret?: string;
  /** How long a login session lasts; default 12 h. */
  sessionTtlMs?: number;
  /** Login attempts per client address and window; default 10 a minute. */
  loginLimit?: LoginLimit;
  /** Largest accepted request body; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Deadline of an API request in ms (default 2000): past it the request answers 503
   * `storage` with Retry-After. A server in front must allow longer (see src/adapters/serve.ts).
   */
  requestTimeoutMs?: number;
  /** Open `GET /events` streams this app serves at most (default 500); more get 429. */
  maxEventStreams?: number;
  /** Shown in the OpenAPI document and the pages. */
  version?: string;
  /** Extra origins (e.g. `https://ops.example.com`) whose cookie-borne changes are accepted. */
  trustedOrigins?: string[];
  /** Mounts the dashboard on the `/skedulr` app; without it `GET /skedulr` is a link page. */
  dashboard?: (root: Hono<SkedulrEnv>, tools: DashboardTools) => void;
}

/** Builds the app; serve it with `app.fetch` (paths start at `/skedulr`). */
export function createApp(options: CreateAppOptions): Hono<SkedulrEnv> {
  const { scheduler, token } = options;
  const version = options.version ?? VERSION;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (token !== undefined && token.trim() === "") {
    throw new TypeError("createApp: token is empty; pass a real token or leave it undefined");
  }
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new TypeError(`createApp: maxBodyBytes must be a positive integer, got ${maxBodyBytes}`);
  }
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1) {
    throw new TypeError(
      `createApp: requestTimeoutMs must be an integer 1..2147483647, got ${timeoutMs}`,
    );
  }
  // The scheduler's clock unrefs timers when a runtime adapter made it (runtimeClock).
  const { clock } = scheduler;
  const deadlines = new RequestDeadlines(
    timeoutMs,
    clock.unrefTimer ? (timer) => clock.unrefTimer!(timer) : undefined,
  );
  const deadline = deadlines.middleware;
  const credentials = new Credentials(token, options.keys ?? []);
  const { allowedHosts, trustProxy } = accessOptions(options, credentials.open);
  const sessions = new Sessions(credentials, {
    secret: options.sessionSecret,
    token,
    ttlMs: options.sessionTtlMs,
  });
  const authOptions: AuthOptions = {
    credentials,
    sessions,
    now: () => scheduler.clock.now(),
    trustedOrigins: options.trustedOrigins ?? [],
  };
  const guard = requireAuth(authOptions);
  const body = jsonBody(maxBodyBytes);

  const app = new Hono<SkedulrEnv>({ strict: false });
  // Set before basePath(): sub-apps copy the handlers when they are made.
  app.onError(errorHandler(scheduler.logger));
  app.notFound(notFoundHandler);
  app.use("*", securityHeaders);
  const host = hostGate(allowedHosts, credentials.open);
  app.use("*", hostCheck(host));
  // Someone who typed only the host and port finds the dashboard; 302, not 308, so a browser
  // does not remember it if `/` later serves something else.
  app.get("/", (c) => c.redirect("/skedulr", 302));

  const root = app.basePath("/skedulr");
  const api = root.basePath("/api");
  api.use("*", guard, noStore, deadline);
  root.use("/metrics", guard, role("read"), deadline);

  taskRoutes(api, scheduler, body);
  eventRoutes(api, scheduler, options.maxEventStreams ?? MAX_EVENT_STREAMS);
  adminRoutes(api, scheduler, body);

  let doc: Record<string, unknown> | undefined;
  const secured = !credentials.open;
  const openApi = () => (doc ??= withAccessControl(
    openApiDocument({ version, secured }),
    routeRoles(app),
    secured,
  ));
  api.get("/openapi.json", role("read"), (c) => c.json(openApi()));
  api.get("/docs", role("read"), (c) => html(c, docsPage(openApi())));
  api.get("/", role("read"), apiIndex(app, openApi, version));

  observabilityRoutes(root, scheduler);
  sessionRoutes(root, {
    scheduler,
    auth: authOptions,
    limit: options.loginLimit ?? DEFAULT_LOGIN_LIMIT,
    trustProxy,
    deadline,
  });

  const tools: DashboardTools = {
    scheduler,
    requireAuth: guard,
    authenticate: (c) => authenticate(c, authOptions),
    loginPage,
    version,
  };
  if (options.dashboard) {
    options.dashboard(root, tools);
  } else {
    root.get(
      "/",
      async (c) =>
        (await tools.authenticate(c)) === null
          ? html(c, loginPage(), 401)
          : html(c, indexPage(version)),
    );
  }
  // The hottest route skips the layers above for calls to the same gates (fast-submit.ts).
  // An app that mounts this one (`route()`) runs the chain: only this app's fetch has it.
  const fast = fastSubmit({
    scheduler,
    logger: scheduler.logger,
    auth: authOptions,
    host,
    deadlines,
    maxBodyBytes,
  });
  const chain = app.fetch;
  app.fetch = (request, env, ctx) =>
    fast.takes(request) ? fast.answer(request) : chain(request, env, ctx);
  return app;
}

/** The longest session createApp accepts: 30 days. */
const MAX_SESSION_TTL_MS = 30 * 86_400_000;

/** Checks the access options; an open API may name loopback hosts only. */
function accessOptions(
  options: CreateAppOptions,
  open: boolean,
): { allowedHosts: string[] | null; trustProxy: string | null } {
  let allowedHosts: string[] | null = null;
  if (options.allowedHosts !== undefined) {
    const parsed = parseAllowedHosts(options.allowedHosts.join(","), "allowedHosts");
    if (parsed.problems.length) throw new TypeError(`createApp: ${parsed.problems.join("; ")}`);
    const outside = parsed.hosts.filter((h) => !LOOPBACK_HOSTS.includes(h.replace(/:\d+$/, "")));
    if (open && outside.length) {
      throw new TypeError(
        `createApp: allowedHosts ${outside.join(", ")} needs a token or keys (an open API ` +
          "serves loopback names only)",
      );
    }
    allowedHosts = parsed.hosts;
  }
  const trustProxy = options.trustProxy === undefined ? null : parseProxyHeader(options.trustProxy);
  if (options.trustProxy !== undefined && trustProxy === null) {
    throw new TypeError(`createApp: trustProxy must be a header name, got ${options.trustProxy}`);
  }
  if (options.sessionSecret !== undefined && options.sessionSecret.length < 16) {
    throw new TypeError("createApp: sessionSecret must be at least 16 characters");
  }
  const ttl = options.sessionTtlMs;
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_SESSION_TTL_MS)) {
    throw new TypeError(`createApp: sessionTtlMs must be an integer 1..${MAX_SESSION_TTL_MS}`);
  }
  const limit = options.loginLimit;
  if (
    limit && !(Number.isInteger(limit.max) && limit.max >= 1 && limit.max <= 1000 &&
      Number.isInteger(limit.windowMs) && limit.windowMs >= 1 && limit.windowMs <= 86_400_000)
  ) {
    throw new TypeError("createApp: loginLimit is { max: 1..1000, windowMs: 1..86400000 }");
  }
  return { allowedHosts, trustProxy };
}
