/**
 * @module body — reading and validating request input: JSON bodies under a byte limit, the
 * content type, and valibot schemas whose issues become `{ path, message }` lists.
 *
 * The limit is enforced before and while reading: a body that declares a `Content-Length`
 * over it is refused unread, one whose length is unknown (chunked) is counted as it arrives
 * ({@link readBytes}), and what was read is measured again, so a body longer than its
 * declared length is refused as well ({@link readBody}).
 */
import type { MiddlewareHandler } from "hono";
import * as v from "valibot";
import { type FieldIssue, textIssues, ValidationError } from "../src/mod.ts";
import { ApiError } from "./errors.ts";
import type { SkedulrEnv } from "./env.ts";

/** 1 MiB, the default request body limit. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    "payload_too_large",
    `Request body rejected: it is larger than the limit of ${maxBytes} bytes`,
  );
}

/** True for `application/json` and `application/<x>+json`, any parameters. */
export function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(";")[0].trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[\w.-]+\+json$/.test(type);
}

/** Reads the raw body, failing as soon as more than `maxBytes` arrive. */
export async function readBytes(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * The raw body under the limit. A body with a `Content-Length` (and no transfer coding) is
 * refused unread when it declares more, else read in one piece: the server frames the
 * request by that length, so it cannot grow past it, and one read is several times cheaper
 * than a reader loop. A body of unknown length is read chunk by chunk, counted as it comes.
 */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const headers = request.headers;
  const declared = headers.get("content-length");
  if (declared === null || headers.has("transfer-encoding")) {
    return await readBytes(request, maxBytes);
  }
  if (parseInt(declared, 10) > maxBytes) throw tooLarge(maxBytes);
  // Not `request.body` here: on Bun asking for it makes a stream, a tenth of a submit's CPU.
  const bytes = await request.bytes();
  // A Request made in process (not by a server) may carry more than it declares.
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

/** Fatal: invalid UTF-8 is an error, not U+FFFD. Stateless between whole-buffer decodes. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A `\uD800`–`\uDFFF` escape: the only way JSON text that decoded as UTF-8 can hold a lone
 * surrogate (the decoder refuses encoded ones). Without one, the walk of every string
 * ({@link textIssues}) cannot find anything.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Parses a JSON body: undefined when there is none, 415 when it is not JSON, 400 when it
 * does not parse (invalid UTF-8 included) or when a string in it is not well-formed Unicode
 * (a `\ud800` escape parses, but could never be answered as UTF-8: 400 naming the field).
 */
export async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBody(request, maxBytes);
  if (bytes.byteLength === 0) return undefined;
  const contentType = request.headers.get("content-type") ?? undefined;
  if (!isJsonType(contentType)) {
    throw new ApiError(
      "unsupported_media_type",
      `Request body rejected: expected Content-Type application/json, got ${
        contentType ? JSON.stringify(contentType) : "none"
      }`,
    );
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ApiError("invalid_request", "Malformed JSON body: it is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError("invalid_request", `Malformed JSON body: ${(error as Error).message}`);
  }
  if (SURROGATE_ESCAPE.test(text)) {
    const issues = textIssues(value);
    if (issues.length) throw new ValidationError(issues, "request body");
  }
  return value;
}

/**
 * Middleware for routes that take a body: enforces the size limit and content type, parses
 * the JSON, and leaves it (or undefined) in `c.var.body`.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler<SkedulrEnv> {
  return async (c, next) => {
    // The request deadline is about the store: a slow upload must not spend it.
    // (`c.get`, not `c.var`: the latter copies every variable into a new object.)
    const deadline = c.get("deadline");
    deadline?.hold();
    c.set("body", await readJson(c.req.raw, maxBytes));
    deadline?.resume();
    await next();
  };
}

/** The body of a route that needs one; 400 when the request had none. */
export function requiredBody(body: unknown, what: string): unknown {
  if (body === undefined) {
    throw new ApiError("invalid_request", `Request body required: send ${what} as JSON`);
  }
  return body;
}

/** Validates `input` against a schema, or throws a {@link ValidationError} naming each field. */
export function validate<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  what: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw new ValidationError(result.issues.map(toFieldIssue), what);
}

/** One valibot issue as `{ path, message }`, with plain messages for object-shape issues. */
export function toFieldIssue(issue: v.BaseIssue<unknown>): FieldIssue {
  const path = v.getDotPath(issue) ?? "";
  if (issue.type === "strict_object" || issue.type === "object") {
    if (issue.expected === "never") return { path, message: "unknown field" };
    if (issue.expected?.startsWith('"')) return { path, message: "is required" };
    return { path, message: `expected an object, got ${describe(issue.input)}` };
  }
  return { path, message: issue.message };
}

/** A short description of a value for messages: `null`, `an array`, `"text"`, `42`. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
