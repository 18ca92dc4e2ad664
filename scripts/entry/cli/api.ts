/**
 * @module cli/api — the CLI's HTTP client: one request to `/skedulr/api`, its answer, or a
 * {@link CliError} whose exit code tells a script what went wrong.
 *
 * Client-side variables only: `SKEDULR_URL` (where a node answers) and `SKEDULR_API_KEY` (the
 * bearer credential). The server's `SKEDULR_TOKEN` is deliberately not read: on a machine
 * that runs both, a CLI that picked it up would act as admin without being told to.
 */

/** Exit codes, documented in `skedulr --help` and the README. */
export const EXIT = {
  ok: 0,
  /** Bad arguments or input: nothing was sent. */
  usage: 1,
  /** The API refused the request (4xx): fix the request, retrying will not help. */
  refused: 2,
  /** The server failed (5xx): retrying later may help. */
  server: 3,
  /** No answer: unreachable, refused connection, or no answer in time. */
  unreachable: 4,
  /** `--wait`: the task ended `dead`, `cancelled` or `expired`. */
  taskFailed: 5,
  /** `--wait`: the task was still unfinished at `--timeout`. */
  waitTimeout: 6,
} as const;

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export const DEFAULT_URL = "http://127.0.0.1:8080";
/** Long enough for a slow node, short enough that a hung one does not hang a script. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface Api {
  /** Where requests go, for messages. */
  readonly base: string;
  request(method: string, path: string, body?: unknown): Promise<any>;
}

/**
 * The API base from SKEDULR_URL: a node's root (`http://host:8080`); `/skedulr` or
 * `/skedulr/api` on the end is accepted too, since both appear in the worker's banner.
 */
export function apiBase(url: string | undefined): string {
  const root = (url?.trim() || DEFAULT_URL).replace(/\/+$/, "").replace(/\/skedulr(\/api)?$/, "");
  let parsed: URL;
  try {
    parsed = new URL(root);
  } catch {
    throw new CliError(`SKEDULR_URL: not a URL: ${JSON.stringify(url)}`, EXIT.usage);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CliError(`SKEDULR_URL: expected http(s)://…, got ${JSON.stringify(url)}`, EXIT.usage);
  }
  return `${root}/skedulr/api`;
}

export function createApi(env: Record<string, string | undefined>): Api {
  const base = apiBase(env.SKEDULR_URL);
  const key = env.SKEDULR_API_KEY?.trim();
  return {
    base,
    async request(method, path, body) {
      const url = base + path;
      const headers: Record<string, string> = { accept: "application/json" };
      if (key) headers.authorization = `Bearer ${key}`;
      if (body !== undefined) headers["content-type"] = "application/json";
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        throw new CliError(
          `cannot reach ${base} (${networkDetail(error)}): is a worker running there? ` +
            `(SKEDULR_URL=${env.SKEDULR_URL ?? `unset, so ${DEFAULT_URL}`})`,
          EXIT.unreachable,
        );
      }
      const text = await response.text();
      let answer: any;
      try {
        answer = text ? JSON.parse(text) : null;
      } catch {
        answer = undefined;
      }
      if (response.ok && answer !== undefined) return answer;
      throw answerError(method, path, response, answer, text, Boolean(key));
    },
  };
}

/** The API's `{error: {code, message, issues}}` as one message, with the right exit code. */
function answerError(
  method: string,
  path: string,
  response: Response,
  answer: any,
  text: string,
  hasKey: boolean,
): CliError {
  const status = response.status;
  const exit = status >= 400 && status < 500 ? EXIT.refused : EXIT.server;
  const error = answer?.error;
  if (!error || typeof error.message !== "string") {
    const what = response.ok ? "an answer that is not JSON" : `HTTP ${status}`;
    const sample = text.slice(0, 120).replace(/\s+/g, " ");
    return new CliError(
      `${method} ${path}: ${what} (is SKEDULR_URL a Skedulr node?)${sample ? `: ${sample}` : ""}`,
      response.ok ? EXIT.server : exit,
    );
  }
  const lines = [`${status} ${error.code}: ${error.message}`];
  for (const issue of error.issues ?? []) {
    const line = `${issue.path || "(body)"}: ${issue.message}`;
    if (!error.message.includes(line)) lines.push(`  ${line}`); // most messages name them
  }
  if (status === 401) {
    lines.push(
      hasKey
        ? "  SKEDULR_API_KEY was sent and refused: check the key"
        : "  the server needs a credential: set SKEDULR_API_KEY",
    );
  }
  const retry = response.headers.get("retry-after");
  if (retry) lines.push(`  retry after ${retry} s`);
  return new CliError(lines.join("\n"), exit);
}

/** What the runtime says about a failed connection, shortest form first. */
function networkDetail(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: any };
  if (e?.name === "TimeoutError") return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}
