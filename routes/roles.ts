/**
 * @module roles — the role each route needs, declared on the route itself:
 * `api.post("/tasks", role("submit"), ...)`. The rule for routes added later: reading is
 * `read`, creating work (schedules through `POST /tasks` included) is `submit`, changing
 * others' work or configuration is `admin`.
 *
 * Fail closed: the auth guard reads the declared role of the route a request matched
 * before that route runs, and a matched route that declares none needs `admin`.
 * test/unit/api-roles.test.ts walks every route of the app and fails for one without a role.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { allows, type ApiRole } from "./credentials.ts";
import type { Principal, SkedulrEnv } from "./env.ts";
import { ApiError } from "./errors.ts";

const ROLE_OF = new WeakMap<object, ApiRole>();

/** Whether `path` (as registered) is behind the auth guard, so it must declare a role. */
export function isGuarded(path: string): boolean {
  return path === "/skedulr/api" || path.startsWith("/skedulr/api/") ||
    path === "/skedulr/metrics";
}

function stronger(a: ApiRole | null, b: ApiRole): ApiRole {
  return a !== null && allows(a, b) ? a : b;
}

/** The 403 for a principal whose role falls short; it names the role needed. */
export function roleRefused(c: Context, need: ApiRole, p: Principal | undefined, what?: string) {
  return roleRefusedTo(`${c.req.method} ${c.req.path}`, need, p, what);
}

/** {@link roleRefused} for a request known by its method and path (`POST /skedulr/api/tasks`). */
export function roleRefusedTo(
  request: string,
  need: ApiRole,
  p: Principal | undefined,
  what?: string,
): ApiError {
  const who = p?.name ? `${p.name === "token" ? "SKEDULR_TOKEN" : `key "${p.name}"`}` : "you";
  return new ApiError(
    "forbidden",
    `Forbidden: ${what ?? request} needs the ${need} role; ${who} ` +
      `${p ? `has the ${p.role} role` : "are not authenticated"}`,
  );
}

/** Throws the 403 unless the request's principal has `need` (for checks inside a route). */
export function requireRole(c: Context<SkedulrEnv>, need: ApiRole, what?: string): void {
  const p = c.get("principal");
  if (!p || !allows(p.role, need)) throw roleRefused(c, need, p, what);
}

/** Declares (and enforces) the role a route needs. */
export function role(need: ApiRole): MiddlewareHandler<SkedulrEnv> {
  const check: MiddlewareHandler<SkedulrEnv> = async (c, next) => {
    requireRole(c, need);
    await next();
  };
  ROLE_OF.set(check, need);
  return check;
}

/**
 * The role the routes this request matched need: the strongest one declared; `admin` when
 * a matched route declares none; null when no route matched (a 404 follows).
 */
export function requiredRole(c: Context): ApiRole | null {
  let need: ApiRole | null = null;
  let routed = false;
  for (const r of matchedRoutes(c)) {
    const declared = ROLE_OF.get(r.handler);
    if (declared) need = stronger(need, declared);
    else if (r.method !== "ALL") routed = true;
  }
  return need ?? (routed ? "admin" : null);
}

/** `METHOD path` → declared role (null: none) of every guarded route of `app`. */
export function routeRoles(app: Hono<any, any, any>): Map<string, ApiRole | null> {
  const table = new Map<string, ApiRole | null>();
  for (const r of app.routes) {
    if (r.method !== "ALL" && isGuarded(r.path)) table.set(`${r.method} ${r.path}`, null);
  }
  for (const r of app.routes) {
    const declared = ROLE_OF.get(r.handler);
    if (!declared) continue;
    for (const [key, current] of table) {
      const [method, path] = key.split(" ");
      if (path === r.path && (r.method === "ALL" || r.method === method)) {
        table.set(key, stronger(current, declared));
      }
    }
  }
  return table;
}
