/**
 * @module dashboard/client — the dashboard's browser script and stylesheet, each with a
 * content hash that versions its URL (so it can be cached forever and still change with
 * every release). The script is bundled from ./client/ into ./client.generated.ts by
 * scripts/tools/gen-dashboard.ts.
 */
import { DASHBOARD_JS } from "./client.generated.ts";
import { DASHBOARD_CSS } from "./style.ts";

export { DASHBOARD_CSS, DASHBOARD_JS };

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
