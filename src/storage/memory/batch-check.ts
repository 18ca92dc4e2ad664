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
  store: {
    exists(id: string): boolean;
    isSchedule(id: string): boolean;
    keyHolder(key: string): string | undefined;
  },
  skip: ReadonlySet<number> = new Set(),
): void {
  const { exists, isSchedule, keyHolder } = store;
  const batchIds = new Set<string>();
  const keys = new Set<string>();
  const issues: FieldIssue[] = [];
  tasks.forEach((task, i) => {
    if (skip.has(i)) return;
    const at = tasks.length > 1 ? `[${i}].` : "";
    if (exists(task.id) || batchIds.has(task.id)) {
      throw new ConflictError(`Task id "${task.id}" is already in use`);
    }
    if (isSchedule(task.id)) {
      throw new ConflictError(`Id "${task.id}" is already in use by a schedule`);
    }
    if (task.key) {
      const active = keyHolder(task.key);
      if (active || keys.has(task.key)) {
        throw new ConflictError(
          `Key "${task.key}" is held by unfinished task "${active ?? "earlier in this batch"}"`,
          active,
        );
      }
      keys.add(task.key);
    }
    const check = (parent: string, path: string) => {
      if (!exists(parent) && !batchIds.has(parent)) {
        issues.push({ path: `${at}${path}`, message: `unknown task id "${parent}"` });
      }
    };
    task.dependsOn.forEach((p, j) => check(p, `dependsOn[${j}]`));
    if (task.onSuccessOf) check(task.onSuccessOf, "onSuccessOf");
    if (task.onFailureOf) check(task.onFailureOf, "onFailureOf");
    batchIds.add(task.id);
  });
  if (issues.length) throw new ValidationError(issues);
}
