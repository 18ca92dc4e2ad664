/**
 * @module new-task — a storage-level task (what Scheduler.submit hands to `Storage.enqueue`)
 * with every field at its default, for tests and benchmarks that drive a store directly.
 */
import type { NewTask } from "../../src/core/task.ts";

/** A task of type "t" in pool "default", no payload, created at `createdAt`; `extra` overrides. */
export function newTask(id: string, createdAt: number, extra: Partial<NewTask> = {}): NewTask {
  return {
    id,
    type: "t",
    pool: "default",
    priority: 0,
    payload: null,
    maxRetries: 0,
    runAt: null,
    key: null,
    timeoutMs: null,
    backoff: null,
    scheduleId: null,
    dependsOn: [],
    onSuccessOf: null,
    onFailureOf: null,
    createdAt,
    ...extra,
  };
}
