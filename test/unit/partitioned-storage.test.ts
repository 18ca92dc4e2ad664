/**
 * @module partitioned-storage.test — what a partitioned store promises beyond the behaviour
 * suite (which runs on it too): ids that name their partition, so a read of one is one call;
 * placement that keeps what must be atomic in one partition; claims that visit every
 * partition; a pool-wide limit whose shares never add up to more than it; listings merged
 * newest first with stable cursors; task events resumed in every partition. Three embedded
 * stores as partitions, each call counted.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MemoryStorage } from "../../src/storage/memory/memory-storage.ts";
import { PartitionedStorage } from "../../src/storage/partitioned/partitioned-storage.ts";
import { hashPartition, partitionOfId } from "../../src/core/partitions.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import type { TaskEvent } from "../../src/core/task-event.ts";
import { newTask } from "../../scripts/tools/new-task.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const T0 = Date.UTC(2026, 0, 5, 8);
const OWNER = { workerId: "w", leaseMs: 60_000 };

/** `n` keys that hash to partition `k` of 3. */
function keysOf(k: number, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) if (hashPartition(`key-${i}`, 3) === k) out.push(`key-${i}`);
  return out;
}

/** Three embedded partitions, with the calls each one got (method names). */
function store() {
  const calls: string[][] = [[], [], []];
  const parts = [0, 1, 2].map((k) => {
    const part = new MemoryStorage();
    return new Proxy(part, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls[k].push(String(prop));
          return value.apply(target, args);
        };
      },
    });
  });
  const storage = new PartitionedStorage({ parts });
  const s = new Scheduler({ storage, logger: silentLogger, pools: {}, clock: new ManualClock(T0) });
  return { storage, s, calls, reset: () => calls.forEach((c) => (c.length = 0)) };
}

describe("a partitioned store", () => {
  it("gives a store-made id its partition, and reads it with one call to that partition", async () => {
    const { s, storage, calls, reset } = store();
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await s.submit({ type: "t" }));
    const parts = ids.map((id) => partitionOfId(id, 3));
    assert.deepEqual(new Set(parts), new Set([0, 1, 2]), `submits spread: ${ids}`);
    reset();
    const t = await storage.get(ids[0]);
    assert.equal(t?.id, ids[0]);
    assert.deepEqual(
      calls.map((c) => c.filter((m) => m === "get").length),
      [0, 1, 2].map((k) => k === parts[0] ? 1 : 0),
    );
    // A custom id names no partition: every partition is asked at once (one round trip).
    await s.submit({ type: "t", id: "order-42" });
    reset();
    assert.equal((await storage.get("order-42"))?.id, "order-42");
    assert.deepEqual(calls.map((c) => c.filter((m) => m === "get").length), [1, 1, 1]);
  });

  it("keeps a workflow, and what shares a key, in one partition; refuses ties that clash", async () => {
    const { s } = store();
    const [a, b] = await s.submitMany([
      { type: "t", id: "wf-a" },
      { type: "t", id: "wf-b", dependsOn: ["wf-a"] },
    ]);
    assert.deepEqual([a.status, b.status], ["queued", "waiting"]);
    const child = await s.submit({ type: "t", onSuccessOf: "wf-b" });
    assert.equal(partitionOfId(child, 3), hashPartition("wf-a", 3), "a child joins its parents");
    const keyed = await s.submit({ type: "t", flowControl: { key: "tenant-7", parallelism: 1 } });
    assert.equal(partitionOfId(keyed, 3), hashPartition("tenant-7", 3));
    const tagged = await s.submit({
      type: "t",
      key: "{tenant-7}order-1",
      partitionKey: "tenant-7",
    });
    assert.equal(partitionOfId(tagged, 3), hashPartition("tenant-7", 3), "a {hash tag} agrees");
    // Two keys that hash apart cannot both hold: the field that clashes is named.
    const [x, y] = [keysOf(0, 1)[0], keysOf(1, 1)[0]];
    await assert.rejects(
      s.submit({ type: "t", key: x, flowControl: { key: y, parallelism: 1 } }),
      (e: { issues?: { path: string; message: string }[] }) =>
        e.issues?.[0]?.path === "flowControl.key" && /hash tag/.test(e.issues[0].message),
    );
  });

  it("keeps custom ids unique across partitions, and their namespace with schedules", async () => {
    const { s } = store();
    // "dup" lives where it hashes; the same id tied to a key elsewhere is still refused.
    await s.submit({ type: "t", id: "dup" });
    const elsewhere = keysOf((hashPartition("dup", 3) + 1) % 3, 1)[0];
    await assert.rejects(
      s.submit({ type: "t", id: "dup", partitionKey: elsewhere, payload: 1 }),
      /already in use/,
    );
    await s.submit({ type: "t", every: "1m", id: "nightly" });
    await assert.rejects(
      s.submit({ type: "t", id: "nightly", partitionKey: elsewhere }),
      /schedule/,
    );
  });

  it("stores concurrent single submits each on its own: one refused for a held key fails alone", async () => {
    const { s, storage } = store();
    const held = keysOf(2, 1)[0];
    await s.submit({ type: "t", key: held });
    // Submits at once, tied to every partition: a shared store call would span partitions,
    // where a batch is not all or none.
    const keys = [...keysOf(0, 3), ...keysOf(1, 3), held, ...keysOf(2, 4).slice(1)];
    const answers = await Promise.allSettled(keys.map((key) => s.submit({ type: "t", key })));
    const refused = answers.flatMap((a, i) => (a.status === "rejected" ? [keys[i]] : []));
    assert.deepEqual(refused, [held], "only the submit of the held key is refused");
    const stored = (await storage.list({ limit: 100 })).items;
    assert.equal(stored.length, keys.length, "each other submit stored once, the holder too");
    assert.deepEqual(new Set(stored.map((t) => t.key)).size, keys.length);
  });

  it("claims from every partition in turn: none starves", async () => {
    const { storage, calls, reset } = store();
    // Five tasks in each partition, each with the partition in its payload.
    const tasks = [0, 1, 2].flatMap((k) =>
      keysOf(k, 5).map((key) => newTask(key, T0, { partitionKey: key, payload: k }))
    );
    for (const t of tasks) await storage.enqueue({ tasks: [t], now: T0 });
    reset();
    // The claims of one moment start at one partition (their settles batch there); the
    // next moment's at the next one.
    const seen = new Set<unknown>();
    for (let i = 0; i < 3; i++) {
      const now = T0 + 20 * i;
      const [t] = await storage.claim({ pool: "default", max: 1, owner: OWNER, now });
      seen.add(t.payload);
    }
    assert.deepEqual(seen, new Set([0, 1, 2]), "three moments, three partitions");
    // A drained partition is skipped, at no cost, until an event says it has work.
    const drained = await storage.claim({ pool: "default", max: 100, owner: OWNER, now: T0 });
    assert.equal(drained.length, tasks.length - 3);
    reset();
    assert.deepEqual(await storage.claim({ pool: "default", max: 1, owner: OWNER, now: T0 }), []);
    assert.deepEqual(calls.map((c) => c.filter((m) => m === "claim").length), [0, 0, 0]);
    await storage.enqueue({ tasks: [newTask("late", T0, { partitionKey: "x" })], now: T0 });
    const [late] = await storage.claim({ pool: "default", max: 1, owner: OWNER, now: T0 });
    assert.equal(late?.id, "late");
  });

  it("settles each running task in its own partition, whichever that is", async () => {
    const { storage } = store();
    const ids = [0, 1, 2].flatMap((k) => keysOf(k, 2));
    for (const id of ids) {
      await storage.enqueue({ tasks: [newTask(id, T0, { partitionKey: id })], now: T0 });
    }
    const claimed = await storage.claim({ pool: "default", max: 10, owner: OWNER, now: T0 });
    assert.equal(claimed.length, ids.length);
    const [first, ...rest] = claimed;
    const lease = (t: typeof first) => ({ id: t.id, workerId: OWNER.workerId, token: t.token });
    assert.deepEqual(
      await storage.renewLeases({ leases: claimed.map(lease), leaseMs: 60_000, now: T0 + 1 }),
      [],
      "every lease is held where it was taken",
    );
    assert.equal(
      await storage.setProgress({ lease: lease(first), progress: 50, now: T0 + 1 }),
      true,
    );
    for (const t of rest) {
      assert.equal(await storage.complete({ lease: lease(t), result: t.id, now: T0 + 2 }), true);
    }
    assert.equal(
      await storage.fail({
        lease: lease(first),
        error: { message: "x" },
        retryAt: null,
        now: T0 + 2,
      }),
      "dead",
    );
    const done = await Promise.all(ids.map((id) => storage.get(id)));
    assert.deepEqual(
      done.map((t) => t!.status).sort(),
      [...Array(ids.length - 1).fill("succeeded"), "dead"].sort(),
    );
  });

  it("never runs more than a pool-wide limit across partitions; refuses one below their count", async () => {
    const { storage, s } = store();
    await assert.rejects(
      storage.setPoolLimits({ pool: "default", limits: { globalConcurrency: 2 } }),
      (e: { issues?: { path: string }[] }) => e.issues?.[0]?.path === "globalConcurrency",
    );
    await storage.setPoolLimits({ pool: "default", limits: { globalConcurrency: 5 } });
    assert.equal((await storage.poolControls())[0].globalConcurrency, 5);
    for (let i = 0; i < 30; i++) await s.submit({ type: "t" });
    let running = 0;
    for (let round = 0; round < 5; round++) {
      running += (await storage.claim({ pool: "default", max: 10, owner: OWNER, now: T0 })).length;
    }
    assert.equal(running, 5, "the shares sum to the limit");
    assert.equal(await storage.poolRunning("default"), 5);
  });

  it("lists newest first across partitions, page after page, none repeated or skipped", async () => {
    const { storage } = store();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const id = `t${String(i).padStart(2, "0")}`;
      await storage.enqueue({ tasks: [newTask(id, T0 + i, { partitionKey: id })], now: T0 + i });
      ids.push(id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await storage.list({ limit: 4, cursor });
      seen.push(...page.items.map((t) => t.id));
      cursor = page.next ?? undefined;
      // A task stored meanwhile is newer than every page: it never shows up in a later one.
      if (seen.length === 8) {
        await storage.enqueue({ tasks: [newTask("new", T0 + 99)], now: T0 + 99 });
      }
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
  });

  it("resumes task events in every partition after an id, and replays all from 0/0", async () => {
    const { storage, s } = store();
    const live: TaskEvent[] = [];
    const sub = storage.subscribeTaskEvents((events) => live.push(...events));
    await sub.ready;
    // Partition 0 numbers five batches while the others number one each.
    for (const key of keysOf(0, 5)) await s.submit({ type: "t", partitionKey: key });
    await eventually(() => live.length === 5, "five created events");
    const later = [await s.submit({ type: "t", partitionKey: keysOf(1, 1)[0] })];
    later.push(await s.submit({ type: "t", partitionKey: keysOf(2, 1)[0] }));
    await eventually(() => live.length === 7, "seven created events");
    const after = await storage.taskEventsAfter(live[4].eventId, 100);
    assert.deepEqual(
      after.events.map((e) => e.id).sort(),
      later.sort(),
      "each partition resumes where the reader left it, not at partition 0's batch",
    );
    assert.equal(after.missed, false);
    assert.equal((await storage.taskEventsAfter("0/0", 100)).events.length, 7);
    assert.equal((await storage.taskEventsAfter("5/0", 100)).missed, true, "not an id of it");
    sub.close();
  });
});
