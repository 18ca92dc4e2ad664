/**
 * @module openapi-security — adds what access control answers to the OpenAPI document: the
 * role each operation needs (`x-skedulr-role`, from the roles the routes declare), the 403
 * `forbidden` answers (a role short of it, a `Host` not served, a cross-site change), the
 * login's 429 `rate_limited` with `Retry-After`, and logout.
 */
import type { ApiRole } from "./credentials.ts";
import { failure, type Json, LOCATION, obj, ok, RETRY_AFTER } from "./openapi-parts.ts";

const ROLES_TEXT = "Roles: `read` may use every GET, `submit` also submits, cancels and " +
  "resubmits one task, `admin` (SKEDULR_TOKEN) may do everything (pause, pools, bulk " +
  "resubmit, removing schedules). 403 forbidden also answers a request whose Host this " +
  "server does not serve (a DNS-rebinding guard) and a role short of the one an operation " +
  "needs (`x-skedulr-role`); 429 rate_limited answers too many logins from one address.";

/** Hono's `/tasks/:id` as OpenAPI's `/tasks/{id}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

/** Adds roles, 403s, the login's 429 and logout to `doc` (changed in place and returned). */
export function withAccessControl(
  doc: Json,
  roles: Map<string, ApiRole | null>,
  secured: boolean,
): Json {
  const paths = doc.paths as Record<string, Record<string, Json>>;
  for (const [key, role] of roles) {
    const [method, path] = key.split(" ");
    const op = paths[openApiPath(path)]?.[method.toLowerCase()];
    if (!op || !role) continue;
    op["x-skedulr-role"] = role;
    if (secured && role !== "read") {
      (op.responses as Json)["403"] = failure(
        `forbidden: needs the ${role} role (or a cross-site cookie request, or a Host not served)`,
      );
    }
  }
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      (op.responses as Json)["403"] ??= failure(
        "forbidden: a Host this server does not serve, or a cross-site cookie-borne change",
      );
    }
  }
  const login = paths["/skedulr/login"]?.post;
  if (login) {
    (login.responses as Json)["429"] = {
      ...failure("rate_limited: too many logins from this address; wait Retry-After seconds"),
      headers: RETRY_AFTER,
    };
  }
  paths["/skedulr/logout"] = {
    post: {
      operationId: "logout",
      tags: ["Docs"],
      summary: "End the dashboard session (same-origin requests only)",
      security: [],
      responses: {
        "200": ok("Logged out", obj({ ok: { const: true } })),
        "303": { description: "Asked for HTML: to /skedulr/login", headers: LOCATION },
        "403": failure("forbidden: not a same-origin request"),
      },
    },
  };
  const info = doc.info as Json;
  info.description = `${info.description} ${ROLES_TEXT}`;
  const schemes = (doc.components as Json).securitySchemes as Record<string, Json> | undefined;
  if (schemes?.bearer) {
    schemes.bearer.description = "SKEDULR_TOKEN (role admin) or a named API key (SKEDULR_KEYS)";
  }
  if (schemes?.cookie) schemes.cookie.description = "The signed session `POST /skedulr/login` sets";
  return doc;
}
