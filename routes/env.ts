/**
 * @module env — the Hono environment shared by every Skedulr route.
 */
import type { ApiRole } from "./credentials.ts";
import type { Deadline } from "./deadline.ts";

/** How the current request was authenticated: `open` when no credential is configured. */
export type AuthVia = "bearer" | "cookie" | "open";

/** Who is asking: how, with which credential (null when open) and its role. */
export interface Principal {
  via: AuthVia;
  /** `token` for SKEDULR_TOKEN, a key's name, or null on an open API. */
  name: string | null;
  role: ApiRole;
}

/** Hono environment: the per-request values middleware leaves for routes. */
export interface SkedulrEnv {
  /** What the server adapter (src/adapters/serve.ts) or the Worker passes with a request. */
  Bindings: {
    /** The client's address as the socket saw it. */
    remoteAddress?: string;
  };
  Variables: {
    /** Set by the auth middleware on every protected route. */
    auth: AuthVia;
    /** Set with `auth`: who the request authenticated as. */
    principal: Principal;
    /** The parsed JSON body (undefined when empty), set by the `jsonBody` middleware. */
    body: unknown;
    /** The request deadline, set on `/skedulr/api/*` and `/skedulr/metrics`. */
    deadline: Deadline | undefined;
  };
}
