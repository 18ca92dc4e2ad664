/**
 * @module api-index — `GET /skedulr/api`: where to go from the API's root. Links to the docs
 * page, the OpenAPI document, the dashboard and the health check, and lists every API route
 * with the role it needs and its summary.
 *
 * The list is read from the app's own routes and the roles they declare (roles.ts), and the
 * summaries from the OpenAPI document, so it cannot drift from what the server answers. It
 * needs `read`, like the docs it points to: on an open API anyone the Host check lets in may
 * read it; with credentials an anonymous caller gets the 401 that also says how to log in.
 */
import type { Context, Hono } from "hono";
import type { ApiRole } from "./credentials.ts";
import type { SkedulrEnv } from "./env.ts";
import type { Json } from "./openapi-parts.ts";
import { isGuarded, routeRoles } from "./roles.ts";

/** One line of the index. `role` null: no credential needed. */
export interface IndexedRoute {
  method: string;
  path: string;
  role: ApiRole | null;
  summary?: string;
}

/** Routes outside the guard that API clients use. */
const PUBLIC = ["GET /skedulr/healthz"];

/** Summaries that read better here than the OpenAPI document's own ("This document"). */
const OWN: Record<string, string> = {
  "GET /skedulr/api": "This index",
  "GET /skedulr/api/openapi.json": "The OpenAPI 3.1 document",
};

function summaryOf(doc: Json, method: string, path: string): string | undefined {
  if (OWN[`${method} ${path}`]) return OWN[`${method} ${path}`];
  const paths = doc.paths as Record<string, Record<string, Json>> | undefined;
  const op = paths?.[path.replace(/:(\w+)/g, "{$1}")]?.[method.toLowerCase()];
  return typeof op?.summary === "string" ? op.summary : undefined;
}

/** The routes of `app` the index lists, sorted by path, then method. */
export function indexedRoutes(app: Hono<any, any, any>, doc: Json): IndexedRoute[] {
  const routes: IndexedRoute[] = [];
  const roles = routeRoles(app);
  for (const [key, role] of roles) {
    const [method, path] = key.split(" ");
    routes.push({ method, path, role, summary: summaryOf(doc, method, path) });
  }
  for (const key of PUBLIC) {
    const [method, path] = key.split(" ");
    const served = app.routes.some((r) => r.method === method && r.path === path);
    if (served && !isGuarded(path)) {
      routes.push({ method, path, role: null, summary: summaryOf(doc, method, path) });
    }
  }
  return routes.sort((a, b) =>
    a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)
  );
}

/** The handler of `GET /skedulr/api`; the answer is built on first use, once every route exists. */
export function apiIndex(app: Hono<any, any, any>, openApi: () => Json, version: string) {
  let body: Json | undefined;
  return (c: Context<SkedulrEnv>) =>
    c.json(
      body ??= {
        name: "skedulr",
        version,
        docs: "/skedulr/api/docs",
        openapi: "/skedulr/api/openapi.json",
        dashboard: "/skedulr",
        health: "/skedulr/healthz",
        routes: indexedRoutes(app, openApi()),
      },
    );
}
