/**
 * HTTP API, task routes: submit, batch, get, list, cancel, resubmit (one and bulk), through
 * `app.request()` against a real Scheduler on the embedded store.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture, storedCount } from "../helpers/api-app.ts";

const T = "/skedulr/api/tasks";
/** A submit's answer minus `warnings`: with no worker running, every submit carries one. */
const answer = ({ warnings: _, ...rest }: Record<string, unknown>) => rest;

describe("api: submit and get", () => {
  it("submit → run → get round trip", async () => {
    const f = await apiFixture({ handlers: { double: (p: { n: number }) => p.n * 2 } });
    try {
      const res = await f.call("POST", T, { type: "double", payload: { n: 21 } });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ["id", "status"]);
      assert.equal(res.body.status, "queued");
      assert.equal(res.headers.get("location"), `${T}/${res.body.id}`);
      const done = await f.until(res.body.id, "succeeded");
      assert.equal(done.result, 42);
      assert.deepEqual(done.payload, { n: 21 });
      assert.equal(done.attempt, 1);
      assert.equal(done.type, "double");
    } finally {
      await f.close();
    }
  });

  it("every and cron answer the schedule id and nextRunAt", async () => {
    const f = await apiFixture({ start: false });
    try {
      const every = await f.call("POST", T, { type: "tick", every: "1h" });
      assert.equal(every.status, 201);
      assert.deepEqual(Object.keys(answer(every.body)).sort(), ["id", "nextRunAt", "status"]);
      assert.equal(typeof every.body.nextRunAt, "number");
      assert.ok(every.body.nextRunAt > Date.now());
      const cron = await f.call("POST", T, { type: "nightly", cron: "0 3 * * *", timezone: "UTC" });
      assert.equal(cron.status, 201);
      assert.equal(new Date(cron.body.nextRunAt).getUTCHours(), 3);
      assert.ok(await f.s.getSchedule(cron.body.id));
    } finally {
      await f.close();
    }
  });

  it("a delayed task is scheduled; options round-trip into the record", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("POST", T, {
        type: "later",
        id: "my-id",
        delay: "1h",
        pool: "critical",
        priority: 5,
        maxRetries: 3,
        key: "k1",
      });
      assert.equal(res.status, 201);
      assert.deepEqual(answer(res.body), { id: "my-id", status: "scheduled" });
      const got = await f.call("GET", `${T}/my-id`);
      assert.equal(got.status, 200);
      assert.equal(got.body.pool, "critical");
      assert.equal(got.body.priority, 5);
      assert.equal(got.body.maxRetries, 3);
      assert.equal(got.body.key, "k1");
    } finally {
      await f.close();
    }
  });

  it("GET of an unknown id is 404 not_found", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("GET", `${T}/nope`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "not_found");
      assert.match(res.body.error.message, /nope/);
    } finally {
      await f.close();
    }
  });

  it("an invalid spec is 400 naming each field; nothing stored", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("POST", T, { type: "bad type!", maxRetries: -1, colour: "red" });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "invalid_request");
      const paths = res.body.error.issues.map((i: { path: string }) => i.path).sort();
      assert.deepEqual(paths, ["colour", "maxRetries", "type"]);
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });

  it("id in use and duplicate key are 409 conflict", async () => {
    const f = await apiFixture({ start: false });
    try {
      assert.equal((await f.call("POST", T, { type: "a", id: "same" })).status, 201);
      const dupId = await f.call("POST", T, { type: "a", id: "same", payload: 2 });
      assert.equal(dupId.status, 409);
      assert.equal(dupId.body.error.code, "conflict");
      assert.equal((await f.call("POST", T, { type: "a", key: "once" })).status, 201);
      const dupKey = await f.call("POST", T, { type: "a", key: "once" });
      assert.equal(dupKey.status, 409);
      assert.match(dupKey.body.error.message, /once/);
      assert.equal(await storedCount(f.s), 2);
    } finally {
      await f.close();
    }
  });

  it("an identical retry with the same custom id is 200 with the stored task", async () => {
    const f = await apiFixture({ start: false });
    try {
      const spec = { type: "a", id: "retry-1", payload: { n: 1, m: [2] }, delay: "1h", key: "k" };
      const first = await f.call("POST", T, spec);
      assert.equal(first.status, 201);
      assert.deepEqual(answer(first.body), { id: "retry-1", status: "scheduled" });
      const again = await f.call("POST", T, { ...spec, payload: { m: [2], n: 1 } });
      assert.equal(again.status, 200);
      assert.deepEqual(answer(again.body), { id: "retry-1", status: "scheduled", existing: true });
      assert.equal(again.headers.get("location"), `${T}/retry-1`);
      const other = await f.call("POST", T, { ...spec, priority: 3 });
      assert.equal(other.status, 409);
      assert.equal(other.body.error.code, "conflict");
      const batch = [{ type: "a", id: "b-1" }, { type: "b", id: "b-2", dependsOn: ["b-1"] }];
      assert.equal((await f.call("POST", `${T}/batch`, batch)).status, 201);
      const batchAgain = await f.call("POST", `${T}/batch`, batch);
      assert.equal(batchAgain.status, 200);
      assert.deepEqual(batchAgain.body.tasks.map((t: { existing: boolean }) => t.existing), [
        true,
        true,
      ]);
      const mixed = await f.call("POST", `${T}/batch`, [...batch, { type: "c", id: "b-3" }]);
      assert.equal(mixed.status, 409, "a batch with a new task is not a retry");
      assert.equal(await storedCount(f.s), 3);
    } finally {
      await f.close();
    }
  });
});

describe("api: batch", () => {
  it("stores every spec and answers each id", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("POST", `${T}/batch`, [
        { type: "a", id: "parent" },
        { type: "b", dependsOn: ["parent"] },
        { type: "c", every: "5m" },
      ]);
      assert.equal(res.status, 201);
      assert.equal(res.body.tasks.length, 3);
      assert.deepEqual(res.body.tasks[0], { id: "parent", status: "queued" });
      assert.equal(res.body.tasks[1].status, "waiting");
      assert.equal(res.body.tasks[2].status, "active");
      assert.equal(typeof res.body.tasks[2].nextRunAt, "number");
      assert.equal(await storedCount(f.s), 2);
    } finally {
      await f.close();
    }
  });

  it("400 lists each bad index and field, and stores none", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("POST", `${T}/batch`, [
        { type: "ok" },
        { type: "ok", delay: "soon" },
        { type: "ok" },
        { payload: 1 },
      ]);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "invalid_request");
      const paths = res.body.error.issues.map((i: { path: string }) => i.path);
      assert.deepEqual(paths, ["[1].delay", "[3].type"]);
      assert.equal(await storedCount(f.s), 0);
      const one = await f.call("POST", `${T}/batch`, [{ type: 7 }]);
      assert.equal(one.body.error.issues[0].path, "[0].type");
    } finally {
      await f.close();
    }
  });

  it("a conflict inside the batch (repeated id or key) stores none (409)", async () => {
    const f = await apiFixture({ start: false });
    try {
      const ids = await f.call("POST", `${T}/batch`, [{ type: "a", id: "x" }, {
        type: "a",
        id: "x",
      }]);
      assert.equal(ids.status, 409);
      assert.match(ids.body.error.message, /\[0\] and \[1\]/);
      const keys = await f.call("POST", `${T}/batch`, [{ type: "a", key: "k" }, {
        type: "a",
        key: "k",
      }]);
      assert.equal(keys.status, 409);
      assert.equal(keys.body.error.code, "conflict");
      assert.equal(await storedCount(f.s), 0);
    } finally {
      await f.close();
    }
  });

  it("rejects a non-array, an empty array and more than 1000 specs", async () => {
    const f = await apiFixture({ start: false });
    try {
      for (
        const body of [{ type: "a" }, [], "x", Array.from({ length: 1001 }, () => ({ type: "a" }))]
      ) {
        const res = await f.call("POST", `${T}/batch`, JSON.stringify(body));
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 40));
        assert.equal(res.body.error.code, "invalid_request");
      }
      const max = await f.call(
        "POST",
        `${T}/batch`,
        Array.from({ length: 1000 }, () => ({ type: "a" })),
      );
      assert.equal(max.status, 201);
      assert.equal(max.body.tasks.length, 1000);
    } finally {
      await f.close();
    }
  });
});

describe("api: list", () => {
  it("filters by status, type, pool and q, and pages with cursor", async () => {
    const f = await apiFixture({ start: false });
    try {
      for (let i = 0; i < 5; i++) {
        await f.call("POST", T, { type: "email", payload: { to: `user${i}@x.io` } });
      }
      await f.call("POST", T, { type: "report", pool: "background", delay: "1h" });
      const all = await f.call("GET", T);
      assert.equal(all.status, 200);
      assert.deepEqual(Object.keys(all.body).sort(), ["next", "tasks"]);
      assert.equal(all.body.tasks.length, 6);
      assert.equal(all.body.next, null);
      assert.equal(all.body.tasks[0].type, "report", "newest first");

      const byType = await f.call("GET", `${T}?type=email`);
      assert.equal(byType.body.tasks.length, 5);
      const byPool = await f.call("GET", `${T}?pool=background`);
      assert.deepEqual(byPool.body.tasks.map((t: { type: string }) => t.type), ["report"]);
      const byStatus = await f.call("GET", `${T}?status=scheduled`);
      assert.equal(byStatus.body.tasks.length, 1);
      const several = await f.call("GET", `${T}?status=scheduled,queued`);
      assert.equal(several.body.tasks.length, 6);
      const repeated = await f.call("GET", `${T}?status=scheduled&status=queued`);
      assert.equal(repeated.body.tasks.length, 6);
      const q = await f.call("GET", `${T}?q=USER3`);
      assert.equal(q.body.tasks.length, 1);
      assert.deepEqual(q.body.tasks[0].payload, { to: "user3@x.io" });

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await f.call(
          "GET",
          `${T}?type=email&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        assert.equal(page.status, 200);
        assert.ok(page.body.tasks.length <= 2);
        seen.push(...page.body.tasks.map((t: { id: string }) => t.id));
        cursor = page.body.next;
      } while (cursor);
      assert.equal(seen.length, 5);
      assert.equal(new Set(seen).size, 5);
    } finally {
      await f.close();
    }
  });

  it("validates query parameters: 400 naming the parameter", async () => {
    const f = await apiFixture({ start: false });
    try {
      const cases: [string, string][] = [
        ["status=finished", "status"],
        ["status=queued,bogus", "status"],
        ["limit=0", "limit"],
        ["limit=1001", "limit"],
        ["limit=ten", "limit"],
        ["type=has%20space", "type"],
        ["pool=a%2Fb", "pool"],
        [`q=${"x".repeat(300)}`, "q"],
        ["stauts=dead", "stauts"],
      ];
      for (const [query, param] of cases) {
        const res = await f.call("GET", `${T}?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, "invalid_request");
        assert.equal(res.body.error.issues[0].path, param, query);
      }
    } finally {
      await f.close();
    }
  });
});

describe("api: a task's workflow", () => {
  it("GET /tasks/:id lists its parents and pages its children, each with its status", async () => {
    const f = await apiFixture({ start: false });
    try {
      const call = (body: unknown) => f.call("POST", "/skedulr/api/tasks", body);
      await call({ type: "t", id: "a" });
      await call({ type: "t", id: "b" });
      await call({ type: "t", id: "c", dependsOn: ["a", "b"], onFailureOf: "a" });
      for (let i = 0; i < 5; i++) await call({ type: "t", id: `k${i}`, dependsOn: ["a"] });
      const c = (await f.call("GET", "/skedulr/api/tasks/c")).body;
      assert.deepEqual(c.parents, [
        { id: "a", relation: "dependsOn", status: "queued" },
        { id: "b", relation: "dependsOn", status: "queued" },
        { id: "a", relation: "onFailureOf", status: "queued" },
      ]);
      assert.deepEqual(c.children, []);
      assert.equal(c.childrenNext, null);
      const first = (await f.call("GET", "/skedulr/api/tasks/a?childrenLimit=4")).body;
      assert.deepEqual(first.children.map((t: { id: string }) => t.id), ["c", "k0", "k1", "k2"]);
      assert.ok(first.children.every((t: { status: string }) => t.status === "waiting"));
      const cursor = encodeURIComponent(first.childrenNext);
      const second = (await f.call("GET", `/skedulr/api/tasks/a?childrenCursor=${cursor}`)).body;
      assert.deepEqual(second.children.map((t: { id: string }) => t.id), ["k3", "k4"]);
      assert.equal(second.childrenNext, null);
      const bad = await f.call("GET", "/skedulr/api/tasks/a?childrenLimit=500");
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.issues[0].path, "childrenLimit");
    } finally {
      await f.close();
    }
  });
});

describe("api: waiting for a task", () => {
  it("GET /tasks/:id/wait answers once the task is final, or its record at the timeout", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const f = await apiFixture({ handlers: { slow: () => gate, quick: () => "done" } });
    try {
      const quick = (await f.call("POST", T, { type: "quick" })).body.id;
      await f.until(quick, "succeeded");
      const done = await f.call("GET", `${T}/${quick}/wait`);
      assert.equal(done.status, 200);
      assert.equal(done.body.status, "succeeded");
      const slow = (await f.call("POST", T, { type: "slow" })).body.id;
      await f.until(slow, "running");
      const early = await f.call("GET", `${T}/${slow}/wait?timeout=200ms`);
      assert.equal(early.status, 200);
      assert.equal(early.body.status, "running", "the current record at the timeout");
      const asked = Date.now();
      const waiting = f.call("GET", `${T}/${slow}/wait?timeout=10s`);
      release();
      const answer = await waiting;
      assert.equal(answer.status, 200);
      assert.equal(answer.body.status, "succeeded");
      assert.ok(Date.now() - asked < 5_000, "answered when it ended, not at the timeout");
      assert.equal((await f.call("GET", `${T}/nope/wait`)).status, 404);
      const bad = await f.call("GET", `${T}/${slow}/wait?timeout=2h`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.issues[0].path, "timeout");
    } finally {
      await f.close();
    }
  });
});
