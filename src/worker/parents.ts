/**
 * @module parents — a workflow child's view of its parents' outcomes (`ctx.parents`): read
 * from the store once, when first read, bounded in count and in size.
 */
import { MAX_PARENT_RESULTS_BYTES, MAX_PARENTS_READ } from "../core/bounds.ts";
import { parentConditions, PRUNED_STATUS, type TaskRecord, type TaskStatus } from "../core/task.ts";

/** A parent's outcome as its child sees it. */
export interface ParentOutcome {
  /** Its status now; `pruned` when row retention removed it (its result is gone too). */
  status: TaskStatus | typeof PRUNED_STATUS;
  result: unknown;
  /** Its result was left out: the results read before it used up MAX_PARENT_RESULTS_BYTES. */
  truncated?: true;
}

/** Parent id → outcome. */
export type Parents = Record<string, ParentOutcome>;

/** The task's parents, dependsOn first, then onSuccessOf and onFailureOf, the first MAX_PARENTS_READ. */
export function parentIds(
  t: Pick<TaskRecord, "dependsOn" | "onSuccessOf" | "onFailureOf">,
): string[] {
  return [...parentConditions(t).keys()].slice(0, MAX_PARENTS_READ);
}

/** Reads the parents' records (in one round of reads) into outcomes within the size bound. */
export async function readParents(
  t: Pick<TaskRecord, "dependsOn" | "onSuccessOf" | "onFailureOf">,
  read: (id: string) => Promise<TaskRecord | null>,
): Promise<Parents> {
  const ids = parentIds(t);
  const records = await Promise.all(ids.map(read));
  let budget = MAX_PARENT_RESULTS_BYTES;
  const out: Parents = {};
  ids.forEach((id, i) => {
    const r = records[i];
    if (!r) {
      out[id] = { status: PRUNED_STATUS, result: null };
      return;
    }
    const size = r.result === null ? 0 : JSON.stringify(r.result).length;
    if (size > budget) {
      out[id] = { status: r.status, result: null, truncated: true };
      return;
    }
    budget -= size;
    out[id] = { status: r.status, result: r.result };
  });
  return out;
}
