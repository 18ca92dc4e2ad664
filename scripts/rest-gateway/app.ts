/**
 * @module app — the Upstash-compatible REST protocol as a fetch handler in
 * front of one TCP Redis.
 *
 * Routes (all POST, `Authorization: Bearer <token>`):
 *   /                       one command `["SET","k","v"]`      → {result} | 400 {error}
 *   /pipeline               `[[...],[...]]`, not atomic          → [{result}|{error}, ...]
 *   /multi-exec             same body, MULTI/EXEC around it       → [{result}|{error}, ...]
 *   /subscribe/<channel>    SSE: `data: subscribe,<ch>,1`, `data: message,<ch>,<payload>`
 *   /psubscribe/<pattern>   SSE: ..., `data: pmessage,<pattern>,<ch>,<payload>`
 *   GET /_gateway/stats     request and command counts (for measuring idle cost)
 * `Upstash-Encoding: base64` makes every reply string base64 of its bytes. The shape of
 * requests and replies is the one `@upstash/redis` 1.39 speaks (see docs/EDGE.md).
 */
import { entry, parseCommand, Rejected, toJson } from "./commands.ts";
import { Bulk, openResp, type RespConnection, RespError, type RespValue } from "./resp.ts";

export interface GatewayOptions {
  redisUrl: string;
  token: string;
  /** SSE comment sent this often so proxies and clients see a live stream (default 15 s). */
  keepAliveMs?: number;
  /** Largest accepted body (default 16 MiB). */
  maxBodyBytes?: number;
}

/** What the gateway counted since it started. */
export interface GatewayStats {
  /** HTTP requests on the protocol routes (SSE opens included, stats reads excluded). */
  requests: number;
  /** Redis commands run for those requests. */
  commands: number;
  byRoute: Record<string, number>;
  /** SSE streams open now. */
  streams: number;
}

export interface Gateway {
  fetch(request: Request, server?: unknown): Promise<Response>;
  stats(): GatewayStats;
  /** Ends every SSE stream and closes the Redis connections. */
  close(): void;
}

const encoder = new TextEncoder();

/** Builds the handler; Redis connections open on first use. */
export function createGateway(options: GatewayOptions): Gateway {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const expected = encoder.encode(`Bearer ${options.token}`);
  const counts: GatewayStats = { requests: 0, commands: 0, byRoute: {}, streams: 0 };
  const streams = new Set<() => void>();
  let shared: Promise<RespConnection> | null = null;

  /** The connection every command request shares, reopened after a loss. */
  const connection = async (): Promise<RespConnection> => {
    const current = shared ? await shared.catch(() => null) : null;
    if (current && !current.closed) return current;
    shared = openResp(options.redisUrl);
    return await shared;
  };

  const run = async (cmds: string[][]): Promise<RespValue[]> => {
    counts.commands += cmds.length;
    let conn: RespConnection;
    try {
      conn = await connection();
      return await conn.sendMany(cmds);
    } catch (error) {
      throw new Unreachable((error as Error).message);
    }
  };

  const authorized = (request: Request): boolean => {
    const got = encoder.encode(request.headers.get("authorization") ?? "");
    let diff = got.length ^ expected.length;
    for (let i = 0; i < expected.length; i++) diff |= (got[i] ?? 0) ^ expected[i];
    return diff === 0;
  };

  const handle = async (request: Request, server?: unknown): Promise<Response> => {
    const path = new URL(request.url).pathname.replace(/\/+$/, "") || "/";
    if (!authorized(request)) return json({ error: "Unauthorized" }, 401);
    if (path === "/_gateway/stats" && request.method === "GET") {
      return json({ ...counts, byRoute: { ...counts.byRoute } });
    }
    const sse = /^\/(p?subscribe)\/(.+)$/.exec(path);
    const route = sse ? `/${sse[1]}` : path;
    if (!["/", "/pipeline", "/multi-exec", "/subscribe", "/psubscribe"].includes(route)) {
      return json({
        error:
          `ERR unknown endpoint ${path}: use /, /pipeline, /multi-exec or /subscribe/<channel>`,
      }, 404);
    }
    if (request.method !== "POST" && !(sse && request.method === "GET")) {
      return json({ error: `ERR ${request.method} ${path}: use POST` }, 405);
    }
    counts.requests++;
    counts.byRoute[route] = (counts.byRoute[route] ?? 0) + 1;
    if (sse) {
      // Bun closes connections idle for 10 s by default; an SSE stream may be quiet longer.
      (server as { timeout?: (r: Request, s: number) => void } | undefined)?.timeout?.(request, 0);
      return await subscribe(sse[1] as "subscribe" | "psubscribe", decodeURIComponent(sse[2]));
    }
    const base64 = request.headers.get("upstash-encoding")?.toLowerCase() === "base64";
    const body = await readJson(request, maxBodyBytes);
    if (route === "/") {
      const cmd = parseCommand(body);
      const [reply] = await run([cmd]);
      if (reply instanceof RespError) return json({ error: reply.message }, 400);
      return json({ result: toJson(reply, base64) });
    }
    if (!Array.isArray(body) || body.length === 0) {
      throw new Rejected(`ERR ${route} takes a non-empty JSON array of commands`);
    }
    if (route === "/pipeline") return json(await pipeline(body, base64));
    return json(await multiExec(body, base64));
  };

  /** Runs the accepted commands in one write; refused ones get their `{error}` in place. */
  const pipeline = async (body: unknown[], base64: boolean) => {
    const parsed = body.map((raw) => {
      try {
        return parseCommand(raw);
      } catch (error) {
        if (error instanceof Rejected) return error;
        throw error;
      }
    });
    const replies = await run(parsed.filter((p): p is string[] => Array.isArray(p)));
    let next = 0;
    return parsed.map((p) =>
      p instanceof Rejected ? { error: p.message } : entry(replies[next++], base64)
    );
  };

  /** MULTI, the commands, EXEC in one write: nothing else can run in between. */
  const multiExec = async (body: unknown[], base64: boolean) => {
    const cmds = body.map(parseCommand); // one refused command refuses the transaction
    const replies = await run([["MULTI"], ...cmds, ["EXEC"]]);
    const exec = replies[replies.length - 1];
    if (exec instanceof RespError) {
      const queued = replies.slice(1, -1).find((r) => r instanceof RespError) as RespError;
      throw new Rejected(queued ? `${exec.message} (${queued.message})` : exec.message);
    }
    if (!Array.isArray(exec)) throw new Rejected("ERR transaction aborted");
    return exec.map((r) => entry(r, base64));
  };

  /** One Redis connection per stream, as Upstash opens one stream per channel. */
  const subscribe = async (kind: "subscribe" | "psubscribe", name: string) => {
    let conn: RespConnection;
    try {
      conn = await openResp(options.redisUrl);
    } catch (error) {
      throw new Unreachable((error as Error).message);
    }
    let end = () => {};
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch { /* the client is gone; cancel() cleans up */ }
        };
        const timer = setInterval(() => send(": ping\n\n"), keepAliveMs);
        end = () => {
          if (!streams.delete(end)) return;
          counts.streams--;
          clearInterval(timer);
          conn.onClose = null;
          conn.close();
          try {
            controller.close();
          } catch { /* already closed */ }
        };
        streams.add(end);
        counts.streams++;
        conn.onPush = (value) => send(sseEvent(value));
        conn.onClose = () => end();
        conn.write([kind.toUpperCase(), name]);
      },
      cancel() {
        end();
      },
    });
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      },
    });
  };

  return {
    async fetch(request, server) {
      try {
        return await handle(request, server);
      } catch (error) {
        if (error instanceof Rejected) return json({ error: error.message }, 400);
        if (error instanceof Unreachable) {
          return json({ error: `Redis unreachable from the REST gateway: ${error.message}` }, 502);
        }
        return json({ error: `gateway error: ${(error as Error).message}` }, 500);
      }
    },
    stats: () => ({ ...counts, byRoute: { ...counts.byRoute } }),
    close() {
      for (const end of [...streams]) end();
      shared?.then((c) => c.close(), () => {});
      shared = null;
    },
  };
}

class Unreachable extends Error {}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

async function readJson(request: Request, max: number): Promise<unknown> {
  const text = await request.text();
  if (text.length > max) throw new Rejected(`ERR request body over ${max} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Rejected(`ERR request body is not JSON: ${text.slice(0, 60)}`);
  }
}

/**
 * A pub/sub push as an SSE event. The payload is text (SSE cannot carry raw bytes); a
 * payload with line breaks is split over several `data:` lines, which an SSE reader joins.
 */
function sseEvent(value: RespValue): string {
  if (!Array.isArray(value)) return "";
  const parts = value.map((v) => v instanceof Bulk ? v.text() : String(v));
  const lines = parts.join(",").split(/\r\n|\r|\n/);
  return lines.map((line) => `data: ${line}\n`).join("") + "\n";
}
