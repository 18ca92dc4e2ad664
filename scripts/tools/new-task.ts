/**
 * @module new-task — a storage-level task (what Scheduler.submit hands to `Storage.enqueue`)
 * with every field at its default, for tests and benchmarks that drive a store directly.
 */
import assert from "node:assert/strict";
import type { NewTask, ScheduleRecord } from "../../src/core/task.ts";
import type { Lease, Storage } from "../../src/storage/storage.ts";

/** A task of type "t" in pool "default", no payload, created at `createdAt`; `extra` overrides. */
export function newTask(id: string, createdAt: number, extra: Partial<NewTask> = {}): NewTask {
  return {
    id,
    type: "t",
    pool: "default",
    priority: 0,
    payload: null,
    maxRetries: 0,
    maxStalls: 3,
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

/** The lease of a claimed task, as the worker that claimed it (`workerId`) presents it. */
export function leaseOf(task: { id: string; token: string }, workerId: string): Lease {
  return { id: task.id, workerId, token: task.token };
}

/**
 * A task's whole life through a store at `at`: submitted, claimed by worker "w", completed,
 * read back as succeeded; throws at the first step that goes otherwise.
 */
export async function roundTrip(s: Storage, id: string, at: number): Promise<void> {
  await s.enqueue({ tasks: [newTask(id, at)], now: at });
  const [claimed] = await s.claim({
    pool: "default",
    max: 1,
    owner: { workerId: "w", leaseMs: 30_000 },
    now: at,
  });
  assert.equal(claimed?.id, id);
  assert.equal(await s.complete({ lease: leaseOf(claimed, "w"), result: 1, now: at + 1 }), true);
  assert.equal((await s.get(id))?.status, "succeeded");
}

/**
 * A storage-level schedule (what `Storage.putSchedule` takes) of type "t" every `everyMs`,
 * anchored at `startAt`, first due then; `extra` overrides.
 */
export function newSchedule(
  id: string,
  everyMs: number,
  startAt: number,
  extra: Partial<ScheduleRecord> = {},
): ScheduleRecord {
  const { id: _i, runAt: _r, scheduleId: _s, createdAt: _c, key: _k, ...template } = newTask(
    id,
    startAt,
  );
  return {
    id,
    kind: "every",
    everyMs,
    cron: null,
    timezone: null,
    template,
    startAt,
    nextRunAt: startAt,
    lastRunId: null,
    lastRunAt: null,
    skipIfRunning: true,
    catchUp: "last",
    paused: false,
    lastFiredAt: null,
    createdAt: startAt,
    ...extra,
  };
}
