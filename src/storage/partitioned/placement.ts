/**
 * @module placement — which partition each task of a submit goes to, so that every
 * transition that must be atomic stays inside one partition's scripts.
 *
 * A task goes where what it is tied to lives:
 * - its workflow parents (a child waits in its parents' partition: their ending settles it
 *   in the same script); tasks of one batch linked as parent and child form one group;
 * - its keys: `key` (unique while unfinished), `dedupe.key`, `debounce.key` and
 *   `flowControl.key` each hash to a partition (src/core/partitions.ts), so every submit
 *   of one key meets the same state; and `partitionKey`, which only places (tasks to be
 *   tied later, e.g. the parents of a child submitted after them);
 * - otherwise a custom id hashes to a partition (where a schedule of that id would live, so
 *   the shared namespace stays checked atomically), and the rest of the batch follows the
 *   first task that is tied somewhere, or a partition taken in turn.
 * Ties that disagree (a flow key in partition 0, a parent in 2) are refused, naming the
 * field: the store cannot keep both atomic. A key's `{hash tag}` makes keys agree.
 * Tasks whose id the store makes get their partition's `~<k>` tail here.
 */
import { type FieldIssue, ValidationError } from "../../core/errors.ts";
import {
  hashPartition,
  homePartition,
  partitionOfId,
  withPartition,
} from "../../core/partitions.ts";
import type { NewTask } from "../../core/task.ts";

/** A tie of a task to a partition: why, and the field to name when it clashes. */
interface Tie {
  part: number;
  /** Index of the task in the submit, and the field that ties it. */
  index: number;
  path: string;
  why: string;
}

/** Where each task of a submit goes; `tasks[i]` with its final id. */
export interface Placement {
  parts: number[];
  tasks: NewTask[];
  /**
   * Parents named by a custom id that no partition holds, as the store words them: refused
   * before anything is stored, however many partitions the submit spans.
   */
  unknown: FieldIssue[];
}

/** Finds the partition of stored tasks that carry none in their id (null: unknown). */
export type Locate = (ids: string[]) => Promise<Map<string, number | null>>;

/**
 * Places `tasks` (parents before children, as the Scheduler orders a batch) over `n`
 * partitions. `locate` finds parents stored under custom ids; `next` gives the partition of
 * a batch tied to nothing (taken in turn, so batches spread).
 */
export async function place(
  tasks: readonly NewTask[],
  n: number,
  locate: Locate,
  next: () => number,
): Promise<Placement> {
  const index = new Map(tasks.map((t, i) => [t.id, i]));
  const group = unionFind(tasks.length);
  const stored = new Set<string>();
  tasks.forEach((t, i) => {
    for (const parent of parentRefs(t)) {
      const j = index.get(parent.id);
      if (j !== undefined) group.union(i, j);
      else if (partitionOfId(parent.id, n) === null) stored.add(parent.id);
    }
  });
  const located = stored.size ? await locate([...stored]) : new Map<string, number | null>();
  const ties = new Map<number, Tie[]>();
  const loose = new Map<number, number>();
  tasks.forEach((t, i) => {
    const root = group.find(i);
    const list = ties.get(root) ?? [];
    ties.set(root, list);
    list.push(...taskTies(t, i, n, index, located));
    if (!t.generatedId && !loose.has(root)) loose.set(root, homePartition(t.id, n));
  });
  const at = (i: number, path: string) => (tasks.length > 1 ? `[${i}].${path}` : path);
  const unknown: FieldIssue[] = [];
  tasks.forEach((t, i) => {
    for (const parent of parentRefs(t)) {
      if (located.get(parent.id) === null && !index.has(parent.id)) {
        unknown.push({ path: at(i, parent.path), message: `unknown task id "${parent.id}"` });
      }
    }
  });
  const chosen = new Map<number, number>();
  for (const [root, list] of ties) {
    const first = list[0];
    const clash = list.find((tie) => tie.part !== first?.part);
    if (first && clash) {
      throw new ValidationError([{
        path: at(clash.index, clash.path),
        message: `${clash.why}, but ${first.why}: a task and what it is tied to (workflow ` +
          "parents, key, dedupe, debounce, flow control and partition keys) must share a " +
          'partition; give the keys one {hash tag} (e.g. "{tenant-7}order-1"), and related ' +
          "tasks one partitionKey (docs/PARTITIONS.md)",
      }]);
    }
    if (first) chosen.set(root, first.part);
    else if (loose.has(root)) chosen.set(root, loose.get(root)!);
  }
  // Generated ids tied to nothing follow the batch: one partition keeps it all-or-none.
  const anchor = chosen.size ? [...chosen.values()][0] : next();
  const parts = tasks.map((_, i) => chosen.get(group.find(i)) ?? anchor);
  return {
    parts,
    tasks: tasks.map((t, i) => (t.generatedId ? { ...t, id: withPartition(t.id, parts[i]) } : t)),
    unknown,
  };
}

/** A task's workflow parents, each with the field that names it. */
export function parentRefs(t: NewTask): { id: string; path: string }[] {
  const out = t.dependsOn.map((id, i) => ({ id, path: `dependsOn[${i}]` }));
  if (t.onSuccessOf) out.push({ id: t.onSuccessOf, path: "onSuccessOf" });
  if (t.onFailureOf) out.push({ id: t.onFailureOf, path: "onFailureOf" });
  return out;
}

/** What ties task `i` to a partition by itself: stored parents and keys. */
function taskTies(
  t: NewTask,
  i: number,
  n: number,
  inBatch: ReadonlyMap<string, number>,
  located: ReadonlyMap<string, number | null>,
): Tie[] {
  const ties: Tie[] = [];
  for (const parent of parentRefs(t)) {
    if (inBatch.has(parent.id)) continue;
    // An unknown parent ties nothing: the partition's script refuses it, naming the field.
    const part = partitionOfId(parent.id, n) ?? located.get(parent.id) ?? null;
    if (part !== null) {
      ties.push({
        part,
        index: i,
        path: parent.path,
        why: `its parent "${parent.id}" is in partition ${part}`,
      });
    }
  }
  const keys: [string, string | null | undefined][] = [
    ["key", t.key],
    ["dedupe.key", t.dedupe?.key],
    ["debounce.key", t.debounce?.key],
    ["flowControl.key", t.flowControl?.key],
    ["partitionKey", t.partitionKey],
  ];
  for (const [path, key] of keys) {
    if (key === null || key === undefined) continue;
    const part = hashPartition(key, n);
    ties.push({ part, index: i, path, why: `${path} "${key}" hashes to partition ${part}` });
  }
  return ties;
}

/** Groups of indices joined by union (path halving). */
function unionFind(size: number) {
  const up = Array.from({ length: size }, (_, i) => i);
  const find = (i: number): number => {
    while (up[i] !== i) i = up[i] = up[up[i]];
    return i;
  };
  return {
    find,
    union(a: number, b: number) {
      up[find(a)] = find(b);
    },
  };
}

/**
 * A partition's error about its share of a submit, with the paths of the whole submit:
 * `[j].` (or none, for a share of one) becomes `[i].` of the submit (none for a submit of
 * one).
 */
export function submitIssues(
  error: ValidationError,
  indices: readonly number[],
  total: number,
): ValidationError {
  const issues = error.issues.map((issue) => {
    const m = /^\[(\d+)\]\.(.*)$/.exec(issue.path);
    const local = m ? Number(m[1]) : 0;
    const rest = m ? m[2] : issue.path;
    const i = indices[local] ?? indices[0];
    return { ...issue, path: total > 1 ? `[${i}].${rest}` : rest };
  });
  return new ValidationError(issues);
}
