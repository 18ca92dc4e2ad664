/**
 * HTTP API, concurrent single submits coalesced into shared store calls
 * (src/client/enqueue-coalescer.ts): while two calls are out, later submits wait and go as
 * one batch. Each request keeps the answer it would have had alone: its status, id, Location
 * and warnings; a 409, a 400 or a full store fails only its own request; a storage fault on
 * the shared call answers every member 503, as it would have alone.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import type { EnqueueParams } from "../../src/storage/params.ts";
import { Faults, faultyStorage } from "../helpers/faulty-storage.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const T = "/skedulr/api/tasks";

/** The embedded store, telling how many tasks each `enqueue` call carried. */
class CountingStorage extends MemoryStorage {
  readonly calls: number[] = [];
  override enqueue(p: EnqueueParams) {
    this.calls.push(p.tasks.length);
    return super.enqueue(p);
  }
}

interface Answer {
  status: number;
  location: string | null;
  body: any;
}

/** An API on a store whose first two submits are held, so the next ones must wait together. */
async function held(options: { maxUnfinished?: number } = {}) {
  const store = new CountingStorage(options);
  const faults = new Faults();
  const s = new Scheduler({
    storage: faultyStorage(store, faults),
    pools: {},
    logger: silentLogger,
  });
  const app = createApp({ scheduler: s });
  const post = async (body: unknown): Promise<Answer> => {
    const res = await app.request(T, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, location: res.headers.get("location"), body: await res.json() };
  };
  return {
    store,
    faults,
    s,
    post,
    /** Sends every spec at once; resolves when the two held calls are out. */
    async sendAll(specs: unknown[]): Promise<Promise<Answer>[]> {
      faults.inject("enqueue", "hang", 2);
      const answers = specs.map(post);
      await eventually(() => faults.applied.length === 2, "the two held submits");
      return answers;
    },
  };
}

/** An answer without the "no live worker" warning every submit here carries. */
const bare = ({ warnings, ...rest }: Record<string, unknown>) => {
  assert.ok(Array.isArray(warnings), "the warning of its own type is kept");
  return rest;
};

describe("api: concurrent submits share store calls", () => {
  it("waiting submits go as one call, each answered with its own task", async () => {
    const h = await held();
    const specs = Array.from({ length: 12 }, (_, i) => ({
      type: `t${i % 3}`,
      payload: { i },
      ...(i % 4 === 0 ? { id: `custom-${i}` } : {}),
      ...(i % 5 === 0 ? { delay: "1h" } : {}),
    }));
    const pending = await h.sendAll(specs);
    h.faults.heal();
    const answers = await Promise.all(pending);
    assert.ok(h.store.calls.length < specs.length, `calls ${h.store.calls}`);
    assert.ok(Math.max(...h.store.calls) > 1, `a call carried several: ${h.store.calls}`);
    const ids = new Set<string>();
    for (const [i, a] of answers.entries()) {
      assert.equal(a.status, 201);
      const { id } = bare(a.body) as { id: string };
      assert.deepEqual(bare(a.body), { id, status: i % 5 === 0 ? "scheduled" : "queued" });
      if (i % 4 === 0) assert.equal(id, `custom-${i}`);
      assert.equal(a.location, `${T}/${id}`);
      assert.match(a.body.warnings[0], new RegExp(`type "t${i % 3}"`));
      const task = await h.s.get(id);
      assert.deepEqual(task?.payload, { i }, "its own payload under its own id");
      ids.add(id);
    }
    assert.equal(ids.size, specs.length);
  });

  it("one refused submit fails alone: 409, 400, dedupe and a retry answer as they would alone", async () => {
    const h = await held();
    const taken = await h.s.submit({ type: "a", id: "taken", payload: 1 });
    assert.equal(taken, "taken");
    const pending = await h.sendAll([
      { type: "a", payload: "first" },
      { type: "a", payload: "second" },
      { type: "a", payload: "good" },
      { type: "a", id: "taken", payload: 2 },
      { type: "a", dependsOn: ["nope"] },
      { type: "a", dedupe: { key: "k", ttl: "1h" } },
      { type: "a", dedupe: { key: "k", ttl: "1h" } },
      { type: "a", id: "taken", payload: 1 },
      { type: "a", payload: "last" },
    ]);
    h.faults.heal();
    const [first, second, good, conflict, orphan, d1, d2, retry, last] = await Promise.all(pending);
    for (const a of [first, second, good, last]) assert.equal(a.status, 201);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, "conflict");
    assert.equal(conflict.body.error.message, 'Task id "taken" is already in use');
    assert.equal(orphan.status, 400);
    assert.deepEqual(orphan.body.error.issues, [
      { path: "dependsOn[0]", message: 'unknown task id "nope"' },
    ]);
    // Whichever of the two the store took first holds the key; the other is answered with it.
    const [stored, repeat] = d1.status === 201 ? [d1, d2] : [d2, d1];
    assert.equal(stored.status, 201);
    assert.equal(repeat.status, 200);
    assert.deepEqual(bare(repeat.body), {
      id: bare(stored.body).id,
      status: "queued",
      deduplicated: true,
    });
    assert.equal(retry.status, 200);
    assert.deepEqual(bare(retry.body), { id: "taken", status: "queued", existing: true });
    assert.equal((await h.s.get(bare(good.body).id as string))?.payload, "good");
    const stored6 = (await h.s.list({ limit: 100 })).items.length;
    assert.equal(stored6, 6, "taken, the four good ones and one of the dedupe pair");
  });

  it("a store that fills up refuses only the submits past its bound", async () => {
    const h = await held({ maxUnfinished: 5 });
    const pending = await h.sendAll(
      Array.from({ length: 8 }, (_, i) => ({ type: "a", payload: i })),
    );
    h.faults.heal();
    const answers = await Promise.all(pending);
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 201, 201, 201, 503, 503, 503]);
    for (const a of answers.filter((a) => a.status === 503)) {
      assert.equal(a.body.error.code, "capacity");
    }
    assert.equal((await h.s.list({ limit: 100 })).items.length, 5);
  });

  it("a storage fault on the shared call answers each member 503, then submits work again", async () => {
    const h = await held();
    const pending = await h.sendAll(
      Array.from({ length: 6 }, (_, i) => ({ type: "a", payload: i })),
    );
    // The two held calls go through; the next call, the waiting four together, is refused.
    h.faults.heal("enqueue");
    h.faults.inject("enqueue", "reject", 1);
    const answers = await Promise.all(pending);
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 503, 503, 503, 503]);
    for (const a of answers.filter((a) => a.status === 503)) {
      assert.equal(a.body.error.code, "storage");
    }
    assert.deepEqual(h.store.calls, [1, 1], "the refused call never reached the store");
    assert.equal((await h.s.list({ limit: 100 })).items.length, 2);
    const again = await h.post({ type: "a", payload: "again" });
    assert.equal(again.status, 201);
  });

  it("a shared call whose reply was lost answers each member 503; what it stored stays", async () => {
    const h = await held();
    const pending = await h.sendAll(
      Array.from({ length: 5 }, (_, i) => ({ type: "a", payload: i })),
    );
    h.faults.heal("enqueue");
    h.faults.inject("enqueue", "lose-reply", 1);
    const answers = await Promise.all(pending);
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 503, 503, 503]);
    assert.deepEqual(h.store.calls, [1, 1, 3]);
    // As for one submit whose reply was lost: stored, and a retry with an id is safe.
    assert.equal((await h.s.list({ limit: 100 })).items.length, 5);
  });
});
