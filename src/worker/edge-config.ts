/**
 * @module edge-config — the edge deliverer's settings (`SKEDULR_EDGE_*`), read and bounded
 * by the limits of one Workers invocation; the submit rule of its pools (they run `http`
 * tasks only, and the callback tasks stores make, each within the edge's timeout); and which
 * writes must wake it.
 *
 *   SKEDULR_EDGE_POOLS        pools the edge delivers, `name[=slots]`, comma-separated; unset:
 *                             no deliverer. Slots are deliveries in flight at once in one
 *                             invocation; they add up to at most EDGE_CONNECTIONS; a bare name
 *                             gets an even share of DEFAULT_EDGE_SLOTS (at least 1).
 *   SKEDULR_EDGE_LEASE        lease of a delivery (default 60s): a killed invocation's tasks
 *                             come back through lease recovery after it
 *   SKEDULR_EDGE_TIMEOUT      longest one delivery may take (default 30s), below the lease
 *   SKEDULR_EDGE_SUBREQUESTS  subrequests one invocation may make, REST requests included
 *                             (default 50, the Workers Free plan's; Paid allows 10,000)
 *   SKEDULR_EDGE_RUN          wall time one invocation claims for (default 20s): bounds its
 *                             CPU time too; the rest continues in a fresh invocation
 */
import { DEFAULT_POOL } from "../core/task.ts";
import { NEVER } from "../core/catch-up.ts";
import type { FieldIssue } from "../core/errors.ts";
import { parseDuration } from "../core/duration.ts";
import { NAME_PATTERN, NAME_RULE } from "../core/ids.ts";
import type { TaskSpec } from "../core/task-schema.ts";
import type { StorageEvent } from "../storage/types.ts";

/** Workers' simultaneous outgoing connections per invocation (REST requests count too). */
export const EDGE_CONNECTIONS = 6;
/** Slots shared by the pools named without a size: one connection stays for REST. */
export const DEFAULT_EDGE_SLOTS = EDGE_CONNECTIONS - 1;
/** An alarm handler may run 15 minutes (wall time): a run and its last delivery fit in it. */
const MAX_INVOCATION_MS = 15 * 60_000;
/** Subrequests kept for the settles and the re-arm after claims stop. */
export const EDGE_RESERVE = EDGE_CONNECTIONS + 4;

/** The task types an edge pool runs: `http`, and the `callback` tasks stores create. */
export const EDGE_TYPES = ["http", "callback"] as const;

export interface EdgeConfig {
  /** Pool → deliveries in flight at once (a Map: pool names are the user's). */
  pools: Map<string, number>;
  leaseMs: number;
  timeoutMs: number;
  subrequests: number;
  runMs: number;
}

/** The settings, or null when SKEDULR_EDGE_POOLS is unset; `problems` names each bad one. */
export function parseEdgeConfig(env: object): { config: EdgeConfig | null; problems: string[] } {
  const problems: string[] = [];
  const get = (name: string) => {
    // A Worker's env also holds bindings: only text values are read.
    const value = (env as Record<string, unknown>)[name];
    return typeof value === "string" ? value.trim() || null : null;
  };
  const spec = get("SKEDULR_EDGE_POOLS");
  if (spec === null) return { config: null, problems };
  const pools = new Map<string, number>();
  const bare: string[] = [];
  for (const part of spec.split(",").map((p) => p.trim()).filter(Boolean)) {
    const m = /^([^=\s]+)(?:\s*=\s*(\d+))?$/.exec(part);
    const slots = m?.[2] === undefined ? null : Number(m[2]);
    if (!m || !NAME_PATTERN.test(m[1]) || slots === 0 || (slots ?? 0) > EDGE_CONNECTIONS) {
      problems.push(
        `SKEDULR_EDGE_POOLS: expected pool names, each with an optional =slots (1..${EDGE_CONNECTIONS}) ` +
          `like edge,callbacks or edge=4,callbacks=1 (${NAME_RULE}), got ${JSON.stringify(part)}`,
      );
      continue;
    }
    if (pools.has(m[1])) problems.push(`SKEDULR_EDGE_POOLS: pool ${m[1]} is named twice`);
    pools.set(m[1], slots ?? 0);
    if (slots === null) bare.push(m[1]);
  }
  for (const pool of bare) {
    pools.set(pool, Math.max(1, Math.floor(DEFAULT_EDGE_SLOTS / bare.length)));
  }
  const total = [...pools.values()].reduce((a, b) => a + b, 0);
  if (total > EDGE_CONNECTIONS) {
    problems.push(
      `SKEDULR_EDGE_POOLS: slots add up to ${total}; an invocation keeps at most ` +
        `${EDGE_CONNECTIONS} connections open at once (REST requests included)`,
    );
  }
  if (pools.size === 0 && problems.length === 0) problems.push("SKEDULR_EDGE_POOLS: names no pool");
  const duration = (name: string, fallback: number, min: number, max: number) => {
    const value = get(name);
    if (value === null) return fallback;
    const parsed = parseDuration(value);
    if ("ms" in parsed && parsed.ms >= min && parsed.ms <= max) return parsed.ms;
    problems.push(
      `${name}: expected a duration from ${min} ms to ${max} ms, got ${JSON.stringify(value)}`,
    );
    return fallback;
  };
  const leaseMs = duration("SKEDULR_EDGE_LEASE", 60_000, 1_000, 10 * 60_000);
  const timeoutMs = duration("SKEDULR_EDGE_TIMEOUT", 30_000, 100, 10 * 60_000);
  const runMs = duration("SKEDULR_EDGE_RUN", 20_000, 1_000, 10 * 60_000);
  if (timeoutMs >= leaseMs) {
    problems.push(
      `SKEDULR_EDGE_TIMEOUT (${timeoutMs} ms) must be below SKEDULR_EDGE_LEASE (${leaseMs} ms): ` +
        "a delivery must end while its lease holds",
    );
  }
  if (runMs + leaseMs > MAX_INVOCATION_MS) {
    problems.push(
      "SKEDULR_EDGE_RUN plus SKEDULR_EDGE_LEASE must fit in the 15 minutes an alarm may run",
    );
  }
  const requests = get("SKEDULR_EDGE_SUBREQUESTS");
  let subrequests = 50;
  if (requests !== null) {
    const n = Number(requests);
    if (/^\d+$/.test(requests) && n >= 2 * EDGE_RESERVE && n <= 1_000_000) subrequests = n;
    else {
      problems.push(
        `SKEDULR_EDGE_SUBREQUESTS: expected an integer ${2 * EDGE_RESERVE}..1000000, got ${
          JSON.stringify(requests)
        }`,
      );
    }
  }
  const config = { pools, leaseMs, timeoutMs, subrequests, runMs };
  return { config: problems.length ? null : config, problems };
}

/**
 * The submit rule of the edge's pools, for `SchedulerOptions.specRules`: a task (or a
 * schedule's runs) in one of them must be of type `http` (callback tasks are made by stores,
 * never submitted), and may not ask for a timeout the edge cannot give it.
 */
export function edgeSpecRules(config: EdgeConfig): (spec: TaskSpec, at: string) => FieldIssue[] {
  return (spec, at) => {
    const pool = spec.pool ?? DEFAULT_POOL;
    if (!config.pools.has(pool)) return [];
    if (spec.type !== "http") {
      return [{
        path: `${at}type`,
        message: `pool "${pool}" is delivered at the edge (SKEDULR_EDGE_POOLS), which runs ` +
          `only http tasks; got type ${JSON.stringify(spec.type)}`,
      }];
    }
    const issues: FieldIssue[] = [];
    const over = (path: string, value: unknown) => {
      const parsed = value === undefined ? null : parseDuration(value);
      if (parsed && "ms" in parsed && parsed.ms > config.timeoutMs) {
        issues.push({
          path: `${at}${path}`,
          message: `at most ${config.timeoutMs} ms in pool "${pool}": the edge ends a ` +
            "delivery then (SKEDULR_EDGE_TIMEOUT), below its lease",
        });
      }
    };
    over("timeout", spec.timeout);
    over("payload.timeout", (spec.payload as { timeout?: unknown } | undefined)?.timeout);
    return issues;
  };
}

/**
 * Watches one request's writes (the store's events of them) for work the edge deliverer must
 * wake for: `earliest()` is the earliest time among them, now for work queued in an edge
 * pool or a pool control changed, or null when there is none.
 */
export function wakeWatch(config: EdgeConfig, now: () => number) {
  let at = Infinity;
  const seen = (t: number) => (at = Math.min(at, t));
  return {
    listener(event: StorageEvent): void {
      if (event.kind === "ready" && config.pools.has(event.pool)) seen(now());
      else if (event.kind === "control") seen(now());
      else if (event.kind === "delayed") seen(event.runAt);
      else if (event.kind === "expiry") seen(event.at);
      else if (event.kind === "schedule" && event.nextRunAt < NEVER) seen(event.nextRunAt);
    },
    earliest: (): number | null => (Number.isFinite(at) ? at : null),
  };
}
