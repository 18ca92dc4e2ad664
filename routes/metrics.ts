/**
 * @module metrics — `GET /skedulr/metrics` in the Prometheus text format (0.0.4) and
 * `GET /skedulr/healthz`.
 *
 * Durations come from the store's recent-sample window per type, so they are gauges
 * (quantile-labelled), not a Prometheus summary whose `_sum`/`_count` must only grow.
 * `/healthz` answers within 1 s whatever the store does: a load balancer's probe must not
 * hang on a stalled Redis.
 */
import type { Hono } from "hono";
import type { InstanceInfo, Scheduler, SchedulerStats } from "../src/mod.ts";
import { HEALTH_TIMEOUT_MS, pingProblem } from "./deadline.ts";
import type { SkedulrEnv } from "./env.ts";

/** The Content-Type Prometheus scrapers expect for the text format. */
export const PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labels(pairs: Record<string, string>): string {
  const body = Object.entries(pairs).map(([k, v]) => `${k}="${label(v)}"`).join(",");
  return body ? `{${body}}` : "";
}

class Exposition {
  readonly lines: string[] = [];
  family(
    name: string,
    type: "gauge" | "counter",
    help: string,
    samples: [Record<string, string>, number][],
  ): void {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [l, value] of samples) this.lines.push(`${name}${labels(l)} ${num(value)}`);
  }
}

function num(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(value);
}

/** Renders scheduler figures as Prometheus text. */
export function renderMetrics(stats: SchedulerStats, workers: InstanceInfo[]): string {
  const m = new Exposition();
  m.family(
    "skedulr_tasks",
    "gauge",
    "Tasks in the store by status.",
    Object.entries(stats.byStatus).map(([status, n]) => [{ status }, n]),
  );
  const pools = Object.entries(stats.pools);
  m.family(
    "skedulr_pool_size",
    "gauge",
    "Concurrency of each pool on each instance: its cluster-wide size when one is set, else the size the instance was configured with.",
    pools.map(([pool, p]) => [{ pool }, p.size]),
  );
  m.family(
    "skedulr_pool_running",
    "gauge",
    "Tasks running in each pool.",
    pools.map(([pool, p]) => [{ pool }, p.running]),
  );
  m.family(
    "skedulr_pool_queued",
    "gauge",
    "Tasks queued (ready) in each pool.",
    pools.map(([pool, p]) => [{ pool }, p.queued]),
  );
  m.family(
    "skedulr_pool_parked",
    "gauge",
    "Queued tasks in each pool held back by their flow key's limit (counted in queued too).",
    pools.map(([pool, p]) => [{ pool }, p.parked]),
  );
  // One gauge, no per-key series: flow keys are the submitters' and unbounded in number.
  m.family(
    "skedulr_flow_keys_busy",
    "gauge",
    "Flow keys with tasks running or parked, as GET /stats lists them (at most 50; no " +
      "per-key label: keys are unbounded in number).",
    [[{}, stats.flowKeys.length]],
  );
  const limited = pools.filter(([, p]) => p.globalConcurrency !== null);
  m.family(
    "skedulr_pool_global_concurrency",
    "gauge",
    "Cluster-wide limit on tasks running in each pool (pools with one only).",
    limited.map(([pool, p]) => [{ pool }, p.globalConcurrency!]),
  );
  const rated = pools.filter(([, p]) => p.rateLimit !== null);
  m.family(
    "skedulr_pool_rate_limit",
    "gauge",
    "Starts allowed per rate window in each pool, across the cluster (pools with one only).",
    rated.map(([pool, p]) => [{ pool }, p.rateLimit!.max]),
  );
  m.family(
    "skedulr_pool_rate_window_seconds",
    "gauge",
    "Length of each rate-limited pool's window.",
    rated.map(([pool, p]) => [{ pool }, p.rateLimit!.perMs / 1000]),
  );
  m.family(
    "skedulr_pool_rate_window_starts",
    "gauge",
    "Starts inside each rate-limited pool's current window, across the cluster.",
    rated.map(([pool, p]) => [{ pool }, p.startsInWindow]),
  );
  m.family(
    "skedulr_pool_paused",
    "gauge",
    "1 when the pool is paused.",
    pools.map(([pool, p]) => [{ pool }, p.paused ? 1 : 0]),
  );
  const t = stats.totals;
  m.family("skedulr_attempts_total", "counter", "Finished attempts (succeeded + failed).", [
    [{}, t.succeeded + t.failedAttempts],
  ]);
  m.family("skedulr_attempts_succeeded_total", "counter", "Attempts that succeeded.", [
    [{}, t.succeeded],
  ]);
  m.family("skedulr_attempts_failed_total", "counter", "Attempts that failed.", [
    [{}, t.failedAttempts],
  ]);
  m.family("skedulr_tasks_dead_total", "counter", "Tasks that went to the dead-letter list.", [
    [{}, t.dead],
  ]);
  m.family("skedulr_tasks_expired_total", "counter", "Tasks not started by their expiresAt.", [
    [{}, t.expired],
  ]);
  m.family(
    "skedulr_attempts_stalled_total",
    "counter",
    "Attempts lost with their worker (lease expired); put back without spending a retry.",
    [[{}, t.stalled]],
  );
  const durations = Object.entries(stats.durations);
  const quantiles: [Record<string, string>, number][] = [];
  for (const [type, d] of durations) {
    const q = (quantile: string, ms: number | undefined) => {
      if (ms !== undefined) quantiles.push([{ type, quantile }, ms / 1000]);
    };
    q("0", d.minMs);
    q("0.5", d.medianMs);
    q("0.95", d.p95Ms);
    q("0.99", d.p99Ms);
    q("1", d.maxMs);
  }
  m.family(
    "skedulr_task_duration_seconds",
    "gauge",
    "Attempt duration quantiles per task type over recent attempts (0 = min, 1 = max).",
    quantiles,
  );
  m.family(
    "skedulr_task_duration_mean_seconds",
    "gauge",
    "Mean attempt duration per task type over recent attempts.",
    durations.map(([type, d]) => [{ type }, d.meanMs / 1000]),
  );
  m.family(
    "skedulr_task_duration_samples",
    "gauge",
    "Recent attempts the duration figures are computed from.",
    durations.map(([type, d]) => [{ type }, d.count]),
  );
  m.family("skedulr_workers", "gauge", "Live worker instances.", [[{}, workers.length]]);
  return m.lines.join("\n") + "\n";
}

/** Registers `/metrics` and `/healthz` on the `/skedulr` app (auth is applied by the caller). */
export function observabilityRoutes(root: Hono<SkedulrEnv>, scheduler: Scheduler): void {
  root.get("/metrics", async (c) => {
    const [stats, workers] = await Promise.all([scheduler.stats(), scheduler.workers()]);
    return c.body(renderMetrics(stats, workers), 200, {
      "Content-Type": PROMETHEUS_TYPE,
      "Cache-Control": "no-store",
    });
  });

  root.get("/healthz", async (c) => {
    // `memory`, `redis` or `redis-rest`: a Redis store is named after what its transport speaks.
    const storage = scheduler.storage.name;
    const error = await pingProblem(scheduler.storage, HEALTH_TIMEOUT_MS);
    const headers = { "Cache-Control": "no-store" };
    if (error === null) return c.json({ ok: true, storage }, 200, headers);
    return c.json({ ok: false, storage, error }, 503, { ...headers, "Retry-After": "1" });
  });
}
