/**
 * @module boot — shared start-up of `scripts/entry/worker.ts` and `scripts/entry/serve.ts`: configuration
 * from the environment, storage, the scheduler with job handlers, the HTTP app and server,
 * the banner, the console (console-report.ts) and graceful shutdown on SIGINT/SIGTERM.
 *
 * The HTTP server starts before storage is reached: an unreachable Redis is retried with
 * back-off (start-up.ts), one line per attempt, while `/skedulr/healthz` answers 503.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  callbackTaskHandler,
  ConfigError,
  type Handler,
  httpTaskHandler,
  httpTaskPayloadSchema,
  MemoryStorage,
  newId,
  outboundPolicy,
  parseWorkerConfig,
  type PoolOptions,
  Scheduler,
  type Storage,
  type WorkerConfig,
  workerPools,
} from "../../src/mod.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { ClusterTransport, parseClusterNodes } from "../../src/adapters/redis-cluster.ts";
import { partitionedRedis } from "../../src/storage/redis/partitions.ts";
import { PartitionedStorage } from "../../src/storage/partitioned/partitioned-storage.ts";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import {
  exit,
  hostName,
  onShutdownSignal,
  processId,
  runtimeClock,
} from "../../src/adapters/runtime.ts";
import { serve } from "../../src/adapters/serve.ts";
import { pinnedFetch } from "../../src/adapters/pinned-http.ts";
import { createApp } from "../../routes/app.ts";
import { configureErrorStacks } from "../../src/core/stack-paths.ts";
import { dashboard } from "../../routes/dashboard.ts";
import process from "node:process";
import { type ConsoleLog, consoleLog, type LogLevel } from "../../src/worker/console-log.ts";
import { reportAttempts, reportStatus } from "./console-report.ts";
import { connectWithRetry, healthzUntilStarted, listenOrExit, storageTarget } from "./start-up.ts";
import { VERSION } from "../../src/version.ts";

export { VERSION };

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
  const parts = config.partitions > 1 ? `, ${config.partitions} partitions` : "";
  if (config.clusterNodes) {
    const { seeds, ...auth } = parseClusterNodes(config.clusterNodes);
    return {
      storage: partitionedRedis({
        transport: new ClusterTransport(seeds, auth),
        prefix: config.prefix,
        taskEvents: config.taskEvents,
        partitions: config.partitions,
      }),
      description: `redis cluster ${seeds.map((s) => `${s.host}:${s.port}`).join(",")} ` +
        `(prefix ${config.prefix}${parts})`,
    };
  }
  if (config.redisUrl) {
    const safe = config.redisUrl.replace(/\/\/[^@]*@/, "//***@");
    return {
      storage: partitionedRedis({
        transport: connectRedisTcp(config.redisUrl),
        prefix: config.prefix,
        taskEvents: config.taskEvents,
        partitions: config.partitions,
      }),
      description: `redis ${safe} (prefix ${config.prefix}${parts})`,
    };
  }
  if (config.rest) {
    // Over REST the worker learns of new work from the SSE stream; claims of a drained pool
    // are skipped until an event arrives or the 10 s backstop passes (rest-storage.ts).
    return {
      storage: new RestRedisStorage({
        transport: new RestTransport(config.rest),
        prefix: config.prefix,
        taskEvents: config.taskEvents,
      }),
      description: `redis over REST ${config.rest.url} (prefix ${config.prefix})`,
    };
  }
  return {
    storage: new MemoryStorage({ taskEvents: config.taskEvents }),
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

/**
 * SKEDULR_POOLS (and the callback pool) as the Scheduler's `pools`: a size, or a size with
 * cluster-wide limits.
 */
function poolOptions(config: WorkerConfig): Record<string, number | PoolOptions> {
  const limits = new Map(Object.entries(config.poolLimits));
  return Object.fromEntries(
    Object.entries(workerPools(config)).map(([pool, size]) => {
      const l = limits.get(pool);
      return [pool, l ? { concurrency: size, ...l } : size];
    }),
  );
}

/** Starts a node: `runWorkers` true for `worker` (pools + wheel), false for `serve` (API only). */
export async function boot(runWorkers: boolean): Promise<Booted> {
  const config = loadConfig();
  const log = consoleLog({ level: config.logLevel, format: config.logFormat });
  // The banner and lifecycle lines print at any level; JSON makes each one object.
  const say = (text: string, level: LogLevel = "info") => log.notice(level, text);
  // Task error stacks name files relative to here (the core cannot read the cwd), or none.
  configureErrorStacks({ keep: config.errorStacks, root: process.cwd() });
  const { storage, description } = createStorage(config);
  // One policy for the submit checks (http payloads, callback URLs) and the worker; the
  // pinned client checks resolved names.
  const policy = outboundPolicy(config.httpAllow);
  const scheduler = new Scheduler({
    storage,
    pools: runWorkers ? poolOptions(config) : {},
    clock: runtimeClock,
    logger: log,
    host: hostName(),
    pid: processId(),
    ...(config.leaseMs ? { leaseMs: config.leaseMs } : {}),
    minIntervalMs: config.minIntervalMs,
    strictTypes: config.strictTypes,
    history: config.history,
    exactDue: config.exactDue,
    callbackPool: config.callbackPool,
    outboundPolicy: policy,
  });
  const sending = { signingKey: config.signingKey, policy, fetcher: pinnedFetch };
  scheduler.register("http", httpTaskHandler(sending), {
    payloadSchema: httpTaskPayloadSchema(policy),
  });
  // Callbacks are http requests too: the same key, policy and pinned client.
  scheduler.register("callback", callbackTaskHandler(sending));
  for (const [type, handler] of Object.entries(await loadJobs(config))) {
    scheduler.register(type, handler);
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
  const gate = healthzUntilStarted(app.fetch, storage.name);
  const server = await listenOrExit(
    () => serve(gate.fetch, { port: config.port, hostname, requestTimeoutMs: config.apiTimeoutMs }),
    hostname,
    config.port,
    log,
  );
  const url = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${server.port}/skedulr`;

  say(`skedulr ${VERSION} ${runWorkers ? "worker" : "api"} ${scheduler.workerId}`);
  say(`  storage:   ${description}`);
  if (runWorkers) {
    const pools = Object.entries(workerPools(config)).map(([n, s]) => `${n}=${s}`).join(", ");
    say(`  pools:     ${pools} (callbacks run in ${config.callbackPool})`);
    say(`  jobs:      ${scheduler.types.join(", ")}`);
  }
  say(`  api:       ${url}/api  (dashboard ${url})`);
  say(
    `  http:      tasks may call public addresses${
      policy.allow.length ? ` and ${policy.allow.join(", ")} (SKEDULR_HTTP_ALLOW)` : " only"
    }`,
  );
  say(
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
    say(
      "  sessions:  signed with a per-process secret (no SKEDULR_TOKEN): dashboard logins end " +
        "at restart and hold on this node only; set SKEDULR_SESSION_SECRET to share them",
      "warn",
    );
  }
  if (config.strictTypes) {
    say("  types:     strict: a submit of a type no live worker handles is refused (422)");
  }

  const quiet: (() => void)[] = [];
  const connecting = new AbortController();
  let stopping: Promise<void> | null = null;
  const stop = () =>
    stopping ??= (async () => {
      connecting.abort();
      for (const q of quiet) q();
      await server.stop();
      if (runWorkers) await scheduler.shutdown({ timeoutMs: config.shutdownTimeoutMs });
      await storage.close();
    })();
  onShutdownSignal(async (signal) => {
    say(`${signal}: draining (running handlers get up to ${config.shutdownTimeoutMs} ms)`);
    await stop();
    say("stopped");
    exit(0);
  });

  // Storage last: while it is unreachable the API answers (503) and each retry says so.
  try {
    const connect = runWorkers ? () => scheduler.start() : () => storage.init();
    if (!(await connectWithRetry(connect, storageTarget(config), log, connecting.signal))) {
      return { scheduler, url, stop };
    }
  } catch (error) {
    log.notice("error", `skedulr: storage: ${(error as Error).message}`, { event: "storage" });
    exit(1);
  }
  // A partitioned store's partition 0 reads the setting (of every master, on a cluster).
  const redis = storage instanceof PartitionedStorage ? storage.partition(0) : storage;
  const volatile = redis instanceof RedisStorage ? await persistenceWarning(redis) : null;
  if (volatile) say(`  WARNING:   ${volatile}`, "warn");
  gate.open();
  if (runWorkers) {
    quiet.push(reportAttempts(scheduler, log));
    if (config.demo && scheduler.types.includes("send_email")) await runDemo(scheduler, log);
    quiet.push(reportStatus(scheduler, log, config.statusMs));
  }
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
 * 500 ms..10 s with jitter 0.2; one of them fails its first attempt to show a retry. The
 * console prints the failed attempt like any other; `demo:` lines are about these 3 tasks.
 */
async function runDemo(scheduler: Scheduler, log: ConsoleLog): Promise<void> {
  log.notice(
    "info",
    "demo: submitting 3 send_email tasks to pool critical (SKEDULR_DEMO=0 to skip)",
  );
  // Ids chosen up front: a task may finish before its submit returns.
  const ids = new Set([1, 2, 3].map(() => newId("demo-")));
  const order = [...ids];
  const off = scheduler.onResult((r) => {
    if (!ids.has(r.taskId) || r.status !== "succeeded") return;
    log.notice("info", `demo: succeeded ${r.taskId} attempt ${r.attempt} (${r.durationMs} ms)`);
    ids.delete(r.taskId);
    if (ids.size === 0) off();
  });
  for (
    const [to, flaky] of [["ada@example.com", true], ["grace@example.com", false], [
      "linus@example.com",
      false,
    ]] as const
  ) {
    await scheduler.submit({
      id: order.shift(),
      type: "send_email",
      payload: { to, subject: "Welcome", flaky },
      pool: "critical",
      priority: 10,
      maxRetries: 3,
      backoff: { type: "exponential", base: "500ms", max: "10s", jitter: 0.2 },
    });
  }
}
