/**
 * @module batch-check — the checks a batch passes before anything of it is written, so a
 * rejected batch stores nothing: ids free, keys free, workflow parents known.
 */
import { ConflictError, type FieldIssue, ValidationError } from "../../core/errors.ts";
import type { NewTask } from "../../core/task.ts";

/**
 * Throws ConflictError for an id in use (by a task or a schedule) or a key held by an
 * unfinished task, and a ValidationError naming every unknown parent. Parents may be
 * earlier tasks of the batch.
 * Tasks at the indices in `skip` (dedupe hits: nothing of them is stored) are not checked.
 */
export function checkBatch(
  tasks: NewTask[],
  store: BatchStore,
  skip: ReadonlySet<number> = NO_SKIP,
): void {
  const { exists, isSchedule, keyHolder } = store;
  // Ids and keys of the batch so far: only a batch of several needs them.
  const several = tasks.length > 1;
  const batchIds = several ? new Set<string>() : null;
  const keys = several ? new Set<string>() : null;
  let issues: FieldIssue[] | null = null;
  const known = (id: string) => exists(id) || batchIds?.has(id) === true;
  for (let i = 0; i < tasks.length; i++) {
    if (skip.has(i)) continue;
    const task = tasks[i];
    if (known(task.id)) throw new ConflictError(`Task id "${task.id}" is already in use`);
    if (isSchedule(task.id)) {
      throw new ConflictError(`Id "${task.id}" is already in use by a schedule`);
    }
    if (task.key) {
      const active = keyHolder(task.key);
      if (active || keys?.has(task.key)) {
        throw new ConflictError(
          `Key "${task.key}" is held by unfinished task "${active ?? "earlier in this batch"}"`,
          active,
        );
      }
      keys?.add(task.key);
    }
    const at = several ? `[${i}].` : "";
    const deps = task.dependsOn;
    for (let j = 0; j < deps.length; j++) {
      if (!known(deps[j])) issues = unknown(issues, `${at}dependsOn[${j}]`, deps[j]);
    }
    const { onSuccessOf: s, onFailureOf: f } = task;
    if (s && !known(s)) issues = unknown(issues, `${at}onSuccessOf`, s);
    if (f && !known(f)) issues = unknown(issues, `${at}onFailureOf`, f);
    batchIds?.add(task.id);
  }
  if (issues) throw new ValidationError(issues);
}

function unknown(issues: FieldIssue[] | null, path: string, parent: string): FieldIssue[] {
  const list = issues ?? [];
  list.push({ path, message: `unknown task id "${parent}"` });
  return list;
}

/** What the check reads of the store. */
export interface BatchStore {
  exists(id: string): boolean;
  isSchedule(id: string): boolean;
  keyHolder(key: string): string | undefined;
}

const NO_SKIP: ReadonlySet<number> = new Set();
