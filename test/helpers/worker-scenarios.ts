/**
 * @module worker-scenarios — multi-process scenarios run alike on one Redis
 * (test/e2e/redis-cluster.test.ts) and on a Redis Cluster in partitions
 * (test/cluster/workers.cluster.ts): real worker processes, evidence from the handlers of
 * test/e2e/fixtures/cluster-jobs.ts, state read through the client (whatever the layout).
 */
import assert from "node:assert/strict";
import { eventually } from "../../scripts/tools/wait.ts";
import {
  api,
  assertEachRanOnce,
  type Cluster,
  kill9,
  submitOverHttp,
  succeeded,
} from "./cluster-workers.ts";

/** Waits until `n` tasks of the deployment succeeded (its `totals`). */
export function untilSucceeded(c: Cluster, n: number, timeoutMs: number): Promise<true> {
  return eventually(async () => (await succeeded(c)) >= n || null, `${n} succeeded`, timeoutMs);
}

/** Nothing queued or running any more. */
function quiet(c: Cluster): Promise<true> {
  return eventually(async () => {
    const s = (await c.client.stats()).byStatus;
    return s.queued + s.running === 0 || null;
  }, "quiet");
}

/** A cancel through process A stops the handler running on process B; no retry follows. */
export async function cancelAcrossProcesses(c: Cluster): Promise<void> {
  const ws = await c.spawn(3);
  const { body } = await api(ws[0], "/tasks", { type: "forever", maxRetries: 3 });
  const pid = await eventually(
    () => c.redis.send(["HGET", `${c.key}:started`, body.id]),
    "the task to start",
    10_000,
  );
  const b = ws.find((w) => String(w.child.pid) === String(pid))!;
  const a = ws.find((w) => w !== b)!;
  const r = await api(a, `/tasks/${body.id}/cancel`, {});
  assert.deepEqual(r, { status: 200, body: { id: body.id, status: "cancelled" } });
  const aborted = await eventually(
    () => c.redis.send(["HGET", `${c.key}:aborted`, body.id]),
    "the handler on B to see the abort",
    5_000,
  );
  assert.equal(aborted, `${b.child.pid} cancelled`);
  const t = await eventually(async () => {
    const got = await api(a, `/tasks/${body.id}`);
    return got.body.status === "cancelled" ? got.body : null;
  }, "cancelled");
  assert.equal(t.attempt, 1, "no retry after cancel");
}

/**
 * A 1-second cron over 3 processes fires each occurrence once, and keeps firing after the
 * process that created it is killed.
 */
export async function cronAcrossKill(c: Cluster): Promise<void> {
  const ws = await c.spawn(3);
  const { body } = await api(ws[0], "/tasks", { type: "count", cron: "* * * * * *" });
  assert.equal(body.status, "active");
  await untilSucceeded(c, 3, 10_000);
  // Kill the creator just after an occurrence finished, far from the next one.
  const base = await succeeded(c);
  await untilSucceeded(c, base + 1, 5_000);
  await kill9(ws[0]);
  const killedAt = Date.now();
  await untilSucceeded(c, base + 5, 15_000);
  const removed = await fetch(`${ws[1].url}/api/schedules/${body.id}`, { method: "DELETE" });
  assert.equal(removed.status, 200);
  await quiet(c);
  const runs = await c.runs();
  const tasks = (await c.client.list({ type: "count", limit: 1000 })).items;
  assertEachRanOnce(runs, tasks.map((t) => t.id));
  const at = tasks.map((t) => t.runAt!).sort((x, y) => x - y);
  assert.equal(new Set(at).size, at.length, "one run per occurrence");
  for (const x of at) assert.equal(x % 1000, 0, "occurrences are whole seconds");
  for (let i = 1; i < at.length; i++) {
    assert.equal(at[i] - at[i - 1], 1000, "no gap, no double");
  }
  assert.ok(at[at.length - 1] > killedAt + 3000, "kept firing after the kill");
  console.log(
    `  cron: ${at.length} consecutive seconds, ${
      tasks.filter((t) => t.runAt! > killedAt).length
    } after the kill`,
  );
}

/**
 * `n` tasks submitted over HTTP (to every process, or through the first only) run exactly
 * once each over 3 processes, every process some.
 */
export async function eachRunsOnce(c: Cluster, n: number, viaFirst = false): Promise<string[]> {
  const ws = await c.spawn(3, { SKEDULR_POOLS: "default=20" });
  const specs = Array.from({ length: n }, () => ({ type: "count" }));
  const ids = await submitOverHttp(viaFirst ? ws.slice(0, 1) : ws, specs);
  await untilSucceeded(c, ids.length, 60_000);
  assertEachRanOnce(await c.runs(), ids);
  const byPid = await c.runsByPid();
  assert.deepEqual([...byPid.keys()].sort(), ws.map((w) => String(w.child.pid)).sort());
  console.log(`  ${n} tasks: executions per process ${[...byPid.values()].join(" / ")}`);
  return ids;
}

/** `n` tasks due over 1.5 s from `firstDueMs` on run once each, none before it was due. */
export async function delayedRunOnce(c: Cluster, n: number, firstDueMs: number): Promise<void> {
  const ws = await c.spawn(3, { SKEDULR_POOLS: "default=20" });
  const t0 = Date.now();
  const specs = Array.from({ length: n }, (_, i) => ({
    type: "count",
    runAt: t0 + firstDueMs + (i % 1_500),
  }));
  const ids = await submitOverHttp(ws, specs);
  await untilSucceeded(c, ids.length, 60_000);
  assertEachRanOnce(await c.runs(), ids);
  // The handler's own start: a task's `startedAt` is the claimer's clock when it asked,
  // which may precede the promotion by another process that made it claimable.
  const starts = await c.redis.pipeline(ids.map((id) => ["HGET", `${c.key}:start-at`, id]));
  const tasks = await Promise.all(ids.map((id) => c.client.get(id)));
  const late = tasks.map((t, i) => {
    assert.equal(t!.attempt, 1);
    const lateness = Number(starts[i]) - t!.runAt!;
    assert.ok(lateness >= 0, `${t!.id} started ${-lateness} ms before it was due`);
    return lateness;
  }).sort((a, b) => a - b);
  console.log(
    `  ${n} delayed: lateness p50 ${late[late.length >> 1]} ms, max ${late[late.length - 1]} ms`,
  );
}

/**
 * One of 3 processes killed with SIGKILL mid-run: every one of `n` tasks still succeeds, the
 * killed process's running tasks as stalls (no retry spent), none dead.
 */
export async function killNineLosesNothing(c: Cluster, n: number): Promise<void> {
  const ws = await c.spawn(3, { SKEDULR_POOLS: "default=10", SKEDULR_LEASE_MS: "1000" });
  const ids = await submitOverHttp(
    ws,
    // Default settings: no retries. A lost worker is not a failure, so none is needed.
    Array.from({ length: n }, () => ({ type: "count", payload: { ms: 30 } })),
  );
  const victim = ws[0];
  const { body } = await api(ws[1], "/workers");
  const victimId = body.workers.find((w: { pid: number }) => w.pid === victim.child.pid).id;
  // Kill once a quarter is done and the victim is busy (its pool stays full while work is queued).
  await eventually(
    async () => {
      const byPid = await c.runsByPid();
      return (await succeeded(c)) >= n / 4 && (byPid.get(String(victim.child.pid)) ?? 0) > 0;
    },
    "a quarter done",
    30_000,
  );
  await kill9(victim);
  const orphans = (await c.client.list({ status: "running", limit: 1000 })).items
    .filter((t) => t.workerId === victimId);
  assert.ok(orphans.length > 0, "the killed process held running tasks");
  await untilSucceeded(c, n, 60_000);
  assert.equal((await c.client.stats()).byStatus.dead, 0);
  const runs = await c.runs();
  assert.equal(runs.size, n, "every task ran");
  for (const id of ids) assert.ok(runs.get(id)! >= 1);
  for (const id of orphans.map((o) => o.id)) {
    const t = (await c.client.get(id))!;
    assert.equal(t.status, "succeeded");
    assert.equal(t.attempt, 1, "the lost attempt spent no retry");
    assert.equal(t.stalls, 1, "it is counted as a stall");
  }
  const twice = [...runs.values()].filter((x) => x > 1).length;
  console.log(
    `  kill -9: ${orphans.length} tasks orphaned, all ${n} succeeded, ${twice} ran twice (at-least-once)`,
  );
}
