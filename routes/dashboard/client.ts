/**
 * @module dashboard/client — the dashboard's browser script, assembled from the per-view
 * string modules into one IIFE, plus a content hash that versions its URL (so it can be
 * cached forever and still change with every release).
 */
import { CLIENT_CORE } from "./client-core.ts";
import { CLIENT_DETAIL } from "./client-detail.ts";
import { CLIENT_OVERVIEW } from "./client-overview.ts";
import { CLIENT_TASKS } from "./client-tasks.ts";
import { CLIENT_VIEWS } from "./client-views.ts";
import { DASHBOARD_CSS } from "./style.ts";

/** The whole client, one function scope so nothing leaks onto `window`. */
export const DASHBOARD_JS = `(function () {\n${
  [CLIENT_CORE, CLIENT_OVERVIEW, CLIENT_TASKS, CLIENT_DETAIL, CLIENT_VIEWS].join("\n")
}\n})();\n`;

export { DASHBOARD_CSS };

/** FNV-1a over UTF-16 code units: synchronous (no Web Crypto await at import), good enough for cache busting. */
export function contentHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

export const JS_HASH = contentHash(DASHBOARD_JS);
export const CSS_HASH = contentHash(DASHBOARD_CSS);
