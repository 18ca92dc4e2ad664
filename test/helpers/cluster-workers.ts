/**
 * @module cluster-workers — several real `scripts/entry/worker.ts` processes on one throwaway
 * Redis under one key prefix, plus what a test needs to watch them from outside: a
 * client-only Scheduler on the same storage, a raw Redis connection, and the evidence the
 * handlers of test/e2e/fixtures/cluster-jobs.ts leave behind.
 */
import assert from "node:assert/strict";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { ClusterTransport, parseClusterNodes } from "../../src/adapters/redis-cluster.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { partitionedRedis, partitionTags } from "../../src/storage/redis/partitions.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";

export const CLUSTER_JOBS = "test/e2e/fixtures/cluster-jobs.ts";

/**
 * Where the workers' Redis is: a server's URL, or a Redis Cluster's nodes; either with the
 * deployment split into `partitions` (default 1).
 */
export type RedisTarget = string | {
  redisUrl?: string;
  clusterNodes?: string;
  partitions?: number;
};

export interface Cluster {
  prefix: string;
  /** The hash tags of the deployment's partitions (`default` alone for one). */
  tags: string[];
  /** Where the fixture handlers keep their evidence (`<key>:runs` and so on). */
  key: string;
  workers: WorkerProcess[];
  /** A client-only Scheduler (never started) on the cluster's storage. */
  client: Scheduler;
  /** A plain connection for reading evidence. */
  redis: RedisTransport;
  /** Starts `n` more worker processes (scripts/entry/worker.ts unless `script`) and waits for them. */
  spawn(n: number, env?: Record<string, string>, script?: string): Promise<WorkerProcess[]>;
  /** task id → executions, as counted by the fixture handlers. */
  runs(): Promise<Map<string, number>>;
  /** pid → executions in that process. */
  runsByPid(): Promise<Map<string, number>>;
  /** Stops every process (SIGKILL: the test is over) and closes the connections. */
  close(): Promise<void>;
}

/** Calls a worker's HTTP API and returns the status and parsed JSON body. */
export async function api(
  w: WorkerProcess,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const r = await fetch(`${w.url}/api${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

/** `kill -9`: no shutdown hook runs, leases are left to expire. */
export async function kill9(w: WorkerProcess): Promise<void> {
  await w.stop("SIGKILL");
}

/** A connection to the target (a cluster's, or one server's). */
export function connectTarget(target: RedisTarget): RedisTransport {
  const t = typeof target === "string" ? { redisUrl: target } : target;
  return t.clusterNodes
    ? new ClusterTransport(parseClusterNodes(t.clusterNodes).seeds)
    : connectRedisTcp(t.redisUrl!);
}

export async function startCluster(
  target: RedisTarget,
  name: string,
  env: Record<string, string> = {},
): Promise<Cluster> {
  const t = typeof target === "string" ? { redisUrl: target } : target;
  const partitions = t.partitions ?? 1;
  const prefix = uniquePrefix(name).replace(/^t:/, "e2e-");
  const key = `${prefix}:evidence`;
  const storage = partitionedRedis({ transport: connectTarget(t), prefix, partitions });
  await storage.init();
  const client = new Scheduler({ storage, pools: {}, logger: silentLogger });
  const redis = connectTarget(t);
  const where: Record<string, string> = t.clusterNodes
    ? { REDIS_CLUSTER_NODES: t.clusterNodes }
    : { REDIS_URL: t.redisUrl! };
  if (partitions > 1) where.SKEDULR_PARTITIONS = String(partitions);
  const workers: WorkerProcess[] = [];
  const hash = async (k: string) => {
    const flat = await redis.send(["HGETALL", k]) as string[];
    const out = new Map<string, number>();
    for (let i = 0; i + 1 < flat.length; i += 2) out.set(String(flat[i]), Number(flat[i + 1]));
    return out;
  };
  return {
    prefix,
    tags: partitionTags("default", partitions),
    key,
    workers,
    client,
    redis,
    async spawn(n, extra = {}, script = "scripts/entry/worker.ts") {
      const started = await Promise.all(
        Array.from({ length: n }, () =>
          startWorker({
            ...where,
            SKEDULR_PREFIX: prefix,
            SKEDULR_JOBS: CLUSTER_JOBS,
            E2E_KEY: key,
            ...env,
            ...extra,
          }, script)),
      );
      workers.push(...started);
      return await Promise.all(started.map((w) => ready(w, 20_000)));
    },
    runs: () => hash(`${key}:runs`),
    runsByPid: () => hash(`${key}:by-pid`),
    async close() {
      await Promise.all(workers.map((w) => w.stop("SIGKILL")));
      await storage.close();
      await redis.close();
    },
  };
}

/** Submits `specs` through the workers' HTTP APIs, 1000 per batch, round-robin. */
export async function submitOverHttp(
  workers: WorkerProcess[],
  specs: unknown[],
): Promise<string[]> {
  const batches: unknown[][] = [];
  for (let i = 0; i < specs.length; i += 1000) batches.push(specs.slice(i, i + 1000));
  const replies = await Promise.all(
    batches.map((batch, i) => api(workers[i % workers.length], "/tasks/batch", batch)),
  );
  return replies.flatMap((r) => {
    if (r.status !== 201) throw new Error(`batch submit failed: ${JSON.stringify(r.body)}`);
    return (r.body.tasks as { id: string }[]).map((t) => t.id);
  });
}

/** Runs `test` on three worker processes started with `env`, stopping them afterwards. */
export async function withThreeWorkers(
  redisUrl: string,
  name: string,
  env: Record<string, string>,
  test: (c: Cluster) => Promise<void>,
): Promise<void> {
  const c = await startCluster(redisUrl, name, env);
  try {
    await c.spawn(3);
    await test(c);
  } finally {
    await c.close();
  }
}

/**
 * Tasks that ever succeeded (`totals`): `counts` only covers retained rows, and finished
 * rows beyond the retention (10k by default) are dropped.
 */
export async function succeeded(c: Cluster): Promise<number> {
  const each = await Promise.all(
    c.tags.map((tag) => c.redis.send(["HGET", `${c.prefix}:{${tag}}:totals`, "succeeded"])),
  );
  return each.reduce((sum: number, n) => sum + Number(n ?? 0), 0);
}

/** Every task of `ids` ran, none twice (`runs`: task id → runs the handlers recorded). */
export function assertEachRanOnce(runs: Map<string, number>, ids: string[]): void {
  assert.equal(runs.size, ids.length, "every task ran");
  assert.deepEqual([...runs].filter(([, n]) => n !== 1), [], "no task ran twice");
}
