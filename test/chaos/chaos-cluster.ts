/**
 * @module chaos-cluster — one chaos test's world: its own AOF Redis (test/helpers/chaos-redis.ts),
 * real `bun scripts/entry/worker.ts` processes started as users start them, an evidence directory
 * the handlers of fixtures/chaos-jobs.ts write to, and HTTP calls that record how long they
 * took and how they ended (an outage test needs the dropped connections too).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChaosRedis,
  type ChaosRedisOptions,
  startChaosRedis,
} from "../helpers/chaos-redis.ts";
import { readRuns, type Run, type TaskState, waitUntilFinal } from "../helpers/chaos-evidence.ts";
import { submitOverHttp } from "../helpers/cluster-workers.ts";
import { uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";

export const CHAOS_JOBS = "test/chaos/fixtures/chaos-jobs.ts";

export interface ChaosOptions extends ChaosRedisOptions {
  /** SKEDULR_LEASE_MS of every worker: short, so lost leases come back fast. */
  leaseMs?: number;
}

export interface Chaos {
  redis: ChaosRedis;
  prefix: string;
  /** CHAOS_DIR: where the handlers log their runs. */
  dir: string;
  leaseMs: number;
  workers: WorkerProcess[];
  /** Starts `n` worker processes and waits until their APIs answer. */
  spawn(n: number, env?: Record<string, string>): Promise<WorkerProcess[]>;
  /** Submits through the live workers' `POST /tasks/batch`, 1000 per batch. */
  submit(specs: unknown[], via?: WorkerProcess[]): Promise<string[]>;
  /** task id → handler runs, from the logs. */
  runs(): Map<string, Run[]>;
  /** How many `kind` lines the handlers logged so far (cheap progress, no Redis needed). */
  logged(kind: "start" | "end" | "abort"): number;
  /** The store's records once every task is final, or at `timeoutMs` (never throws). */
  untilFinal(ids: string[], timeoutMs: number): Promise<Map<string, TaskState>>;
}

/** Runs `test` in a fresh chaos world and tears it down (workers SIGKILLed) after. */
export async function withChaos(
  name: string,
  options: ChaosOptions,
  test: (c: Chaos) => Promise<void>,
): Promise<void> {
  const redis = await startChaosRedis(options);
  const dir = mkdtempSync(join(tmpdir(), "skedulr-chaos-log-"));
  const prefix = uniquePrefix(name).replace(/^t:/, "chaos-");
  const leaseMs = options.leaseMs ?? 3_000;
  const workers: WorkerProcess[] = [];
  const live = () => workers.filter((w) => w.child.exitCode === null && !w.child.signalCode);
  const c: Chaos = {
    redis,
    prefix,
    dir,
    leaseMs,
    workers,
    async spawn(n, env = {}) {
      const started = await Promise.all(Array.from({ length: n }, () =>
        startWorker({
          REDIS_URL: redis.url,
          SKEDULR_PREFIX: prefix,
          SKEDULR_JOBS: CHAOS_JOBS,
          CHAOS_DIR: dir,
          SKEDULR_LEASE_MS: String(leaseMs),
          ...env,
        })));
      workers.push(...started);
      return await Promise.all(started.map((w) => ready(w, 20_000)));
    },
    submit: (specs, via) => submitOverHttp(via ?? live(), specs),
    runs: () => readRuns(dir),
    logged(kind) {
      let n = 0;
      for (const f of readdirSync(dir)) {
        for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
          if (line.startsWith(`${kind} `)) n++;
        }
      }
      return n;
    },
    untilFinal: (ids, timeoutMs) => redis.query((r) => waitUntilFinal(r, prefix, ids, timeoutMs)),
  };
  try {
    await test(c);
  } catch (error) {
    // The workers' own words are the first thing to read when a fault test fails.
    for (const w of workers) {
      console.error(`--- worker ${w.child.pid} output (tail):\n${w.output().slice(-1500)}`);
    }
    throw error;
  } finally {
    await Promise.all(workers.map((w) => w.stop("SIGKILL")));
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Polls `check` every `everyMs` until it is truthy; throws after `timeoutMs`. */
export function until<T>(
  check: () => T | Promise<T>,
  message: string,
  timeoutMs: number,
  everyMs = 100,
): Promise<NonNullable<T>> {
  let first = true;
  return eventually(
    async () => {
      if (!first) await new Promise((r) => setTimeout(r, everyMs)); // a poll interval, not a wait
      first = false;
      return await check();
    },
    message,
    timeoutMs,
  );
}

/** How one HTTP call ended: its status and body, or the error that dropped it. */
export interface Call {
  label: string;
  ms: number;
  status: number | null;
  retryAfter: string | null;
  body: any;
  /** Set when no HTTP response came (connection closed, client timeout). */
  dropped: string | null;
}

/** One HTTP call to a worker, timed; never throws (a dropped connection is a result). */
export async function call(
  w: WorkerProcess,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  timeoutMs = 20_000,
): Promise<Call> {
  const label = `${method} ${path}`;
  const t0 = performance.now();
  try {
    const r = await fetch(`${w.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch { /* kept as text */ }
    return {
      label,
      ms: Math.round(performance.now() - t0),
      status: r.status,
      retryAfter: r.headers.get("retry-after"),
      body: parsed,
      dropped: null,
    };
  } catch (error) {
    return {
      label,
      ms: Math.round(performance.now() - t0),
      status: null,
      retryAfter: null,
      body: null,
      dropped: (error as Error).name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms, the client gave up`
        : (error as Error).message ?? String(error),
    };
  }
}

/** A compact description of calls for assertion messages. */
export function describeCalls(calls: Call[]): string {
  return calls.map((x) =>
    `${x.label} → ${x.dropped ? `dropped (${x.dropped})` : x.status} in ${x.ms} ms` +
    (x.body?.error ? ` ${JSON.stringify(x.body.error).slice(0, 160)}` : "")
  ).join("\n");
}
