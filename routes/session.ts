/**
 * @module session — `POST /skedulr/login` (JSON `{ token }` or a form field `token`, which
 * takes the token or any API key) sets the HttpOnly, SameSite=Strict session cookie the
 * dashboard authenticates with; `POST /skedulr/logout` clears it; `GET /skedulr/login`
 * serves the form.
 *
 * Logins are limited per client address (login-limit.ts) and refused cross-site (no page
 * elsewhere can log a browser in as its own key); logout must be same-origin, so no page
 * elsewhere can log a user out either.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { Scheduler } from "../src/mod.ts";
import { isJsonType, readBytes, readJson, requiredBody, validate } from "./body.ts";
import { type AuthOptions, originVerdict, SESSION_COOKIE } from "./auth.ts";
import type { SkedulrEnv } from "./env.ts";
import { ApiError } from "./errors.ts";
import { type LoginLimit, takeLoginSlot } from "./login-limit.ts";
import { LoginSchema } from "./schemas.ts";
import { loginPage, PAGE_CSP } from "./pages.ts";

/** Login bodies are tiny; anything larger is refused before parsing. */
const LOGIN_MAX_BYTES = 16 * 1024;

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" ||
    c.req.header("x-forwarded-proto")?.split(",")[0].trim() === "https";
}

/** An HTML response with the pages' security headers. */
export function html(
  c: Context,
  body: string,
  status: 200 | 401 | 429 = 200,
  headers: Record<string, string> = {},
): Response {
  return c.html(body, status, {
    "Content-Security-Policy": PAGE_CSP,
    "Cache-Control": "no-store",
    ...headers,
  });
}

function isFormType(contentType: string): boolean {
  const type = contentType.split(";")[0].trim().toLowerCase();
  return type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
}

async function readLogin(c: Context): Promise<{ token: string; form: boolean }> {
  const contentType = c.req.header("content-type") ?? "";
  if (isJsonType(contentType)) {
    const body = requiredBody(await readJson(c.req.raw, LOGIN_MAX_BYTES), '{ "token": "..." }');
    return { token: validate(LoginSchema, body, "login").token, form: false };
  }
  if (isFormType(contentType)) {
    const bytes = await readBytes(c.req.raw, LOGIN_MAX_BYTES);
    let token: unknown;
    try {
      const data = await new Response(bytes, { headers: { "Content-Type": contentType } })
        .formData();
      token = data.get("token");
    } catch {
      throw new ApiError("invalid_request", "Malformed form body");
    }
    return { token: typeof token === "string" ? token : "", form: true };
  }
  throw new ApiError(
    "unsupported_media_type",
    `Login rejected: send JSON { "token" } or a form, got ${JSON.stringify(contentType)}`,
  );
}

export interface SessionRouteOptions {
  scheduler: Scheduler;
  auth: AuthOptions;
  limit: LoginLimit;
  trustProxy: string | null;
  /** The request deadline: a login waits on the store for its rate limit. */
  deadline: MiddlewareHandler<SkedulrEnv>;
}

/** Registers the login routes on the `/skedulr` app. */
export function sessionRoutes(root: Hono<SkedulrEnv>, o: SessionRouteOptions): void {
  const { credentials, sessions } = o.auth;
  root.get("/login", (c) => html(c, loginPage()));

  root.post("/login", o.deadline, async (c) => {
    if (credentials.open) {
      const { form } = await readLogin(c);
      return form ? c.redirect("/skedulr", 303) : c.json({ ok: true });
    }
    if (originVerdict(c.req.raw, o.auth.trustedOrigins) === "cross") {
      throw new ApiError("forbidden", "Cross-site login refused: log in from this origin");
    }
    const form = isFormType(c.req.header("content-type") ?? "");
    try {
      await takeLoginSlot(c, o.scheduler, o.limit, o.trustProxy);
    } catch (error) {
      if (!form || !(error instanceof ApiError) || error.retryAfterS === undefined) throw error;
      const wait = { "Retry-After": String(error.retryAfterS) };
      return html(c, loginPage(error.message), 429, wait);
    }
    const { token } = await readLogin(c);
    const found = token ? await credentials.match(token) : null;
    if (!found) {
      if (form) return html(c, loginPage(true), 401);
      throw new ApiError("unauthorized", "Login refused: wrong token or key");
    }
    setCookie(c, SESSION_COOKIE, await sessions.issue(found, o.auth.now()), {
      httpOnly: true,
      sameSite: "Strict",
      secure: isHttps(c),
      path: "/skedulr",
      maxAge: Math.floor(sessions.ttlMs / 1000),
    });
    return form ? c.redirect("/skedulr", 303) : c.json({ ok: true });
  });

  root.post("/logout", (c) => {
    if (originVerdict(c.req.raw, o.auth.trustedOrigins) !== "same") {
      throw new ApiError(
        "forbidden",
        "Logout refused: it must come from this origin (Origin / Sec-Fetch-Site)",
      );
    }
    deleteCookie(c, SESSION_COOKIE, { path: "/skedulr", secure: isHttps(c) });
    return c.req.header("accept")?.includes("text/html")
      ? c.redirect("/skedulr/login", 303)
      : c.json({ ok: true });
  });
}
