/**
 * @module dashboard/client/route — the location hash as a route, `#/<view>/<arg>?<params>`,
 * and back (a filter change rewrites the hash without a new history entry).
 */
import { qs } from "./api.ts";
import type { Route } from "./types.ts";

export function parseHash(): Route {
  const raw = location.hash.replace(/^#\/?/, "");
  const at = raw.indexOf("?");
  const path = at < 0 ? raw : raw.slice(0, at);
  const parts = path.split("/").filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return {
    name: parts[0] || "overview",
    arg: parts[1] || null,
    params: new URLSearchParams(at < 0 ? "" : raw.slice(at + 1)),
  };
}

export function setHash(path: string, params?: Record<string, string>): void {
  history.replaceState(null, "", `#/${path}${qs(params || {})}`);
}
