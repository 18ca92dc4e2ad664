/**
 * @module cloudflare-handler — the Skedulr API and dashboard as a Cloudflare Worker (the
 * entry is cloudflare-worker.ts, which `wrangler.toml` names as `main`), with Redis over Upstash REST.
 *
 * The Worker only serves HTTP: no pools, no timing wheel, no pub/sub stream. Tasks it
 * accepts are run by resident workers (`bun run worker`, `deno task worker`) on the same
 * Redis and key prefix. Configuration comes from the Worker's environment:
 *
 *   UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN   the REST endpoint (required)
 *   SKEDULR_TOKEN    bearer token for the API and dashboard, role admin (required: a
 *                    Worker is reachable from anywhere, so it never serves an open API)
 *   SKEDULR_KEYS     named API keys with roles, name:role:sha256hex,... (optional)
 *   SKEDULR_ALLOWED_HOSTS   Host names served (optional; default any)
 *   SKEDULR_SESSION_SECRET  signs dashboard sessions (optional; default from the token)
 *   SKEDULR_PREFIX   Redis key prefix, the same as the workers' (default skedulr)
 *   SKEDULR_HTTP_ALLOW   hosts and CIDRs `http` tasks may call besides public addresses,
 *                    the same as the workers' (optional). Submits are checked here as
 *                    written (an internal address is a 400); a name is resolved, checked
 *                    and pinned by the resident worker that runs the task. The same
 *                    check applies to a spec's `callback.url`.
 *   SKEDULR_CALLBACK_POOL  the pool callback tasks run in, the same as the workers'
 *                    (optional; default callbacks)
 *   SKEDULR_EDGE_POOLS (and the other SKEDULR_EDGE_* of src/worker/edge-config.ts)  pools
 *                    whose `http` tasks the edge deliverer delivers, with no resident
 *                    worker (cloudflare-deliverer.ts; needs the DELIVERER binding). A submit
 *                    of another type to them is a 400 naming `type`.
 *   SKEDULR_SIGNING_KEY  signs the edge's deliveries, as on a resident worker (optional)
 *
 * The client address that login limits count by is Cloudflare's `CF-Connecting-IP`.
 *
 * Everything is built per request: Workers forbid carrying I/O (the REST client's
 * in-flight batch) from one request into another, and building the app costs well under a
 * millisecond. See docs/EDGE.md for deployment.
 */
import { createApp } from "../../routes/app.ts";
import { dashboard } from "../../routes/dashboard.ts";
import {
  httpTaskPayloadSchema,
  isName,
  NAME_RULE,
  outboundPolicy,
  Scheduler,
  silentLogger,
} from "../../src/mod.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { parseAllowedHosts, parseApiKeys } from "../../src/worker/access-config.ts";
import { edgeSpecRules, parseEdgeConfig, wakeWatch } from "../../src/worker/edge-config.ts";
import { VERSION } from "../../src/version.ts";
import {
  type DelivererNamespace,
  type ExecutionContextLike,
  tellDeliverer,
} from "./cloudflare-edge.ts";

/** The bindings this Worker reads. */
export interface Env {
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  SKEDULR_TOKEN?: string;
  SKEDULR_KEYS?: string;
  SKEDULR_ALLOWED_HOSTS?: string;
  SKEDULR_SESSION_SECRET?: string;
  SKEDULR_PREFIX?: string;
  SKEDULR_HTTP_ALLOW?: string;
  SKEDULR_CALLBACK_POOL?: string;
  SKEDULR_EDGE_POOLS?: string;
  SKEDULR_EDGE_LEASE?: string;
  SKEDULR_EDGE_TIMEOUT?: string;
  SKEDULR_EDGE_SUBREQUESTS?: string;
  SKEDULR_EDGE_RUN?: string;
  SKEDULR_SIGNING_KEY?: string;
  /** The edge deliverer's Durable Object namespace (wrangler.toml). */
  DELIVERER?: DelivererNamespace;
}

/** Names each missing or bad variable, or returns null when the env is usable. */
export function checkEnv(env: Env): string | null {
  const problems: string[] = [];
  const url = env.UPSTASH_REDIS_REST_URL?.trim();
  if (!url) problems.push("UPSTASH_REDIS_REST_URL is not set (wrangler secret put ...)");
  else if (!/^https?:\/\/\S+$/.test(url)) {
    problems.push(`UPSTASH_REDIS_REST_URL: expected an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (!env.UPSTASH_REDIS_REST_TOKEN?.trim()) {
    problems.push("UPSTASH_REDIS_REST_TOKEN is not set (wrangler secret put ...)");
  }
  const token = env.SKEDULR_TOKEN?.trim();
  if (!token) {
    problems.push(
      "SKEDULR_TOKEN is not set: a Worker is reachable from anywhere, so it serves the API " +
        "only with a token (wrangler secret put SKEDULR_TOKEN)",
    );
  } else if (token.length < 16) {
    problems.push("SKEDULR_TOKEN: use at least 16 characters");
  }
  problems.push(...parseApiKeys(env.SKEDULR_KEYS ?? "").problems);
  if (env.SKEDULR_ALLOWED_HOSTS?.trim()) {
    problems.push(...parseAllowedHosts(env.SKEDULR_ALLOWED_HOSTS).problems);
  }
  const secret = env.SKEDULR_SESSION_SECRET?.trim();
  if (secret && secret.length < 32) {
    problems.push("SKEDULR_SESSION_SECRET: use at least 32 characters");
  }
  const prefix = env.SKEDULR_PREFIX?.trim();
  if (prefix && !/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) {
    problems.push(`SKEDULR_PREFIX: letters, digits and _ . : - only (≤ 64), got "${prefix}"`);
  }
  const pool = env.SKEDULR_CALLBACK_POOL?.trim();
  if (pool && !isName(pool)) {
    problems.push(`SKEDULR_CALLBACK_POOL: ${NAME_RULE}, got ${JSON.stringify(pool)}`);
  }
  try {
    outboundPolicy(env.SKEDULR_HTTP_ALLOW ?? null);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const edge = parseEdgeConfig(env);
  problems.push(...edge.problems);
  if (edge.config && !env.DELIVERER) {
    problems.push(
      "SKEDULR_EDGE_POOLS is set but the DELIVERER Durable Object binding is missing (wrangler.toml)",
    );
  }
  return problems.length ? problems.join("; ") : null;
}

/** False until this isolate served its first request (see cloudflare-edge.ts `start`). */
let started = false;

/**
 * The edge's pools and what the deliverer is told about this request (null without
 * SKEDULR_EDGE_POOLS): `start` on the isolate's first request, and a wake for the work its
 * writes queued.
 */
export function edgeFor(env: Env, ctx: ExecutionContextLike | undefined) {
  const config = parseEdgeConfig(env).config;
  if (!config) return null;
  const namespace = env.DELIVERER;
  const prefix = env.SKEDULR_PREFIX?.trim() || "skedulr";
  const tell = (message: Parameters<typeof tellDeliverer>[2]) => {
    if (namespace && ctx) ctx.waitUntil(tellDeliverer(namespace, prefix, message));
  };
  if (!started) {
    started = true;
    tell("start");
  }
  const watch = wakeWatch(config, Date.now);
  return {
    config,
    listener: watch.listener,
    /** Wakes the deliverer for the work this request's writes queued, if any. */
    done(): void {
      const at = watch.earliest();
      if (at !== null) tell({ wakeAt: at });
    },
  };
}

/**
 * A REST transport and a store for one request, or one alarm of the deliverer: Workers keep
 * no I/O from one invocation for another. Its listeners hear its own writes' events only.
 */
export function storeFor(env: Env): { transport: RestTransport; storage: RedisStorage } {
  const transport = new RestTransport({
    url: env.UPSTASH_REDIS_REST_URL!.trim(),
    token: env.UPSTASH_REDIS_REST_TOKEN!.trim(),
  });
  // No init(): it would open a pub/sub stream that an invocation cannot keep, and the
  // eviction check belongs to the resident workers that start once.
  const storage = new RedisStorage({
    transport,
    prefix: env.SKEDULR_PREFIX?.trim() || "skedulr",
    checkEvictionPolicy: false,
    subscribeEvents: false,
  });
  return { transport, storage };
}

/** Handles one request with a fresh app over a fresh REST transport. */
export async function handle(
  request: Request,
  env: Env,
  ctx?: ExecutionContextLike,
): Promise<Response> {
  const problem = checkEnv(env);
  if (problem) {
    return Response.json(
      { error: { code: "misconfigured", message: `Worker configuration: ${problem}` } },
      { status: 500 },
    );
  }
  const { transport, storage } = storeFor(env);
  const edge = edgeFor(env, ctx);
  const unwatch = edge ? storage.subscribe(edge.listener) : () => {};
  const policy = outboundPolicy(env.SKEDULR_HTTP_ALLOW ?? null);
  const scheduler = new Scheduler({
    storage,
    pools: {},
    logger: silentLogger,
    host: "edge",
    outboundPolicy: policy,
    callbackPool: env.SKEDULR_CALLBACK_POOL?.trim() || undefined,
    specRules: edge ? edgeSpecRules(edge.config) : undefined,
  });
  // Registered for its payload schema only: submits of http tasks are checked here the same
  // way a worker checks them; resident workers or the edge deliverer run them.
  scheduler.register("http", () => {
    throw new Error("http tasks run on resident workers or the edge deliverer");
  }, { payloadSchema: httpTaskPayloadSchema(policy) });
  const hosts = env.SKEDULR_ALLOWED_HOSTS?.trim();
  const app = createApp({
    scheduler,
    token: env.SKEDULR_TOKEN!.trim(),
    keys: parseApiKeys(env.SKEDULR_KEYS ?? "").keys,
    allowedHosts: hosts ? parseAllowedHosts(hosts).hosts : undefined,
    sessionSecret: env.SKEDULR_SESSION_SECRET?.trim() || undefined,
    version: VERSION,
    dashboard,
  });
  let response: Response;
  try {
    // Cloudflare sets CF-Connecting-IP itself: the client's address, not a claim of it.
    const remoteAddress = request.headers.get("cf-connecting-ip") ?? undefined;
    response = await app.fetch(request, { remoteAddress });
  } catch (error) {
    await transport.close();
    throw error;
  } finally {
    unwatch();
    edge?.done();
  }
  if (!response.body) {
    await transport.close();
    return response;
  }
  // A body may still be streaming from the store (GET /events, a task's wait): the
  // transport closes when it ends, or when the client goes away.
  const { readable, writable } = new TransformStream();
  response.body.pipeTo(writable).catch(() => {}).finally(() => transport.close());
  return new Response(readable, response);
}
