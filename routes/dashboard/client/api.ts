/**
 * @module dashboard/client/api — the JSON API, same-origin: the browser sends the HttpOnly
 * login cookie plus Origin/Sec-Fetch-Site, which is what the API's CSRF check accepts for
 * changes. A failure carries the API's own message and the HTTP status.
 */
import { BASE } from "./state.ts";
import type { Failure } from "./types.ts";

/** `T` is the caller's word for the answer's shape (see types.ts for the server's types). */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  const init: RequestInit = { method, headers, credentials: "same-origin", cache: "no-store" };
  if (method !== "GET") {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const r = await fetch(`${BASE}/api${path}`, init);
  const t = await r.text();
  let data: unknown = null;
  try {
    data = t ? JSON.parse(t) : null;
  } catch {
    data = null;
  }
  // The session ended (or never began): the page itself shows the login form.
  if (r.status === 401) location.assign(BASE);
  if (!r.ok) {
    const message = (data as { error?: { message?: string } } | null)?.error?.message;
    const err: Failure = new Error(message ? message : `HTTP ${r.status} from ${path}`);
    err.status = r.status;
    throw err;
  }
  return data as T;
}

/** A query string of the non-empty params, with its `?`; "" when there is none. */
export function qs(params: Record<string, string | number | null | undefined>): string {
  const u = new URLSearchParams();
  for (const k of Object.keys(params)) {
    const v = params[k];
    if (v !== "" && v !== null && v !== undefined) u.set(k, String(v));
  }
  const s = u.toString();
  return s ? `?${s}` : "";
}
