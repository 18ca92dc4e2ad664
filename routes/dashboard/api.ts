/**
 * @module dashboard/api — the read-only endpoints the dashboard needs beyond the public
 * API, under `/skedulr/api/dashboard/`: the 15-minute throughput series, a task's workflow
 * children and a task's attempts. They are mounted on the `/skedulr` app below `/api`, so
 * the API's own guard (token, no-store) applies to them exactly as to every other API route.
 */
import type { Hono } from "hono";
import {
  type AttemptRecord,
  NotFoundError,
  type Scheduler,
  type TaskRecord,
} from "../../src/mod.ts";
import { ApiError } from "../errors.ts";
import type { SkedulrEnv } from "../env.ts";
import { role } from "../roles.ts";

/** History is read in pages of this size (the API's largest). */
const PAGE = 1000;
/**
 * At most this many history pages per throughput request: bounded work per poll (and under
 * a Worker's subrequest limit), at the cost of a `truncated` series under extreme load.
 */
const MAX_HISTORY_PAGES = 20;
/** Children and attempts shown for one task (one page of the store's own index). */
const PER_TASK = 1000;

export interface ThroughputBucket {
  /** Start of the interval (epoch ms). */
  at: number;
  succeeded: number;
  /** Failed attempts: those that will retry and those that went dead. */
  failed: number;
}

export interface Throughput {
  from: number;
  to: number;
  bucketMs: number;
  buckets: ThroughputBucket[];
  /** True when the scan stopped at its page cap before reaching `from`. */
  truncated: boolean;
  /**
   * When history retention has already dropped attempts inside the window: the time of the
   * oldest attempt still kept (bars before it are missing, not zero). Null otherwise.
   */
  since: number | null;
}

function intParam(raw: string | undefined, name: string, min: number, max: number, dflt: number) {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!/^[0-9]{1,7}$/.test(raw) || n < min || n > max) {
    throw new ApiError(
      "invalid_request",
      `Invalid ${name} ${JSON.stringify(raw)}: expected a whole number ${min}..${max}`,
    );
  }
  return n;
}

/**
 * Succeeded and failed attempts per interval over the last `minutes`, read from history
 * newest first. Buckets are aligned to multiples of `bucketMs` so bars stay put between polls.
 */
export async function throughput(
  scheduler: Scheduler,
  now: number,
  minutes = 15,
  bucketSeconds = 30,
): Promise<Throughput> {
  const bucketMs = bucketSeconds * 1000;
  const count = Math.ceil((minutes * 60_000) / bucketMs);
  const last = Math.floor(now / bucketMs) * bucketMs;
  const from = last - (count - 1) * bucketMs;
  const buckets: ThroughputBucket[] = Array.from(
    { length: count },
    (_, i) => ({ at: from + i * bucketMs, succeeded: 0, failed: 0 }),
  );
  let cursor: string | undefined;
  let truncated = false;
  let ended = false;
  let seen = 0;
  let oldest: number | null = null;
  for (let page = 0;; page++) {
    if (page === MAX_HISTORY_PAGES) {
      truncated = true;
      break;
    }
    const { items, next } = await scheduler.history({
      status: ["succeeded", "retrying", "dead"],
      limit: PAGE,
      cursor,
    });
    let older = false;
    seen += items.length;
    for (const a of items) {
      oldest = oldest === null ? a.finishedAt : Math.min(oldest, a.finishedAt);
      if (a.finishedAt < from) {
        older = true;
        continue;
      }
      const b = buckets[Math.min(count - 1, Math.floor((a.finishedAt - from) / bucketMs))];
      if (a.status === "succeeded") b.succeeded++;
      else b.failed++;
    }
    // History is newest first, so a page reaching past `from` is the last one needed.
    ended = !next;
    if (older || !next) break;
    cursor = next;
  }
  // All of history lies inside the window: either the store is young, or retention dropped
  // the older attempts. The all-time totals tell which.
  let since: number | null = null;
  if (ended && oldest !== null && oldest > from) {
    const { totals } = await scheduler.stats();
    if (totals.succeeded + totals.failedAttempts > seen) since = oldest;
  }
  return { from, to: last + bucketMs, bucketMs, buckets, truncated, since };
}

export interface ChildRef {
  id: string;
  type: string;
  status: string;
  /** What the child waits for: `dependsOn`, `onSuccessOf` or `onFailureOf`. */
  via: "dependsOn" | "onSuccessOf" | "onFailureOf";
}

function childVia(t: TaskRecord, parent: string): ChildRef["via"] | null {
  if (t.dependsOn.includes(parent)) return "dependsOn";
  if (t.onSuccessOf === parent) return "onSuccessOf";
  if (t.onFailureOf === parent) return "onFailureOf";
  return null;
}

/**
 * The workflow children of `id` (the tasks that waited on it), oldest first, from the
 * store's child index: one page, `complete` false when the task has more.
 */
export async function children(
  scheduler: Scheduler,
  id: string,
): Promise<{ children: ChildRef[]; complete: boolean }> {
  const { items, next } = await scheduler.children(id, { limit: PER_TASK });
  const found: ChildRef[] = [];
  for (const t of items) {
    const via = childVia(t, id);
    if (via) found.push({ id: t.id, type: t.type, status: t.status, via });
  }
  return { children: found, complete: next === null };
}

/** The attempts of `id`, newest first: history read back to the task's creation only. */
export async function attempts(
  scheduler: Scheduler,
  id: string,
): Promise<{ attempts: AttemptRecord[]; complete: boolean }> {
  const { items, next } = await scheduler.history({ taskId: id, limit: PER_TASK });
  return { attempts: items, complete: next === null };
}

/** Registers the dashboard's endpoints on the `/skedulr` app (paths under `/api/dashboard`). */
export function dashboardApi(root: Hono<SkedulrEnv>, scheduler: Scheduler): void {
  root.get("/api/dashboard/throughput", role("read"), async (c) => {
    const minutes = intParam(c.req.query("minutes"), "minutes", 1, 60, 15);
    const bucket = intParam(c.req.query("bucket"), "bucket", 5, 600, 30);
    return c.json(await throughput(scheduler, scheduler.clock.now(), minutes, bucket));
  });

  root.get("/api/dashboard/tasks/:id/children", role("read"), async (c) => {
    const id = c.req.param("id");
    if (!(await scheduler.get(id))) throw new NotFoundError("Task", id);
    return c.json(await children(scheduler, id));
  });

  root.get("/api/dashboard/tasks/:id/attempts", role("read"), async (c) => {
    const id = c.req.param("id");
    if (!(await scheduler.get(id))) throw new NotFoundError("Task", id);
    return c.json(await attempts(scheduler, id));
  });
}
