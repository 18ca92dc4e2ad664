/**
 * @module dashboard — mounts the dashboard on the `/skedulr` app: the page at `/skedulr`
 * (the login form first when a token is configured), its script and stylesheet under
 * `/skedulr/assets/`, and three read-only helper endpoints under `/skedulr/api/dashboard/`.
 * Everything is in string modules (the script generated from dashboard/client/ by
 * scripts/tools/gen-dashboard.ts), so it serves from Bun, Deno or a Cloudflare Worker with
 * no build step at deploy time and no filesystem.
 *
 * @example
 * const app = createApp({ scheduler, token, dashboard });
 */
import type { Context, Hono } from "hono";
import type { DashboardTools } from "./app.ts";
import type { SkedulrEnv } from "./env.ts";
import { dashboardApi } from "./dashboard/api.ts";
import { CSS_HASH, DASHBOARD_CSS, DASHBOARD_JS, JS_HASH } from "./dashboard/client.ts";
import { DASHBOARD_CSP, dashboardShell, loginShell } from "./dashboard/shell.ts";

const SCRIPT_PATH = "/skedulr/assets/dashboard.js";
const STYLE_PATH = "/skedulr/assets/dashboard.css";

/**
 * A static asset: immutable when asked for by its current hash (the shell always does),
 * revalidated otherwise so a stale `?v=` never pins an old script.
 */
function asset(c: Context, body: string, type: string, hash: string): Response {
  const current = c.req.query("v") === hash;
  return c.body(body, 200, {
    "Content-Type": type,
    "Cache-Control": current ? "public, max-age=31536000, immutable" : "no-cache",
    ETag: `"${hash}"`,
  });
}

/** The `dashboard` hook of `createApp`. */
export function dashboard(root: Hono<SkedulrEnv>, tools: DashboardTools): void {
  dashboardApi(root, tools.scheduler);

  root.get(
    "/assets/dashboard.js",
    (c) => asset(c, DASHBOARD_JS, "text/javascript; charset=utf-8", JS_HASH),
  );
  root.get(
    "/assets/dashboard.css",
    (c) => asset(c, DASHBOARD_CSS, "text/css; charset=utf-8", CSS_HASH),
  );

  root.get("/", async (c) => {
    const who = await tools.authenticate(c);
    const assets = {
      version: tools.version,
      scriptSrc: `${SCRIPT_PATH}?v=${JS_HASH}`,
      styleHref: `${STYLE_PATH}?v=${CSS_HASH}`,
    };
    // Not logged in: the login form, before anything of the dashboard is served.
    if (who === null) return page(c, loginShell(assets), 401);
    // The page shows only what the role may do; the API enforces it either way.
    const shell = dashboardShell({ ...assets, canLogOut: who.via === "cookie", role: who.role });
    return page(c, shell, 200);
  });
}

function page(c: Context, body: string, status: 200 | 401): Response {
  return c.html(body, status, {
    "Content-Security-Policy": DASHBOARD_CSP,
    "Cache-Control": "no-store",
  });
}
