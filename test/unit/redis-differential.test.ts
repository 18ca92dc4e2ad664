/**
 * Differential test: one random sequence of storage operations runs against the embedded
 * store (the reference semantics) and RedisStorage side by side; every result, error, each
 * step's published events, the task events and, periodically, the whole observable state
 * (records, listings, stats, history, delayed set, pool controls) must be identical.
 * Longer hunts, and how to find the step a disagreement starts at: test/helpers/differential.ts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MemoryStorage } from "../../src/storage/memory/memory-storage.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { SkedulrError, ValidationError } from "../../src/core/errors.ts";
import type {
  Callback,
  FinalStatus,
  NewTask,
  ScheduleRecord,
  TaskRecord,
} from "../../src/core/task.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import type {
  Enqueued,
  HistoryFilter,
  Lease,
  LogBatch,
  LogFilter,
  Storage,
} from "../../src/storage/storage.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { newSchedule, newTask } from "../../scripts/tools/new-task.ts";
import { prng } from "../../scripts/tools/prng.ts";
import { StepEvents } from "../helpers/step-events.ts";
import { DIFF, firstDifferentTask, traced } from "../helpers/differential.ts";

const ALL_ENDINGS: FinalStatus[] = ["succeeded", "dead", "cancelled", "expired"];

/** An outcome comparable across backends: the value, or the error's class and details. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await p };
  } catch (e) {
    if (!(e instanceof SkedulrError)) throw e;
    return {
      error: e.name,
      message: e.message,
      activeId: (e as { activeId?: string }).activeId,
      issues: e instanceof ValidationError ? e.issues : undefined,
    };
  }
}

async function snapshot(s: Storage, now: number) {
  const all = [];
  let cursor: string | undefined;
  do {
    const page = await s.list({ limit: 7, cursor });
    all.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  const history = [];
  cursor = undefined;
  do {
    const page = await s.history({ limit: 9, cursor });
    history.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  return {
    all,
    history,
    dead: (await s.list({ status: "dead", limit: 1000 })).items.map((t) => t.id),
    expired: (await s.list({ status: "expired", limit: 1000 })).items.map((t) => t.id),
    expiries: await s.dueExpiries({ until: now + 5_000, limit: 1000 }),
    waiting: (await s.list({ status: ["waiting", "scheduled"], pool: "b", limit: 1000 })).items
      .map((t) => t.id),
    search: (await s.list({ q: "X7", limit: 1000 })).items.map((t) => t.id),
    retrying: (await s.history({ status: "retrying", type: "beta", limit: 1000 })).items,
    stats: await s.stats(),
    due: await s.dueDelayed({ until: now + 5_000, limit: 1000 }),
    controls: await s.poolControls(),
    unreadableCursor: [
      await s.list({ cursor: "zz" }),
      (await s.history({ cursor: "zz", limit: 3 })).items,
      await s.dueDelayed({ until: now, limit: 2.5 }),
    ],
    schedules: await s.listSchedules(),
  };
}

/**
 * Each flow key's running count is its running tasks, its parked set is its tasks that wait
 * for it (`waitingFor`), and only queued tasks wait.
 */
async function flowInvariants(
  redis: RedisStorage,
  transport: RedisTransport,
  all: TaskRecord[],
  where: string,
) {
  for (const key of ["f1", "f2", "f3"]) {
    const mine = all.filter((t) => t.flowControl?.key === key);
    const running = mine.filter((t) => t.status === "running").length;
    // One integer: running + 1e7 * parallelism + 1e14 * (rate flag + 2 * parked flag)
    // (lua/includes/flow-state.lua).
    const state = Number(await transport.send(["GET", `${redis.prefix}flow:${key}`]) ?? 0);
    assert.equal(state % 1e7, running, `${where}: running count of ${key}`);
    const parked = await transport.send(["ZCARD", `${redis.prefix}parked:${key}`]);
    const waiting = mine.filter((t) => t.waitingFor !== null).length;
    assert.equal(Number(parked), waiting, `${where}: parked tasks of ${key}`);
    assert.equal(
      Math.floor(state / 2e14) === 1,
      waiting > 0,
      `${where}: parked flag of ${key} (state ${state})`,
    );
  }
  for (const t of all) {
    if (t.waitingFor) {
      assert.equal(t.status, "queued", `${where}: ${t.id} waits but is ${t.status}`);
    }
  }
}

/** Every page of a history read, as the list of its pages' items. */
async function allHistory(s: Storage, filter: HistoryFilter) {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await s.history({ ...filter, cursor });
    pages.push(page.items);
    cursor = page.next ?? undefined;
  } while (cursor);
  return pages;
}

/** The first three pages of a task's log under `filter` (null: unknown task), cursors too. */
async function logPages(s: Storage, id: string, filter: LogFilter) {
  const pages = [];
  let cursor = filter.cursor;
  do {
    const page = await s.taskLogs(id, { ...filter, cursor });
    if (!page) return null;
    pages.push(page);
    cursor = page.next ?? undefined;
  } while (cursor && pages.length < 3);
  return pages;
}

/** The second page of a task's children, two at a time. */
function childrenAfter(id: string) {
  return async (s: Storage) => {
    const { next } = await s.children(id, { limit: 2 });
    return next ? await s.children(id, { limit: 2, cursor: next }) : null;
  };
}

function newRun(id: string, now: number): NewTask {
  return newTask(id, now, { type: "alpha", pool: "a", payload: { run: id } });
}

function schedule(id: string, everyMs: number, now: number): ScheduleRecord {
  const { id: _, runAt: _r, scheduleId: _s, createdAt: _c, key: _k, ...template } = newRun(id, now);
  return newSchedule(id, everyMs, now, {
    template,
    nextRunAt: now + everyMs,
    skipIfRunning: everyMs % 2 === 0,
  });
}

async function run(seed: number, steps: number) {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const options = { history: { maxCount: 40, maxAgeMs: 3_600_000 }, maxUnfinished: 150 };
  const memory = new MemoryStorage(options);
  const transport = connectRedisTcp(await testRedisUrl());
  const redis = new RedisStorage({
    transport,
    prefix: uniquePrefix(`diff${seed}`),
    ...options,
  });
  await redis.init();
  const stores: Storage[] = [memory, redis];
  // Each step's distinct events (Redis publishes "ready" once per pool per script, the
  // embedded store once per task: the sets must agree, not the counts).
  const events = new StepEvents(memory, transport, `${redis.prefix}events`);
  // Task events in order, without their ids (the stores number their batches differently:
  // a Redis call is one batch, a memory burst another).
  const taskEvents: string[][] = [[], []];
  await Promise.all(stores.map((s, i) =>
    s.subscribeTaskEvents((batch) => {
      for (const { eventId: _, ...e } of batch) {
        taskEvents[i].push(JSON.stringify(e, Object.keys(e).sort()));
      }
    }).ready
  ));
  let now = Date.UTC(2026, 0, 5);
  let n = 0;
  const ids: string[] = [];
  const workers = ["w1", "w2"];
  /**
   * Claimed tasks, their owner and each store's claim token (the tokens differ between the
   * stores), so most completions and failures hold the lease.
   */
  const claimed = new Map<string, { worker: string; tokens: string[] }>();
  /** The last claim: a lost-claim release may name it. */
  let lastClaim = { pool: "a", owner: { workerId: "w1", leaseMs: 2_000 }, at: now };
  const lease = (id: string, workerId: string, store: number): Lease => ({
    id,
    workerId,
    token: claimed.get(id)?.tokens[store] ?? "0",
  });
  const target = (): [string, string] => {
    if (claimed.size && rnd() < 0.8) {
      const id = pick([...claimed.keys()]);
      return [id, claimed.get(id)!.worker];
    }
    return [pick(ids), pick(workers)];
  };
  const flowSpec = () => {
    const rate = rnd() < 0.5 ? 1 + Math.floor(rnd() * 2) : null;
    const parallelism = rate === null || rnd() < 0.5 ? 1 + Math.floor(rnd() * 2) : null;
    return {
      key: pick(["f1", "f2", "f3"]),
      parallelism,
      rate,
      periodMs: rate === null ? null : pick([800, 3_000]),
    };
  };
  /**
   * Log lines as a worker hands them over, now and then none; `from` drawn small, so lines a
   * store holds are skipped and gaps counted; big lines and long batches reach both caps.
   */
  const logBatch = (): LogBatch | undefined => {
    if (rnd() < 0.4) return undefined;
    const from = 1 + Math.floor(rnd() * 4);
    const n = pick([0, 1, 2, 3, 300]);
    const attempt = 1 + Math.floor(rnd() * 3);
    const text = pick(["line", "zeile é ü", "x".repeat(60_000)]);
    const fields = rnd() < 0.3 ? { n, tag: "ü" } : undefined;
    const lines = Array.from({ length: n }, (_, k) => ({
      at: now + k,
      attempt,
      message: `${text} ${k}`,
      ...(fields ? { fields } : {}),
    }));
    return { from, lines };
  };
  // Callbacks in pool a too, so claims take them (their record decoded from the snapshot).
  const callbackSpec = (): Callback => ({
    url: "https://hooks.example/done",
    on: ALL_ENDINGS.filter(() => rnd() < 0.7),
    headers: rnd() < 0.3 ? { "X-Key": "secret x7" } : {},
    pool: pick(["a", "cb"]),
  });
  const both = async (what: string, op: (s: Storage, store: number) => Promise<unknown>) => {
    const [a, b] = [await outcome(op(reference, 0)), await outcome(op(redis, 1))];
    assert.deepEqual(b, a, `seed ${seed}, step ${step}: ${what} differs`);
    return a as { ok?: unknown };
  };
  let step = 0;
  const reference = traced(memory, () => step);
  try {
    for (; step < steps; step++) {
      // Often no time passes: ties in time must order alike too.
      now += rnd() < 0.3 ? 0 : Math.floor(rnd() * 400);
      const r = rnd();
      if (r < 0.22) {
        const batch: NewTask[] = [];
        const size = 1 + Math.floor(rnd() * 3);
        for (let k = 0; k < size; k++) {
          // Now and then an id in use by a task, or by a schedule (one namespace).
          const id = rnd() < 0.03 && ids.length
            ? pick(ids)
            : rnd() < 0.01
            ? `s${Math.floor(rnd() * 4)}`
            : `t${n++}`;
          const known = [...ids, ...batch.map((t) => t.id)];
          const parent = () => (rnd() < 0.05 ? "ghost" : pick(known));
          const flow = known.length && rnd() < 0.35 ? rnd() : -1;
          // Few keys and short ttls: hits, expiries and in-batch repeats all happen.
          const dedupe = rnd() < 0.25
            ? { key: pick(["d1", "d2", "d3"]), ttlMs: pick([300, 2_000, 10_000]) }
            : null;
          // As the Scheduler makes them: no parents, runAt = now + delay.
          const debounce = !dedupe && rnd() < 0.2
            ? {
              key: pick(["b1", "b2"]),
              delayMs: pick([500, 1_500]),
              maxWaitMs: pick([null, 2_000]),
            }
            : null;
          // Flow keys shared by both pools, tight limits: parking, unparking and rate wakes.
          const flowControl = !debounce && rnd() < 0.35 ? flowSpec() : null;
          batch.push({
            id,
            type: pick(["alpha", "beta"]),
            pool: pick(["a", "b"]),
            priority: Math.floor(rnd() * 3),
            payload: { n, tag: rnd() < 0.2 ? "x7" : "plain", f: rnd() },
            maxRetries: Math.floor(rnd() * 3),
            maxStalls: Math.floor(rnd() * 2),
            runAt: debounce
              ? now + debounce.delayMs
              : rnd() < 0.3
              ? now + Math.floor(rnd() * 3_000) - 500
              : null,
            key: !dedupe && !debounce && rnd() < 0.15 ? pick(["k1", "k2", "k3"]) : null,
            dedupe,
            debounce,
            timeoutMs: rnd() < 0.2 ? 1_000 : null,
            backoff: rnd() < 0.2 ? { type: "fixed", delayMs: 100 } : null,
            scheduleId: null,
            // Some already past at submit (the store takes them; the claim must not start them).
            expiresAt: !debounce && rnd() < 0.3 ? now + Math.floor(rnd() * 2_500) - 200 : null,
            dependsOn: !debounce && flow >= 0 && flow < 0.5 ? [parent(), parent()] : [],
            onSuccessOf: !debounce && flow >= 0.5 && flow < 0.75 ? parent() : null,
            onFailureOf: !debounce && flow >= 0.75 ? parent() : null,
            createdAt: now,
            ...(flowControl ? { flowControl } : {}),
            ...(rnd() < 0.1 ? { traceparent: `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01` } : {}),
            ...(rnd() < 0.3 ? { callback: callbackSpec() } : {}),
          });
        }
        const res = await both("enqueue", (s) => s.enqueue({ tasks: batch, now }));
        // A dedupe or debounce hit stored nothing: its id names no task.
        const answers = (res.ok ?? []) as Enqueued[];
        answers.forEach((a, k) => "deduplicated" in a || "debounced" in a || ids.push(batch[k].id));
      } else if (r < 0.40) {
        // Arguments are drawn once, outside the closures, so both stores get the same.
        const pool = pick(["a", "b"]);
        const max = rnd() < 0.1 ? 1.5 : 1 + Math.floor(rnd() * 4);
        const owner = { workerId: pick(workers), leaseMs: 2_000 };
        const tokens = new Map<string, string[]>();
        // Tokens are each store's own: compared apart from the records, by count.
        const got = await both("claim", async (s, store) => {
          const tasks = await s.claim({ pool, max, owner, now });
          // Under a rate limit, when the next start is allowed is part of the answer.
          return {
            heldUntil: tasks.heldUntil,
            tasks: tasks.map(({ token, ...task }) => {
              (tokens.get(task.id) ?? tokens.set(task.id, []).get(task.id)!)[store] = token;
              return task;
            }),
          };
        });
        for (const t of (got.ok as { tasks?: { id: string }[] })?.tasks ?? []) {
          claimed.set(t.id, { worker: owner.workerId, tokens: tokens.get(t.id)! });
        }
        lastClaim = { pool, owner, at: now };
      } else if (r < 0.55 && ids.length) {
        const [id, w] = target();
        const logs = logBatch();
        await both(
          "complete",
          (s, i) => s.complete({ lease: lease(id, w, i), result: { done: id }, now, logs }),
        );
        claimed.delete(id);
      } else if (r < 0.68 && ids.length) {
        const [id, w] = target();
        const retryAt = rnd() < 0.5 ? now + 300 : null;
        const logs = logBatch();
        await both(
          "fail",
          (s, i) =>
            s.fail({
              lease: lease(id, w, i),
              error: { message: `boom ${id}`, stack: "s" },
              retryAt,
              now,
              logs,
            }),
        );
        if (rnd() < 0.8) claimed.delete(id); // else a repeated fail, as after a lost reply
      } else if (r < 0.73 && ids.length) {
        const id = rnd() < 0.1 ? "nope" : pick(ids);
        await both("cancel", (s) => s.cancel({ id, reason: "by test", now }));
      } else if (r < 0.77 && ids.length) {
        const id = pick(ids);
        await both("resubmit", (s) => s.resubmit({ id, now }));
      } else if (r < 0.85) {
        const limit = 1 + Math.floor(rnd() * 5);
        await both("promoteDue", (s) => s.promoteDue({ now, limit }));
      } else if (r < 0.87) {
        const limit = 1 + Math.floor(rnd() * 3);
        await both("recoverExpired", (s) => s.recoverExpired({ now, limit }));
      } else if (r < 0.89) {
        // The expiry duty, a few index entries at a time.
        const limit = 1 + Math.floor(rnd() * 3);
        await both("expireDue", (s) => s.expireDue({ now, limit }));
      } else if (r < 0.91 && ids.length) {
        const some = [pick(ids), pick(ids)].map((id) => ({ id, logs: logBatch() }));
        const w = pick(workers);
        await both(
          "release",
          (s, i) =>
            s.release({ leases: some.map((l) => ({ ...lease(l.id, w, i), logs: l.logs })), now }),
        );
      } else if (r < 0.93 && ids.length) {
        const some = [pick(ids), pick(ids)];
        await both(
          "renewLeases",
          (s, i) =>
            s.renewLeases({ leases: some.map((id) => lease(id, "w1", i)), leaseMs: 2_000, now }),
        );
      } else if (r < 0.935) {
        const { pool, owner, at } = lastClaim;
        const keep = rnd() < 0.5 ? [] : [...claimed.keys()].slice(0, 2);
        await both(
          "releaseClaim",
          (s) => s.releaseClaim({ pool, owner, claimedAt: at, keep, now }),
        );
      } else if (r < 0.945 && ids.length) {
        // A worker's periodic write of its running attempts' lines.
        const some = [target(), target()].map(([id, w]) => ({ id, w, logs: logBatch() }));
        await both(
          "appendLogs",
          (s, i) =>
            s.appendLogs({
              leases: some.map((l) => ({ ...lease(l.id, l.w, i), logs: l.logs })),
              now,
            }),
        );
      } else if (r < 0.95 && ids.length) {
        const id = pick(ids);
        const p = Math.floor(rnd() * 130) - 10;
        const w = pick(workers);
        await both(
          "setProgress",
          (s, i) => s.setProgress({ lease: lease(id, w, i), progress: p, now }),
        );
      } else if (r < 0.96) {
        const status = pick(["dead", "cancelled", "expired"] as const);
        await both(
          "resubmitMatching",
          (s) => s.resubmitMatching({ filter: { status, pool: "a" }, now }),
        );
      } else if (r < 0.965) {
        // Now and then a task's id: the namespaces are one.
        const id = rnd() < 0.1 && ids.length ? pick(ids) : `s${Math.floor(rnd() * 4)}`;
        const every = 500 + Math.floor(rnd() * 1_000);
        const s0 = schedule(id, every, now);
        // A replacement sometimes lands at or before the occurrence fired last (stale).
        const nextRunAt = rnd() < 0.3 ? now - 300 : s0.nextRunAt;
        const replace = rnd() < 0.7;
        await both(
          "putSchedule",
          (s) => s.putSchedule({ schedule: { ...s0, nextRunAt }, replace, now }),
        );
      } else if (r < 0.968) {
        const id = `s${Math.floor(rnd() * 5)}`;
        const paused = rnd() < 0.5;
        await both("setSchedulePaused", (s) => s.setSchedulePaused({ id, paused, now }));
      } else if (r < 0.97) {
        const id = `s${Math.floor(rnd() * 5)}`;
        const run = { ...newRun(`r${n++}`, now), scheduleId: id, runAt: now };
        const res = await both("triggerSchedule", (s) => s.triggerSchedule({ id, run, now }));
        if (res.ok) ids.push(run.id);
      } else if (r < 0.975) {
        const due = await both("dueSchedules", (s) => s.dueSchedules({ until: now, limit: 10 }));
        const list = (due.ok ?? []) as { id: string; nextRunAt: number }[];
        if (list.length) {
          const { id, nextRunAt } = pick(list);
          const at = rnd() < 0.2 ? nextRunAt - 1 : nextRunAt;
          const expiresAt = rnd() < 0.3 ? now + 600 : null;
          const run = { ...newRun(`r${n++}`, now), scheduleId: id, expiresAt, runAt: at };
          // A catch-up skip now and then: no run, the schedule moves on.
          const withRun = rnd() < 0.85;
          const res = await both("fireSchedule", (s) =>
            s.fireSchedule({
              id,
              occurrenceAt: at,
              nextRunAt: now + 700,
              firedAt: at,
              run: withRun ? run : null,
              now,
            }));
          if ((res.ok as { taskId?: string })?.taskId) ids.push(run.id);
        }
        await both("listSchedules", (s) => s.listSchedules());
      } else if (r < 0.978) {
        const id = `s${Math.floor(rnd() * 5)}`;
        await both("removeSchedule", (s) => s.removeSchedule(id));
      } else if (r < 0.982) {
        const id = `i${Math.floor(rnd() * 3)}`;
        const info = {
          id,
          host: "h",
          pid: 1,
          pools: { a: 2 },
          running: 0,
          startedAt: now,
          lastSeen: 0,
        };
        await both("heartbeat", (s) => s.heartbeat({ info, ttlMs: 1_000, now }));
        await both("listInstances", (s) => s.listInstances(now));
      } else if (r < 0.984) {
        const pool = pick(["a", "b", "c"]);
        const size = rnd() < 0.3 ? null : Math.floor(rnd() * 5);
        await both("setPoolSize", (s) => s.setPoolSize({ pool, size }));
      } else if (r < 0.99) {
        // Cluster-wide limits: claims above then run under them (and the slots they free).
        const pool = pick(["a", "b"]);
        const draw = <T>(
          value: () => T,
        ) => (rnd() < 0.25 ? null : rnd() < 0.3 ? undefined : value());
        const limits = {
          globalConcurrency: draw(() => 1 + Math.floor(rnd() * 4)),
          rateLimit: draw(() => ({
            max: 1 + Math.floor(rnd() * 4),
            perMs: 100 + Math.floor(rnd() * 900),
          })),
        };
        const ifAbsent = rnd() < 0.3;
        await both("setPoolLimits", (s) => s.setPoolLimits({ pool, limits, ifAbsent }));
        await both("poolStarts", (s) => s.poolStarts({ pool, perMs: 500, now }));
      } else if (r < 0.995) {
        const pool = rnd() < 0.3 ? null : pick(["a", "b"]);
        const paused = rnd() < 0.3;
        await both("setPaused", (s) => s.setPaused({ pool, paused }));
      } else {
        now += 2_500; // let leases expire
      }
      await events.endStep(step);
      if (step % DIFF.checkEvery === DIFF.checkEvery - 1 || step === steps - 1) {
        const differs = await events.firstDifference(step);
        if (differs) {
          const { step: at, memory, redis } = differs;
          assert.deepEqual(redis, memory, `seed ${seed}, step ${at}: published events differ`);
        }
        await eventually(
          () => taskEvents[1].length >= taskEvents[0].length,
          `seed ${seed}: the task events by step ${step}`,
          2_000,
        ).catch(() => {});
        assert.deepEqual(taskEvents[1], taskEvents[0], `seed ${seed}: task events by step ${step}`);
        if (step === steps - 1) assert.ok(taskEvents[0].length > 100, "task events were compared");
        const [a, b] = [await snapshot(memory, now), await snapshot(redis, now)];
        const task = firstDifferentTask(a.all, b.all);
        assert.deepEqual(
          b,
          a,
          `seed ${seed}: state after step ${step} differs${task ? ` (task ${task} first)` : ""}`,
        );
        await flowInvariants(redis, transport, a.all, `seed ${seed}, step ${step}`);
        for (const id of ids.slice(-20)) {
          assert.deepEqual(await redis.get(id), await memory.get(id), `seed ${seed}: get(${id})`);
        }
        // The stores' own indexes: a task's children and its attempts, paged.
        for (const id of [...ids.slice(0, 10), ...ids.slice(-30)]) {
          for (const read of [(s: Storage) => s.children(id, { limit: 2 }), childrenAfter(id)]) {
            assert.deepEqual(
              await read(redis),
              await read(memory),
              `seed ${seed}: children(${id})`,
            );
          }
          // Log cursors count lines, the same in both stores: whole pages must agree.
          const filters = [{ limit: 1_000 }, { limit: 2, cursor: "5" }, { attempt: 2, limit: 1 }];
          for (const filter of filters) {
            assert.deepEqual(
              await logPages(redis, id, filter),
              await logPages(memory, id, filter),
              `seed ${seed}: taskLogs(${id}, ${JSON.stringify(filter)})`,
            );
          }
          // Cursors are each store's own: the pages' items must agree.
          for (const filter of [{ taskId: id }, { taskId: id, limit: 1, status: "retrying" }]) {
            assert.deepEqual(
              await allHistory(redis, filter as HistoryFilter),
              await allHistory(memory, filter as HistoryFilter),
              `seed ${seed}: history(${JSON.stringify(filter)})`,
            );
          }
        }
      }
    }
  } finally {
    await events.close();
    await Promise.all(stores.map((s) => s.close()));
  }
}

// Seeds and steps: DIFF_SEEDS, DIFF_STEPS (test/helpers/differential.ts says how to hunt).
describe("redis storage mirrors the embedded store", () => {
  for (const seed of DIFF.seeds) {
    const timeout = 60_000 + DIFF.steps * 200;
    it(`random operation sequence, seed ${seed}`, { timeout }, async () => {
      await run(seed, DIFF.steps);
    });
  }
});
