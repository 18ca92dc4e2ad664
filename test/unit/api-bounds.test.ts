/**
 * The "Input bounds" findings of issue 12 through the HTTP API: dotted ids, a 1 ms `every`,
 * pools created by any `POST /pools/{name}`, `__proto__` as a pool, lone surrogates in
 * bodies, and task error stacks that showed the server's absolute paths.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { configureErrorStacks, MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { createApp } from "../../routes/app.ts";
import { apiFixture, storedCount } from "../helpers/api-app.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const A = "/skedulr/api";
const T = `${A}/tasks`;
const JSON_TYPE = { "content-type": "application/json" };
/** `record[key]` only when it is the record's own (an inherited `constructor` is not a pool). */
const own = <T>(record: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
const issuePaths = (body: { error: { issues?: { path: string }[] } }) =>
  body.error.issues?.map((i) => i.path);

describe("api bounds: ids and intervals", () => {
  it("refuses ids that are only dots with 400 naming id, and stores nothing", async () => {
    const f = await apiFixture({ start: false });
    try {
      for (const id of [".", "..", "...", "a/b"]) {
        const res = await f.call("POST", T, { type: "x", id });
        assert.equal(res.status, 400, id);
        assert.deepEqual(issuePaths(res.body), ["id"], id);
        const batch = await f.call("POST", `${T}/batch`, [{ type: "x", id }]);
        assert.deepEqual(issuePaths(batch.body), ["[0].id"], id);
      }
      assert.equal(await storedCount(f.s), 0);
      const ok = await f.call("POST", T, { type: "x", id: ".a.b" });
      assert.equal(ok.status, 201);
      assert.equal((await f.call("GET", `${T}/.a.b`)).body.id, ".a.b");
    } finally {
      await f.close();
    }
  });

  it("refuses every below the minimum interval (1 s), naming every; a 1 s cron is allowed", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("POST", T, { type: "x", every: "1ms" });
      assert.equal(res.status, 400);
      assert.deepEqual(issuePaths(res.body), ["every"]);
      assert.match(res.body.error.message, /every: must be at least 1s/);
      assert.equal((await f.s.listSchedules()).length, 0);
      assert.equal((await f.call("POST", T, { type: "x", cron: "* * * * * *" })).status, 201);
      assert.equal((await f.call("POST", T, { type: "x", every: "1s" })).status, 201);
    } finally {
      await f.close();
    }
  });
});

describe("api bounds: pools", () => {
  it("POST /pools/:name answers 404 for a pool no instance runs, and creates nothing", async () => {
    const f = await apiFixture({ handlers: { x: () => 1 } });
    try {
      for (const name of ["constructor", "1e309", "toString"]) {
        const res = await f.call("POST", `${A}/pools/${name}`, { concurrency: 3 });
        assert.equal(res.status, 404, name);
        assert.equal(res.body.error.code, "not_found");
        assert.match(res.body.error.message, new RegExp(`Pool "${name}" was not found`));
      }
      const pools = (await f.call("GET", `${A}/stats`)).body.pools;
      assert.deepEqual(Object.keys(pools), ["default"]);
      assert.deepEqual(await f.s.storage.poolControls(), []);
      const bad = await f.call("POST", `${A}/pools/__proto__`, { concurrency: 1 });
      assert.equal(bad.status, 400);
      assert.deepEqual(issuePaths(bad.body), ["name"]);
      assert.equal((await f.call("POST", `${A}/pools/default`, { concurrency: 2 })).status, 200);
    } finally {
      await f.close();
    }
  });

  it("an API-only node sizes a pool configured on a live worker (seen by its heartbeat)", async () => {
    const storage = new MemoryStorage();
    const worker = new Scheduler({ storage, logger: silentLogger, pools: { constructor: 1 } });
    await worker.start();
    const node = new Scheduler({ storage, logger: silentLogger, pools: {} });
    const app = createApp({ scheduler: node });
    try {
      await eventually(async () => (await node.workers()).length === 1, "the worker's heartbeat");
      const res = await app.request(`${A}/pools/constructor`, {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ concurrency: 3 }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      await eventually(async () => own((await worker.stats()).pools, "constructor")?.size === 3);
      const stats = await node.stats();
      assert.equal(own(stats.pools, "constructor")?.size, 3);
      assert.ok(Object.hasOwn(stats.pools, "constructor"));
    } finally {
      await worker.shutdown({ timeoutMs: 0 });
      await storage.close();
    }
  });

  it('"pool": "__proto__" is refused with 400 naming pool; stats keep every pool', async () => {
    const f = await apiFixture({ start: false, pools: { default: 1, constructor: 1 } });
    try {
      const res = await f.call("POST", T, { type: "x", pool: "__proto__" });
      assert.equal(res.status, 400);
      assert.deepEqual(issuePaths(res.body), ["pool"]);
      assert.equal((await f.call("POST", T, { type: "x", pool: "valueOf" })).status, 201);
      const { pools } = (await f.call("GET", `${A}/stats`)).body;
      assert.deepEqual(Object.keys(pools).sort(), ["constructor", "default", "valueOf"]);
      assert.deepEqual(pools.valueOf, {
        size: 0,
        running: 0,
        queued: 1,
        parked: 0,
        paused: false,
        globalConcurrency: null,
        rateLimit: null,
        startsInWindow: 0,
      });
      const metrics = (await f.call("GET", "/skedulr/metrics")).text;
      assert.match(metrics, /skedulr_pool_queued\{pool="valueOf"\} 1/);
      assert.match(metrics, /skedulr_pool_size\{pool="constructor"\} 1/);
    } finally {
      await f.close();
    }
  });
});

describe("api bounds: well-formed Unicode", () => {
  it("refuses a lone surrogate in any JSON body with 400 naming the field", async () => {
    const f = await apiFixture({ start: false });
    try {
      const cases: [string, string, string[]][] = [
        [T, '{"type":"x","payload":{"note":"\\ud800"}}', ["payload.note"]],
        [T, '{"type":"x","payload":{"list":["ok","a\\udc00b"]}}', ["payload.list.1"]],
        [T, '{"type":"x","payload":{"\\ud83d":1}}', ["payload"]],
        [`${T}/batch`, '[{"type":"x"},{"type":"x","key":"\\udfff"}]', ["[1].key"]],
        [`${A}/pause`, '{"pool":"\\ud800"}', ["pool"]],
        [`${T}/nope/cancel`, '{"reason":"\\ud800"}', ["reason"]],
      ];
      for (const [path, body, expected] of cases) {
        const res = await f.raw(path, { method: "POST", headers: JSON_TYPE, body });
        assert.equal(res.status, 400, body);
        assert.equal(res.body.error.code, "invalid_request");
        assert.deepEqual(issuePaths(res.body), expected, body);
        assert.ok(!/\\u[dD][89a-fA-F]/.test(res.text), `no surrogate escapes echoed: ${res.text}`);
      }
      assert.equal(await storedCount(f.s), 0);
      const emoji = await f.call("POST", T, { type: "x", payload: { note: "😀 \u{10FFFF}" } });
      assert.equal(emoji.status, 201);
      const stored = await f.call("GET", `${T}/${emoji.body.id}`);
      assert.equal(stored.body.payload.note, "😀 \u{10FFFF}");
    } finally {
      await f.close();
    }
  });
});

describe("api bounds: error stacks", () => {
  it("GET /tasks/:id shows a stack with paths relative to the working directory, or none", async () => {
    const before = configureErrorStacks({ root: process.cwd() });
    const f = await apiFixture({
      handlers: {
        fail: () => {
          throw new Error("nope");
        },
      },
    });
    try {
      const { body } = await f.call("POST", T, { type: "fail" });
      const task = await f.until(body.id, "dead");
      const stack = task.error!.stack!;
      assert.match(stack, /test\/unit\/api-bounds\.test\.ts:\d+:\d+/);
      assert.ok(!stack.includes(process.cwd()), stack);
      assert.ok(!/(^|[\s(])(\/|file:)/m.test(stack), stack);

      configureErrorStacks({ keep: false });
      const second = await f.call("POST", T, { type: "fail" });
      const bare = await f.until(second.body.id, "dead");
      assert.deepEqual(bare.error, { message: "nope" });
      const history = (await f.call("GET", `${A}/history?status=dead`)).body.attempts;
      assert.ok(history.some((a: { error: object }) => !("stack" in a.error)));
    } finally {
      configureErrorStacks(before);
      await f.close();
    }
  });
});
