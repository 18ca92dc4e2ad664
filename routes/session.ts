/**
 * @module session — `POST /skedulr/login` (JSON `{ token }` or a form field `token`) sets the
 * HttpOnly, SameSite=Strict cookie the dashboard authenticates with; `POST /skedulr/logout`
 * clears it; `GET /skedulr/login` serves the form.
 */
import type { Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { isJsonType, readBytes, readJson, requiredBody, validate } from "./body.ts";
import { TOKEN_COOKIE } from "./auth.ts";
import type { SkedulrEnv } from "./env.ts";
import { ApiError } from "./errors.ts";
import { LoginSchema } from "./schemas.ts";
import { loginPage, PAGE_CSP } from "./pages.ts";

/** Login bodies are tiny; anything larger is refused before parsing. */
const LOGIN_MAX_BYTES = 16 * 1024;

/** How long the login cookie lasts. */
export const COOKIE_MAX_AGE_S = 7 * 24 * 3600;

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" ||
    c.req.header("x-forwarded-proto")?.split(",")[0].trim() === "https";
}

/** An HTML response with the pages' security headers. */
export function html(c: Context, body: string, status: 200 | 401 = 200): Response {
  return c.html(body, status, { "Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-store" });
}

async function readLogin(c: Context): Promise<{ token: string; form: boolean }> {
  const contentType = c.req.header("content-type") ?? "";
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (isJsonType(contentType)) {
    const body = requiredBody(await readJson(c.req.raw, LOGIN_MAX_BYTES), '{ "token": "..." }');
    return { token: validate(LoginSchema, body, "login").token, form: false };
  }
  if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") {
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

/** Registers the login routes on the `/skedulr` app. */
export function sessionRoutes(
  root: Hono<SkedulrEnv>,
  check: ((candidate: string) => Promise<boolean>) | undefined,
): void {
  root.get("/login", (c) => html(c, loginPage()));

  root.post("/login", async (c) => {
    const { token, form } = await readLogin(c);
    if (check && !(token && (await check(token)))) {
      if (form) return html(c, loginPage(true), 401);
      throw new ApiError("unauthorized", "Login refused: wrong token");
    }
    if (check) {
      setCookie(c, TOKEN_COOKIE, token, {
        httpOnly: true,
        sameSite: "Strict",
        secure: isHttps(c),
        path: "/skedulr",
        maxAge: COOKIE_MAX_AGE_S,
      });
    }
    return form ? c.redirect("/skedulr", 303) : c.json({ ok: true });
  });

  root.post("/logout", (c) => {
    deleteCookie(c, TOKEN_COOKIE, { path: "/skedulr", secure: isHttps(c) });
    return c.req.header("accept")?.includes("text/html")
      ? c.redirect("/skedulr/login", 303)
      : c.json({ ok: true });
  });
}
