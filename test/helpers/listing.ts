/**
 * @module listing — every task a store lists for a filter, page by page as a client pages
 * through them; a listing that does not end within 100 pages fails instead of looping.
 */
import type { TaskFilter } from "../../src/storage/types.ts";
import type { TaskRecord } from "../../src/core/task.ts";
import type { Storage } from "../../src/storage/storage.ts";

export async function listEvery(
  storage: Pick<Storage, "list">,
  filter: Omit<TaskFilter, "cursor"> = {},
): Promise<TaskRecord[]> {
  const out: TaskRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await storage.list({ ...filter, cursor });
    out.push(...page.items);
    if (!page.next) return out;
    cursor = page.next;
  }
  throw new Error("the listing did not end within 100 pages");
}
