/**
 * @module store-checks — what a submitting node reads from the store before it answers: a
 * retried submit's stored tasks (so the retry is safe) and whether a pool exists.
 */
import type { TaskSpec } from "../core/task-schema.ts";
import type { NewTask, TaskStatus } from "../core/task.ts";
import { sameSpec } from "../core/same-spec.ts";
import type { InstanceRegistry, QueryStore } from "../storage/storage.ts";

/**
 * The batch as an earlier try stored it (every spec with a custom id, every stored task the
 * same), or null when any spec is new or different. `tasks[i]` is null for a schedule.
 */
export async function storedBefore(
  storage: QueryStore,
  specs: TaskSpec[],
  tasks: (NewTask | null)[],
): Promise<{ id: string; kind: "task"; status: TaskStatus; existing: true }[] | null> {
  if (specs.some((spec, i) => spec.id === undefined || tasks[i] === null)) return null;
  const records = await Promise.all(tasks.map((task) => storage.get(task!.id)));
  const same = records.every((r, i) =>
    r !== null && sameSpec(r, tasks[i]!, specs[i].runAt !== undefined)
  );
  if (!same) return null;
  return records.map((r) => ({ id: r!.id, kind: "task", status: r!.status, existing: true }));
}

/**
 * Whether `pool` exists: configured on this instance (`local`) or on a live one (its
 * heartbeat lists it), or given a cluster-wide size earlier. Pools are created by
 * configuration only, so scaling a pool that does not exist is a 404, not a new pool on
 * every worker (any name, `constructor` or `1e309`, used to make one).
 */
export async function poolExists(
  storage: InstanceRegistry,
  local: ReadonlyMap<string, unknown>,
  pool: string,
  now: number,
): Promise<boolean> {
  if (local.has(pool)) return true;
  const [controls, instances] = await Promise.all([
    storage.poolControls(),
    storage.listInstances(now),
  ]);
  return controls.some((c) => c.pool === pool && c.size !== null) ||
    instances.some((i) => Object.hasOwn(i.pools, pool));
}
