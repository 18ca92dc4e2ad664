/**
 * @module pool-waits — `waitingFor` for queued tasks held back by their pool rather than
 * their flow key: derived when records are read (the store keeps only the flow key's `wf`),
 * reading each pool's state once per call (per partition, on a partitioned store: a task
 * waits on its partition's share of its pool's limits).
 */
import type { TaskRecord, WaitingFor } from "../core/task.ts";
import type { Storage } from "../storage/storage.ts";
import type { PoolControl } from "../storage/types.ts";

/**
 * Fills `waitingFor` of the queued records that have none: `paused` (its pool or every
 * pool), `pool_limit` (running at its globalConcurrency) or `rate` (no start left in its
 * rate limit's window). Reads the controls once, then per pool of such a record at most
 * its running count and its starts: bounded by the distinct pools of the page.
 */
export async function withPoolWaits(
  storage: Storage,
  records: TaskRecord[],
  now: number,
): Promise<TaskRecord[]> {
  const open = records.filter((r) => r.status === "queued" && r.waitingFor === null);
  if (open.length === 0) return records;
  const partitioned = storage as Partial<Partitioned>;
  if ((storage.partitions ?? 1) > 1 && typeof partitioned.partitionOfRecord === "function") {
    return await perPartition(partitioned as Partitioned, records, now);
  }
  const controls = await storage.poolControls();
  const byPool = new Map(controls.map((c) => [c.pool, c]));
  const reasons = new Map<string, WaitingFor | null>();
  for (const pool of new Set(open.map((r) => r.pool))) {
    reasons.set(pool, await poolWait(storage, byPool.get(pool), byPool.get("*"), now));
  }
  return records.map((r) =>
    r.status === "queued" && r.waitingFor === null ? { ...r, waitingFor: reasons.get(r.pool)! } : r
  );
}

/** A partitioned store (src/storage/partitioned/): each partition holds its pools' state. */
interface Partitioned {
  partitionOfRecord(record: TaskRecord): Promise<Storage | null>;
}

/**
 * On a partitioned store a queued task waits on its own partition's share of its pool's
 * limits: the records are judged partition by partition.
 */
async function perPartition(
  storage: Partitioned,
  records: TaskRecord[],
  now: number,
): Promise<TaskRecord[]> {
  const byPart = new Map<Storage | null, number[]>();
  for (const [i, r] of records.entries()) {
    const part = await storage.partitionOfRecord(r);
    byPart.set(part, [...(byPart.get(part) ?? []), i]);
  }
  const out = [...records];
  for (const [part, at] of byPart) {
    if (!part) continue;
    const judged = await withPoolWaits(part, at.map((i) => records[i]), now);
    at.forEach((i, j) => (out[i] = judged[j]));
  }
  return out;
}

/** Why nothing of a pool starts now, or null when something may. */
async function poolWait(
  storage: Storage,
  control: PoolControl | undefined,
  all: PoolControl | undefined,
  now: number,
): Promise<WaitingFor | null> {
  if (all?.paused || control?.paused) return "paused";
  if (!control) return null;
  const { pool, globalConcurrency, rateLimit } = control;
  if (globalConcurrency !== null && (await storage.poolRunning(pool)) >= globalConcurrency) {
    return "pool_limit";
  }
  if (
    rateLimit && (await storage.poolStarts({ pool, perMs: rateLimit.perMs, now })) >= rateLimit.max
  ) {
    return "rate";
  }
  return null;
}
