/**
 * @module config — the worker's configuration from environment variables, validated up
 * front: a bad value stops start-up with a message naming the variable and the problem.
 */
import { SkedulrError } from "../core/errors.ts";
import { NAME_PATTERN, NAME_RULE } from "../core/ids.ts";
import { DEFAULT_CALLBACK_POOL } from "../core/callback.ts";
import { DEFAULT_MIN_INTERVAL_MS } from "../core/bounds.ts";
import { MAX_DURATION_MS, parseDuration } from "../core/duration.ts";
import { MAX_TIMER_MS } from "../core/clock.ts";
import { outboundPolicy } from "../core/outbound-policy.ts";
import { parsePoolLimits, type PoolLimitsSpec } from "../core/pool-limits.ts";
import { type ClusterConfig, parseClusterConfig } from "./cluster-config.ts";
import {
  type ApiKeyEntry,
  LOOPBACK_HOSTS,
  parseAllowedHosts,
  parseApiKeys,
  parseProxyHeader,
} from "./access-config.ts";

/** Everything `scripts/entry/worker.ts` and `scripts/entry/serve.ts` read from the environment. */
export interface WorkerConfig extends ClusterConfig {
  /** `redis://` or `rediss://` URL; null means the embedded store. */
  redisUrl: string | null;
  /** Upstash-style REST endpoint and token (the edge transport). */
  rest: { url: string; token: string } | null;
  pools: Record<string, number>;
  /**
   * Cluster-wide limits per pool (SKEDULR_POOLS `name=size:global=n:rate=n/duration`),
   * stored at start where none is stored yet for the pool.
   */
  poolLimits: Record<
    string,
    { globalConcurrency?: number; rateLimit?: { max: number; per: number } }
  >;
  leaseMs: number | null;
  /** Module whose default export maps task type → handler; null when none. */
  jobsModule: string | null;
  port: number;
  /** Bearer token for the API and dashboard; null leaves them open on 127.0.0.1 only. */
  token: string | null;
  /** Named API keys with roles (SKEDULR_KEYS); with any, the API needs a credential too. */
  keys: ApiKeyEntry[];
  /** `Host` names served (SKEDULR_ALLOWED_HOSTS); null: any with a credential, else loopback. */
  allowedHosts: string[] | null;
  /** Header naming the client address behind a proxy (SKEDULR_TRUST_PROXY), lowercased. */
  trustProxy: string | null;
  /** Signs login sessions (SKEDULR_SESSION_SECRET); null: derived from the token, or random. */
  sessionSecret: string | null;
  signingKey: string | null;
  /** Hosts and CIDRs `http` tasks may call besides public addresses (SKEDULR_HTTP_ALLOW). */
  httpAllow: string[];
  /**
   * The pool callback tasks run in (SKEDULR_CALLBACK_POOL, default `callbacks`): stored with
   * each task's callback at submit, and run by every worker ({@link workerPools}).
   */
  callbackPool: string;
  /** Redis key prefix (one Skedulr deployment per prefix). */
  prefix: string;
  shutdownTimeoutMs: number;
  /** Deadline of an API request (SKEDULR_API_TIMEOUT): past it, 503 `storage`. */
  apiTimeoutMs: number;
  /** Least `every` and cron gap a submit may ask for (SKEDULR_MIN_INTERVAL). */
  minIntervalMs: number;
  /** Keep task error stacks, paths made relative (SKEDULR_ERROR_STACKS=1), or drop them. */
  errorStacks: boolean;
  logLevel: "debug" | "info" | "warn" | "error";
  /** Console lines as text for a terminal, or one JSON object per line (SKEDULR_LOG_FORMAT). */
  logFormat: "text" | "json";
  /** Refuse submits of a type no live worker handles, 422 (SKEDULR_STRICT_TYPES=1). */
  strictTypes: boolean;
  /** Record task events for `GET /events` (SKEDULR_TASK_EVENTS=off: none, deployment-wide). */
  taskEvents: boolean;
  /** Per task type, the share of succeeded attempts filed in history (SKEDULR_HISTORY). */
  history: Record<string, number>;
  /** Delayed work at its due ms (true), on a grid of n ms, or at the wheel's tick (false). */
  exactDue: boolean | number;
  /** Submit the example tasks at start (SKEDULR_DEMO; default: on the embedded store only). */
  demo: boolean;
  /** Interval of the status line (SKEDULR_STATUS_MS). */
  statusMs: number;
}

/** Slots a worker gives the callback pool when SKEDULR_POOLS does not size it. */
export const CALLBACK_POOL_SIZE = 2;

/**
 * The pools a worker runs: SKEDULR_POOLS, plus the callback pool with
 * {@link CALLBACK_POOL_SIZE} slots unless SKEDULR_POOLS sizes it (`callbacks=0` runs none).
 *
 * @example
 * workerPools(parseWorkerConfig({})); // { default: 10, critical: 4, callbacks: 2 }
 */
export function workerPools(config: Pick<WorkerConfig, "pools" | "callbackPool">) {
  const pools = new Map(Object.entries(config.pools));
  if (!pools.has(config.callbackPool)) pools.set(config.callbackPool, CALLBACK_POOL_SIZE);
  return Object.fromEntries(pools);
}

/** Thrown for bad configuration; `problems` names each variable. */
export class ConfigError extends SkedulrError {
  constructor(readonly problems: string[]) {
    super("invalid_request", `Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** Documented variables, for the README and the start-up banner. */
export const ENV_VARS: Record<string, string> = {
  REDIS_URL: "redis://[:password@]host:port[/db]; unset = the embedded store (one process)",
  REDIS_CLUSTER_NODES:
    "a Redis Cluster's nodes, host:port,host:port,… (instead of REDIS_URL; redis://:password@host:port for credentials)",
  SKEDULR_PARTITIONS:
    "partitions of the deployment, 1..64 (default 1); the same on every node (docs/PARTITIONS.md)",
  UPSTASH_REDIS_REST_URL: "Upstash-compatible REST endpoint (with UPSTASH_REDIS_REST_TOKEN)",
  UPSTASH_REDIS_REST_TOKEN: "bearer token for the REST endpoint",
  SKEDULR_POOLS:
    "pool sizes, e.g. default=10,critical=4,background=2 (default: default=10,critical=4); " +
    "cluster-wide limits after the size: emails=10:global=20:rate=100/1s (set where none is stored yet)",
  SKEDULR_DEMO:
    "1 submits the example tasks at start (default: 1 on the embedded store, 0 on Redis or REST)",
  SKEDULR_LEASE_MS: "lease of a running task in ms, 100 ms to 100 years (default 30000)",
  SKEDULR_JOBS:
    "module whose default export maps task type → handler (default ./jobs.ts if present)",
  PORT: "HTTP port for the API and dashboard (default 8080)",
  SKEDULR_TOKEN:
    "bearer token for /skedulr/api and the dashboard; unset = listen on 127.0.0.1 only",
  SKEDULR_KEYS: "named API keys as name:role:sha256hex,... (role read, submit or admin)",
  SKEDULR_ALLOWED_HOSTS:
    "Host names served, e.g. sked.example.com; without a credential only loopback names",
  SKEDULR_TRUST_PROXY:
    "header your proxy sets to the client address (e.g. x-forwarded-for); unset = the socket's",
  SKEDULR_SESSION_SECRET:
    "signs dashboard sessions (≥ 32 chars), the same on every API node; default: from the token",
  SKEDULR_SIGNING_KEY: "HMAC-SHA256 key for signing requests of the built-in http task type",
  SKEDULR_HTTP_ALLOW:
    "hosts, *.wildcards, addresses and CIDRs http tasks may call besides public addresses, e.g. 127.0.0.1,10.0.0.0/8",
  SKEDULR_CALLBACK_POOL:
    `the pool callback tasks run in (default callbacks); a worker runs it with ${CALLBACK_POOL_SIZE} slots unless SKEDULR_POOLS sizes it`,
  SKEDULR_PREFIX: "Redis key prefix (default skedulr)",
  SKEDULR_SHUTDOWN_TIMEOUT:
    "how long running handlers get on SIGTERM, up to 100 years (default 30s)",
  SKEDULR_LOG_LEVEL: "debug | info | warn | error (default info)",
  SKEDULR_LOG_FORMAT: "text (default) or json: one JSON object per line",
  SKEDULR_STATUS_MS:
    "how often the status line is considered; it prints only when a figure changed (default 10000)",
  SKEDULR_STRICT_TYPES:
    "1 refuses a submit of a type no live worker handles (422 unknown_type); default 0: stored with a warning",
  SKEDULR_TASK_EVENTS:
    "on (default) records task events for GET /events; off records none (deployment-wide: set it alike on every node)",
  SKEDULR_EXACT_DUE:
    "on (default) starts delayed work at its due millisecond; a grid like 5ms rounds due times up to it (fewer Redis calls in bursts); off waits for the wheel's 10 ms tick",
  SKEDULR_HISTORY:
    "per task type, the share of succeeded attempts kept in history, type=share,… from 0 to 1, like ping=0,emails=0.1 (default 1: all; durations and other attempts always kept)",
  SKEDULR_MIN_INTERVAL:
    "least every, and least gap between cron occurrences, a submit may ask for (default 1s; 0 = none)",
  SKEDULR_ERROR_STACKS:
    "1 keeps task error stacks with paths relative to the working directory, 0 drops them (default 1)",
  SKEDULR_API_TIMEOUT:
    "an API request the store has not answered by then gets 503 storage, 100ms to 4m (default 2s)",
};

/**
 * Reads and validates the configuration.
 *
 * @example
 * parseWorkerConfig({ SKEDULR_POOLS: "default=10,critical=4" }).pools; // { default: 10, critical: 4 }
 */
export function parseWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  const problems: string[] = [];
  const get = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : null;
  };

  const redisUrl = get("REDIS_URL");
  if (redisUrl) {
    let ok = false;
    try {
      const u = new URL(redisUrl);
      ok = (u.protocol === "redis:" || u.protocol === "rediss:") && u.hostname !== "";
    } catch { /* reported below */ }
    if (!ok) {
      problems.push(
        `REDIS_URL: expected redis://host:port or rediss://host:port, got ${
          JSON.stringify(redisUrl)
        }`,
      );
    }
  }

  const restUrl = get("UPSTASH_REDIS_REST_URL");
  const restToken = get("UPSTASH_REDIS_REST_TOKEN");
  if ((restUrl === null) !== (restToken === null)) {
    problems.push("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together");
  } else if (restUrl && !/^https?:\/\//.test(restUrl)) {
    problems.push(
      `UPSTASH_REDIS_REST_URL: expected an http(s) URL, got ${JSON.stringify(restUrl)}`,
    );
  }
  if (redisUrl && restUrl) {
    problems.push("REDIS_URL and UPSTASH_REDIS_REST_URL are both set; choose one");
  }
  const cluster = parseClusterConfig(get, problems, { redisUrl, restUrl });

  // A Map while reading: pool names are the user's, never keys of a plain object.
  const pools = new Map<string, number>();
  const poolLimits = new Map<string, WorkerConfig["poolLimits"][string]>();
  const poolSpec = get("SKEDULR_POOLS") ?? "default=10,critical=4";
  for (const part of poolSpec.split(",").map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^=\s]+)\s*=\s*(\d+)((?::[^:]*)*)$/.exec(part);
    if (!m || !NAME_PATTERN.test(m[1]) || Number(m[2]) > 10_000) {
      problems.push(
        `SKEDULR_POOLS: expected name=size pairs like default=10,critical=4 (size 0..10000), got ${
          JSON.stringify(part)
        }`,
      );
      continue;
    }
    pools.set(m[1], Number(m[2]));
    const limits = poolOptions(m[1], m[3].split(":").slice(1), problems);
    if (limits) poolLimits.set(m[1], limits);
  }
  if (pools.size === 0 && !problems.some((p) => p.startsWith("SKEDULR_POOLS"))) {
    problems.push("SKEDULR_POOLS: names no pool");
  }

  const leaseMs = positiveInt(
    "SKEDULR_LEASE_MS",
    get("SKEDULR_LEASE_MS"),
    100,
    problems,
    MAX_DURATION_MS,
  );
  const port = positiveInt("PORT", get("PORT"), 0, problems, 65_535) ?? 8080;
  // It drives a setInterval, which cannot wait past 2^31−1 ms: refused here.
  const statusMs =
    positiveInt("SKEDULR_STATUS_MS", get("SKEDULR_STATUS_MS"), 100, problems, MAX_TIMER_MS) ??
      10_000;
  const demo = get("SKEDULR_DEMO");
  if (demo !== null && demo !== "0" && demo !== "1") {
    problems.push(`SKEDULR_DEMO: expected 1 or 0, got ${JSON.stringify(demo)}`);
  }
  const shutdown = get("SKEDULR_SHUTDOWN_TIMEOUT");
  let shutdownTimeoutMs = 30_000;
  if (shutdown) {
    const parsed = parseDuration(shutdown);
    if ("error" in parsed) problems.push(`SKEDULR_SHUTDOWN_TIMEOUT: ${parsed.error}`);
    else shutdownTimeoutMs = parsed.ms;
  }
  const apiTimeout = get("SKEDULR_API_TIMEOUT");
  let apiTimeoutMs = 2_000;
  if (apiTimeout) {
    const parsed = parseDuration(apiTimeout);
    if ("error" in parsed) problems.push(`SKEDULR_API_TIMEOUT: ${parsed.error}`);
    // The server's idle timeout must stay above it, and Bun's stops at 255 s.
    else if (parsed.ms < 100 || parsed.ms > 240_000) {
      problems.push(`SKEDULR_API_TIMEOUT: expected 100ms to 4m, got ${JSON.stringify(apiTimeout)}`);
    } else apiTimeoutMs = parsed.ms;
  }
  const minInterval = get("SKEDULR_MIN_INTERVAL");
  let minIntervalMs = DEFAULT_MIN_INTERVAL_MS;
  if (minInterval) {
    const parsed = parseDuration(minInterval);
    if ("error" in parsed) problems.push(`SKEDULR_MIN_INTERVAL: ${parsed.error}`);
    else minIntervalMs = parsed.ms;
  }
  const errorStacks = get("SKEDULR_ERROR_STACKS") ?? "1";
  if (errorStacks !== "0" && errorStacks !== "1") {
    problems.push(`SKEDULR_ERROR_STACKS: expected 1 or 0, got ${JSON.stringify(errorStacks)}`);
  }
  const logLevel = (get("SKEDULR_LOG_LEVEL") ?? "info") as WorkerConfig["logLevel"];
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    problems.push(`SKEDULR_LOG_LEVEL: expected debug, info, warn or error, got "${logLevel}"`);
  }
  const logFormat = (get("SKEDULR_LOG_FORMAT") ?? "text") as WorkerConfig["logFormat"];
  if (logFormat !== "text" && logFormat !== "json") {
    problems.push(`SKEDULR_LOG_FORMAT: expected text or json, got ${JSON.stringify(logFormat)}`);
  }
  const strictTypes = get("SKEDULR_STRICT_TYPES") ?? "0";
  if (strictTypes !== "0" && strictTypes !== "1") {
    problems.push(`SKEDULR_STRICT_TYPES: expected 1 or 0, got ${JSON.stringify(strictTypes)}`);
  }
  const taskEvents = get("SKEDULR_TASK_EVENTS") ?? "on";
  if (taskEvents !== "on" && taskEvents !== "off") {
    problems.push(`SKEDULR_TASK_EVENTS: expected on or off, got ${JSON.stringify(taskEvents)}`);
  }
  const history = historyShares(get("SKEDULR_HISTORY") ?? "", problems);
  const exactDue = exactDueSetting(get("SKEDULR_EXACT_DUE") ?? "on", problems);
  const prefix = get("SKEDULR_PREFIX") ?? "skedulr";
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) {
    problems.push(`SKEDULR_PREFIX: letters, digits and _ . : - only (≤ 64), got "${prefix}"`);
  }
  const token = get("SKEDULR_TOKEN");
  if (token !== null && token.length < 16) {
    problems.push("SKEDULR_TOKEN: use at least 16 characters");
  }
  const keys = parseApiKeys(get("SKEDULR_KEYS") ?? "");
  problems.push(...keys.problems);
  const hostSpec = get("SKEDULR_ALLOWED_HOSTS");
  const hosts = hostSpec === null ? null : parseAllowedHosts(hostSpec);
  problems.push(...hosts?.problems ?? []);
  // Without a credential, a name other than loopback would let a rebinding page in.
  const outside = hosts?.hosts.filter((h) => !LOOPBACK_HOSTS.includes(h.replace(/:\d+$/, "")));
  if (token === null && !keys.keys.length && outside?.length) {
    problems.push(
      `SKEDULR_ALLOWED_HOSTS: ${outside.join(", ")} needs SKEDULR_TOKEN or SKEDULR_KEYS ` +
        "(without a credential only localhost, 127.0.0.1 and [::1] are served)",
    );
  }
  const proxy = get("SKEDULR_TRUST_PROXY");
  const trustProxy = proxy === null ? null : parseProxyHeader(proxy);
  if (proxy !== null && trustProxy === null) {
    problems.push(`SKEDULR_TRUST_PROXY: expected a header name, got ${JSON.stringify(proxy)}`);
  }
  const sessionSecret = get("SKEDULR_SESSION_SECRET");
  if (sessionSecret !== null && sessionSecret.length < 32) {
    problems.push("SKEDULR_SESSION_SECRET: use at least 32 characters");
  }
  const callbackPool = get("SKEDULR_CALLBACK_POOL") ?? DEFAULT_CALLBACK_POOL;
  if (!NAME_PATTERN.test(callbackPool)) {
    problems.push(`SKEDULR_CALLBACK_POOL: ${NAME_RULE}, got ${JSON.stringify(callbackPool)}`);
  }
  let httpAllow: string[] = [];
  try {
    httpAllow = [...outboundPolicy(get("SKEDULR_HTTP_ALLOW")).allow];
  } catch (error) {
    problems.push((error as Error).message);
  }

  if (problems.length) throw new ConfigError(problems);
  return {
    redisUrl,
    ...cluster,
    rest: restUrl && restToken ? { url: restUrl, token: restToken } : null,
    pools: Object.fromEntries(pools),
    poolLimits: Object.fromEntries(poolLimits),
    leaseMs,
    jobsModule: get("SKEDULR_JOBS"),
    port,
    token,
    keys: keys.keys,
    allowedHosts: hosts?.hosts ?? null,
    trustProxy,
    sessionSecret,
    signingKey: get("SKEDULR_SIGNING_KEY"),
    httpAllow,
    callbackPool,
    prefix,
    shutdownTimeoutMs,
    apiTimeoutMs,
    minIntervalMs,
    errorStacks: errorStacks === "1",
    taskEvents: taskEvents === "on",
    history: Object.fromEntries(history),
    exactDue,
    logLevel,
    logFormat,
    strictTypes: strictTypes === "1",
    demo: demo === null
      ? !redisUrl && !(restUrl && restToken) && !cluster.clusterNodes
      : demo === "1",
    statusMs,
  };
}

/** SKEDULR_EXACT_DUE: on, off, or a grid of 1ms to 10ms (the wheel's tick). */
function exactDueSetting(value: string, problems: string[]): boolean | number {
  if (value === "on" || value === "off") return value === "on";
  const parsed = parseDuration(value);
  if ("error" in parsed || !Number.isInteger(parsed.ms) || parsed.ms < 1 || parsed.ms > 10) {
    problems.push(
      `SKEDULR_EXACT_DUE: expected on, off or a grid from 1ms to 10ms, got ${
        JSON.stringify(value)
      }`,
    );
    return true;
  }
  return parsed.ms;
}

/** SKEDULR_HISTORY's `type=share` pairs (a Map: type names are the user's). */
function historyShares(spec: string, problems: string[]): Map<string, number> {
  const shares = new Map<string, number>();
  for (const part of spec.split(",").map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^=\s]{1,128})\s*=\s*(\d*\.?\d+)$/.exec(part);
    if (!m || !(Number(m[2]) <= 1)) {
      problems.push(
        `SKEDULR_HISTORY: expected type=share pairs like ping=0,emails=0.1 (share 0..1), got ${
          JSON.stringify(part)
        }`,
      );
      continue;
    }
    shares.set(m[1], Number(m[2]));
  }
  return shares;
}

/** A pool's `global=n` and `rate=n/duration` options of SKEDULR_POOLS, or null for none. */
function poolOptions(
  pool: string,
  options: string[],
  problems: string[],
): WorkerConfig["poolLimits"][string] | null {
  const spec: PoolLimitsSpec = {};
  for (const option of options) {
    const global = /^global=(\d+)$/.exec(option.trim());
    const rate = /^rate=(\d+)\/(.+)$/.exec(option.trim());
    if (global && spec.globalConcurrency === undefined) spec.globalConcurrency = Number(global[1]);
    else if (rate && spec.rateLimit === undefined) {
      spec.rateLimit = { max: Number(rate[1]), per: rate[2] };
    } else {
      problems.push(
        `SKEDULR_POOLS: pool ${pool}: expected options global=n and rate=n/duration after the ` +
          `size, like emails=10:global=20:rate=100/1s, got ${JSON.stringify(option)}`,
      );
      return null;
    }
  }
  if (options.length === 0) return null;
  const parsed = parsePoolLimits(spec);
  if ("issues" in parsed) {
    for (const issue of parsed.issues) {
      problems.push(`SKEDULR_POOLS: pool ${pool}: ${issue.path} ${issue.message}`);
    }
    return null;
  }
  const { globalConcurrency: g, rateLimit: r } = parsed.limits;
  return {
    ...(g ? { globalConcurrency: g } : {}),
    ...(r ? { rateLimit: { max: r.max, per: r.perMs } } : {}),
  };
}

function positiveInt(
  name: string,
  value: string | null,
  min: number,
  problems: string[],
  max = Number.MAX_SAFE_INTEGER,
): number | null {
  if (value === null) return null;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    problems.push(`${name}: expected an integer ${min}..${max}, got ${JSON.stringify(value)}`);
    return null;
  }
  return n;
}
