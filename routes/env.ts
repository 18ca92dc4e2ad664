/**
 * @module env — the Hono environment shared by every Skedulr route.
 */
import type { Deadline } from "./deadline.ts";

/** How the current request was authenticated: `open` when no token is configured. */
export type AuthVia = "bearer" | "cookie" | "open";

/** Hono environment: the per-request values middleware leaves for routes. */
export interface SkedulrEnv {
  Variables: {
    /** Set by the auth middleware on every protected route. */
    auth: AuthVia;
    /** The parsed JSON body (undefined when empty), set by the `jsonBody` middleware. */
    body: unknown;
    /** The request deadline, set on `/skedulr/api/*` and `/skedulr/metrics`. */
    deadline: Deadline | undefined;
  };
}
