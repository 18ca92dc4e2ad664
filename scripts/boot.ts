/**
 * Shared start-up of `scripts/worker.ts` and `scripts/serve.ts`: configuration from the
 * environment, storage, the scheduler with job handlers, the HTTP app and server, the
 * banner, the status line and graceful shutdown on SIGINT/SIGTERM.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  ConfigError,
  consoleLogger,
  type Handler,
  httpTaskHandler,
  httpTaskPayloadSchema,
  MemoryStorage,
  outboundPolicy,
  parseWorkerConfig,
  Scheduler,
  type Storage,
  type WorkerConfig,
} from "../src/mod.ts";
import { RedisStorage } from "../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../src/adapters/redis-tcp.ts";
import { RestTransport } from "../src/storage/redis/rest-transport.ts";
import { RestRedisStorage } from "../src/storage/redis/rest-storage.ts";
import {
  env,
  exit,
  hostName,
  onShutdownSignal,
  processId,
  runtimeClock,
} from "../src/adapters/runtime.ts";
import { serve } from "../src/adapters/serve.ts";
import { pinnedFetch } from "../src/adapters/pinned-http.ts";
import { createApp } from "../routes/app.ts";
import { configureErrorStacks } from "../src/core/stack-paths.ts";
import { dashboard } from "../routes/dashboard.ts";
import process from "node:process";

export const VERSION = "0.1.0";

/** Reads the configuration or exits 2 with a message naming each bad variable. */
export function loadConfig(): WorkerConfig {
  try {
    return parseWorkerConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`skedulr: ${error.message}`);
      exit(2);
    }
    throw error;
  }
}

export function createStorage(config: WorkerConfig): { storage: Storage; description: string } {
  if (config.redisUrl) {
    const safe = config.redisUrl.replace(/\/\/[^@]*@/, "//***@");
    return {
      storage: new RedisStorage({
        transport: connectRedisTcp(config.redisUrl),
        prefix: config.prefix,
      }),
      description: `redis ${safe} (prefix ${config.prefix})`,
    };
  }
  if (config.rest) {
    // Over REST the worker learns of new work from the SSE stream; claims of a drained pool
    // are skipped until an event arrives or the 10 s backstop passes (rest-storage.ts).
    return {
      storage: new RestRedisStorage({
        transport: new RestTransport(config.rest),
        prefix: config.prefix,
      }),
      description: `redis over REST ${config.rest.url} (prefix ${config.prefix})`,
    };
  }
  return {
    storage: new MemoryStorage(),
    description:
      "embedded (in memory, this process only — set REDIS_URL to share work across processes)",
  };
}

/** Loads job handlers: SKEDULR_JOBS, else ./jobs.ts when it exists, else none. */
export async function loadJobs(config: WorkerConfig): Promise<Record<string, Handler>> {
  const path = config.jobsModule ?? (existsSync("jobs.ts") ? "./jobs.ts" : null);
  if (!path) return {};
  const file = resolve(path);
  if (!existsSync(file)) {
    console.error(
      `skedulr: SKEDULR_JOBS: module ${JSON.stringify(path)} not found (looked at ${file})`,
    );
    exit(2);
  }
  const mod = await import(pathToFileURL(file).href);
  const jobs = mod.default;
  if (
    !jobs || typeof jobs !== "object" || Object.values(jobs).some((h) => typeof h !== "function")
  ) {
    console.error(
      `skedulr: SKEDULR_JOBS: ${path} must default-export an object mapping task type → handler function`,
    );
    exit(2);
  }
  return jobs as Record<string, Handler>;
}

export interface Booted {
  scheduler: Scheduler;
  url: string;
  stop(): Promise<void>;
}

/** Starts a node: `runWorkers` true for `worker` (pools + wheel), false for `serve` (API only). */
export async function boot(runWorkers: boolean): Promise<Booted> {
  const config = loadConfig();
  // Task error stacks name files relative to here (the core cannot read the cwd), or none.
  configureErrorStacks({ keep: config.errorStacks, root: process.cwd() });
  const { storage, description } = createStorage(config);
  const scheduler = new Scheduler({
    storage,
    pools: runWorkers ? config.pools : {},
    clock: runtimeClock,
    logger: consoleLogger(config.logLevel),
    host: hostName(),
    pid: processId(),
    ...(config.leaseMs ? { leaseMs: config.leaseMs } : {}),
    minIntervalMs: config.minIntervalMs,
  });
  // One policy for the submit check and the worker; the pinned client checks resolved names.
  const policy = outboundPolicy(config.httpAllow);
  const http = httpTaskHandler({ signingKey: config.signingKey, policy, fetcher: pinnedFetch });
  scheduler.register("http", http, { payloadSchema: httpTaskPayloadSchema(policy) });
  for (const [type, handler] of Object.entries(await loadJobs(config))) {
    scheduler.register(type, handler);
  }
  try {
    if (runWorkers) await scheduler.start();
    else await storage.init();
  } catch (error) {
    console.error(`skedulr: storage: ${(error as Error).message}`);
    exit(1);
  }
  const app = createApp({
    scheduler,
    token: config.token ?? undefined,
    keys: config.keys,
    allowedHosts: config.allowedHosts ?? undefined,
    trustProxy: config.trustProxy ?? undefined,
    sessionSecret: config.sessionSecret ?? undefined,
    version: VERSION,
    dashboard,
    requestTimeoutMs: config.apiTimeoutMs,
  });
  const secured = config.token !== null || config.keys.length > 0;
  const hostname = secured ? "0.0.0.0" : "127.0.0.1";
  const server = await serve(app.fetch, {
    port: config.port,
    hostname,
    requestTimeoutMs: config.apiTimeoutMs,
  });
  const volatile = config.redisUrl && storage instanceof RedisStorage
    ? await persistenceWarning(storage)
    : null;
  const url = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${server.port}/skedulr`;

  console.log(`skedulr ${VERSION} ${runWorkers ? "worker" : "api"} ${scheduler.workerId}`);
  console.log(`  storage:   ${description}`);
  if (volatile) console.warn(`  WARNING:   ${volatile}`);
  if (runWorkers) {
    console.log(
      `  pools:     ${Object.entries(config.pools).map(([n, s]) => `${n}=${s}`).join(", ")}`,
    );
    console.log(`  jobs:      ${scheduler.types.join(", ")}`);
  }
  console.log(`  api:       ${url}/api  (dashboard ${url})`);
  console.log(
    `  http:      tasks may call public addresses${
      policy.allow.length ? ` and ${policy.allow.join(", ")} (SKEDULR_HTTP_ALLOW)` : " only"
    }`,
  );
  console.log(
    secured
      ? `  auth:      bearer credential required (${
        [
          config.token ? "SKEDULR_TOKEN" : "",
          config.keys.length ? `${config.keys.length} keys` : "",
        ]
          .filter(Boolean).join(" + ")
      }); logins limited per client address`
      : "  auth:      none — listening on 127.0.0.1 only; set SKEDULR_TOKEN to listen on all interfaces",
  );
  if (config.keys.length && !config.token && !config.sessionSecret) {
    console.warn(
      "  sessions:  signed with a per-process secret (no SKEDULR_TOKEN): dashboard logins end " +
        "at restart and hold on this node only; set SKEDULR_SESSION_SECRET to share them",
    );
  }

  const demo = env("SKEDULR_DEMO") ?? (config.redisUrl || config.rest ? "0" : "1");
  if (runWorkers && demo === "1" && scheduler.types.includes("send_email")) {
    await runDemo(scheduler);
  }
  const status = runWorkers ? statusLine(scheduler) : null;
  let stopping: Promise<void> | null = null;
  const stop = () =>
    stopping ??= (async () => {
      if (status) clearInterval(status);
      await server.stop();
      if (runWorkers) await scheduler.shutdown({ timeoutMs: config.shutdownTimeoutMs });
      await storage.close();
    })();
  onShutdownSignal(async (signal) => {
    console.log(`${signal}: draining (running handlers get up to ${config.shutdownTimeoutMs} ms)`);
    await stop();
    console.log("stopped");
    exit(0);
  });
  return { scheduler, url, stop };
}

/**
 * The warning for a Redis that keeps nothing across a restart (`appendonly no` and no
 * `save` rules), or null. Best effort: a refused CONFIG or an error says nothing.
 */
async function persistenceWarning(storage: RedisStorage): Promise<string | null> {
  const p = await storage.persistence().catch(() => null);
  if (!p || p.appendonly || p.save) return null;
  return "Redis has no persistence (appendonly no, no save rules): a Redis restart would " +
    "lose every task. Set appendonly yes (appendfsync everysec) in redis.conf.";
}

/**
 * The seed's example: `send_email` in pool `critical`, 3 retries, exponential back-off
 * 500 ms..10 s with jitter 0.2; one of them fails its first attempt to show a retry.
 */
async function runDemo(scheduler: Scheduler): Promise<void> {
  console.log("demo: submitting 3 send_email tasks to pool critical (SKEDULR_DEMO=0 to skip)");
  scheduler.onResult((r) => {
    if (r.type !== "send_email") return;
    const error = r.error ? ` — ${r.error.message}` : "";
    console.log(`demo: ${r.status} ${r.taskId} attempt ${r.attempt} (${r.durationMs} ms)${error}`);
  });
  for (
    const [to, flaky] of [["ada@example.com", true], ["grace@example.com", false], [
      "linus@example.com",
      false,
    ]] as const
  ) {
    await scheduler.submit({
      type: "send_email",
      payload: { to, subject: "Welcome", flaky },
      pool: "critical",
      priority: 10,
      maxRetries: 3,
      backoff: { type: "exponential", base: "500ms", max: "10s", jitter: 0.2 },
    });
  }
}

/** Every 10 s (SKEDULR_STATUS_MS): running, queued, done/s. */
function statusLine(scheduler: Scheduler): ReturnType<typeof setInterval> {
  const everyMs = Number(env("SKEDULR_STATUS_MS") ?? 10_000);
  let lastDone = 0;
  let lastAt = Date.now();
  const timer = setInterval(async () => {
    try {
      const stats = await scheduler.stats();
      const done = stats.totals.succeeded + stats.totals.dead;
      const now = Date.now();
      const rate = ((done - lastDone) * 1000) / Math.max(1, now - lastAt);
      lastDone = done;
      lastAt = now;
      const b = stats.byStatus;
      console.log(
        `status: running ${b.running}, queued ${b.queued}, scheduled ${
          b.scheduled + b.retrying
        }, ` +
          `done ${done} (${rate.toFixed(1)}/s), dead ${b.dead}`,
      );
    } catch (error) {
      console.error(`status: storage unreachable: ${(error as Error).message}`);
    }
  }, everyMs);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
