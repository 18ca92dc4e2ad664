/**
 * The input bounds of the library (issue 12, "Bounds, one place"): the name pattern of ids,
 * types and pools; the minimum interval of `every` and cron; well-formed Unicode in every
 * string of a spec; error stacks without absolute paths; the variables that set them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Cron } from "croner";
import {
  configureErrorStacks,
  MemoryStorage,
  parseWorkerConfig,
  Scheduler,
  silentLogger,
  ValidationError,
} from "../../src/mod.ts";
import { isName, NAME_PATTERN } from "../../src/core/ids.ts";
import { collectSpecIssues } from "../../src/core/task-schema.ts";
import {
  cronMinGapMs,
  isWellFormed,
  isWellFormedByPattern,
  textIssues,
} from "../../src/core/bounds.ts";
import { stripStackPaths } from "../../src/core/stack-paths.ts";
import { toErrorInfo } from "../../src/core/errors.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const paths = (spec: unknown, bounds = {}) =>
  collectSpecIssues(spec, "", bounds).map((i) => i.path);

describe("bounds: names (ids, types, pools)", () => {
  it("refuses ids that are only dots (URL paths normalise them away), or hold a slash", () => {
    for (const id of [".", "..", "...", "a/b", "/", "a b", "x".repeat(129), ""]) {
      assert.deepEqual(paths({ type: "t", id }), ["id"], JSON.stringify(id));
    }
    for (const id of ["a.b", ".a", "a..", "..a", "x".repeat(128), "0mx2-abc", "a:b_c-d"]) {
      assert.deepEqual(paths({ type: "t", id }), [], JSON.stringify(id));
    }
  });

  it("refuses names starting with __ (__proto__ and kin), anywhere a name goes", () => {
    for (const field of ["type", "id", "pool", "onSuccessOf", "onFailureOf"]) {
      const spec = { type: "t", [field]: "__proto__" };
      assert.deepEqual(paths(spec), [field], field);
    }
    assert.deepEqual(paths({ type: "t", dependsOn: ["ok", "__defineGetter__"] }), ["dependsOn.1"]);
    // Inherited names that are not special as keys are ordinary names.
    for (const name of ["constructor", "toString", "hasOwnProperty", "valueOf", "_x", "a__b"]) {
      assert.ok(isName(name), name);
      assert.deepEqual(paths({ type: name, pool: name }), [], name);
    }
  });

  it("a Scheduler refuses a bad pool name in its options and in scalePool", async () => {
    assert.throws(
      () => new Scheduler({ pools: { "__proto__x": 1 }, logger: silentLogger }),
      (e: unknown) => e instanceof ValidationError && e.issues[0].path === "pools.__proto__x",
    );
    const s = new Scheduler({ logger: silentLogger });
    await assert.rejects(s.scalePool("..", 1), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.issues[0].path, "pool");
      return true;
    });
    await s.shutdown();
  });

  it("SKEDULR_POOLS takes the same pattern, and builds no plain-object keys", () => {
    for (const bad of ["__proto__=3", "..=1", "a/b=1"]) {
      assert.throws(() => parseWorkerConfig({ SKEDULR_POOLS: bad }), /SKEDULR_POOLS/, bad);
    }
    const { pools } = parseWorkerConfig({ SKEDULR_POOLS: "constructor=2,toString=1" });
    assert.deepEqual(Object.entries(pools), [["constructor", 2], ["toString", 1]]);
    assert.equal(NAME_PATTERN.test("__proto__"), false);
  });
});

describe("bounds: minimum interval", () => {
  it("refuses every below 1 s by default, naming every", () => {
    for (const every of ["1ms", 999, "0.5s"]) {
      const issues = collectSpecIssues({ type: "t", every });
      assert.deepEqual(issues.map((i) => i.path), ["every"], String(every));
      assert.match(issues[0].message, /at least 1s .*SKEDULR_MIN_INTERVAL/);
    }
    assert.deepEqual(paths({ type: "t", every: "1s" }), []);
    assert.deepEqual(paths({ type: "t", every: 1000 }), []);
  });

  it("a cron firing every second is exactly the default floor: allowed; a higher floor refuses it", () => {
    assert.deepEqual(paths({ type: "t", cron: "* * * * * *" }), []);
    const floor = { minIntervalMs: 5_000 };
    assert.deepEqual(paths({ type: "t", cron: "* * * * * *" }, floor), ["cron"]);
    assert.deepEqual(paths({ type: "t", cron: "*/2 * * * * *" }, floor), ["cron"]);
    assert.deepEqual(paths({ type: "t", cron: "*/5 * * * * *" }, floor), []);
    assert.deepEqual(paths({ type: "t", cron: "0,3 0 * * * *" }, floor), ["cron"]);
    assert.deepEqual(paths({ type: "t", cron: "0 * * * *" }, { minIntervalMs: 3_600_000 }), []);
    assert.deepEqual(paths({ type: "t", every: "4s" }, floor), ["every"]);
    assert.deepEqual(paths({ type: "t", every: "1ms" }, { minIntervalMs: 0 }), []);
  });

  it("the smallest cron gap matches the next occurrences, sampled", () => {
    const cases = [
      "* * * * * *",
      "*/7 * * * * *",
      "0 */7 * * * *",
      "10,50 59 * * * *",
      "58,59 59 23 * * *",
      "0 0 9 * * 1-5",
      "0,30 0 0,12 * * *",
      "15 5 */5 * * *",
      "@hourly",
    ];
    for (const expression of cases) {
      const runs = new Cron(expression, { timezone: "UTC", paused: true })
        .nextRuns(1500, new Date(Date.UTC(2026, 0, 5)));
      let sampled = Infinity;
      for (let i = 1; i < runs.length; i++) {
        sampled = Math.min(sampled, runs[i].getTime() - runs[i - 1].getTime());
      }
      assert.equal(cronMinGapMs(expression, "UTC"), sampled, expression);
    }
  });

  it("a Scheduler enforces minIntervalMs at submit; SKEDULR_MIN_INTERVAL sets it", async () => {
    const s = new Scheduler({ logger: silentLogger, minIntervalMs: 60_000 });
    await assert.rejects(s.submit({ type: "t", every: "30s" }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.deepEqual(e.issues.map((i) => i.path), ["every"]);
      return true;
    });
    await assert.rejects(s.scheduleCron({ type: "t" }, "*/10 * * * * *"), /cron: fires 10s apart/);
    assert.match(await s.submit({ type: "t", every: "1m" }), /^sch_/);
    await s.shutdown();
    assert.equal(parseWorkerConfig({}).minIntervalMs, 1_000);
    assert.equal(parseWorkerConfig({ SKEDULR_MIN_INTERVAL: "10s" }).minIntervalMs, 10_000);
    assert.equal(parseWorkerConfig({ SKEDULR_MIN_INTERVAL: "0" }).minIntervalMs, 0);
    assert.throws(
      () => parseWorkerConfig({ SKEDULR_MIN_INTERVAL: "soon" }),
      /SKEDULR_MIN_INTERVAL/,
    );
    assert.throws(() => new Scheduler({ minIntervalMs: NaN }), /minIntervalMs/);
  });
});

describe("bounds: well-formed Unicode", () => {
  it("refuses a lone surrogate anywhere in a spec, naming the field", () => {
    assert.deepEqual(paths({ type: "t", payload: { note: "\ud800" } }), ["payload.note"]);
    assert.deepEqual(paths({ type: "t", payload: ["ok", { a: ["x", "a\udc00"] }] }), [
      "payload.1.a.1",
    ]);
    assert.deepEqual(paths({ type: "t", payload: { ["k\ud83d"]: 1 } }), ["payload"]);
    assert.deepEqual(paths({ type: "t", key: "\udfff" }), ["key"]);
    assert.deepEqual(paths({ type: "t", cron: "* * * * *\ud800" }), ["cron"]);
    const batch = collectSpecIssues({ type: "t", payload: "\ud800" }, "[3].");
    assert.deepEqual(batch.map((i) => i.path), ["[3].payload"]);
    // Well-formed text outside the BMP is fine.
    assert.deepEqual(paths({ type: "t", payload: { "k😀": "😀 \u{10FFFF} é \u2028" } }), []);
  });

  it("the fallback for runtimes without isWellFormed agrees with it", () => {
    const samples = [
      "",
      "a",
      "😀",
      "\ud800",
      "\udc00",
      "a\ud83d",
      "\ud83d\ude00\ud83d",
      "\ude00\ud83d",
    ];
    for (const text of samples) {
      const expected = ![...text].some((c) => c.length === 1 && /[\ud800-\udfff]/.test(c));
      assert.equal(isWellFormed(text), expected, JSON.stringify(text));
      assert.equal(isWellFormedByPattern(text), expected, JSON.stringify(text));
    }
  });

  it("walks any depth without recursion, reports at most 10, and survives cycles", () => {
    let deep: unknown = "\ud800";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const [issue] = textIssues(deep);
    assert.ok(issue.path.startsWith("[0].0.0") && issue.path.endsWith("…"));
    assert.equal(textIssues(Array(50).fill("\ud800")).length, 10);
    const cyclic: Record<string, unknown> = { a: "ok" };
    cyclic.self = cyclic;
    assert.deepEqual(textIssues(cyclic), []);
  });
});

describe("bounds: error stacks", () => {
  const stack = [
    "Error: cannot open /etc/app.conf",
    "    at load (/srv/app/src/jobs/load.ts:10:5)",
    "    at async file:///srv/app/node_modules/x/index.js:3:4",
    "    at run (file:///home/ops/.cache/deno/npm/y.js:7:8)",
    "    at C:\\srv\\app\\src\\win.ts:1:2",
    "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
    "    at native",
  ].join("\n");

  it("makes paths under the root relative and cuts the rest to the file name", () => {
    assert.equal(
      stripStackPaths(stack, "/srv/app"),
      [
        "Error: cannot open /etc/app.conf", // the message is the thrower's own words
        "    at load (src/jobs/load.ts:10:5)",
        "    at async node_modules/x/index.js:3:4",
        "    at run (y.js:7:8)",
        "    at win.ts:1:2",
        "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
        "    at native",
      ].join("\n"),
    );
  });

  it("toErrorInfo keeps a stack free of absolute paths, or none when configured", () => {
    const error = new Error("boom");
    error.stack = stack;
    const before = configureErrorStacks({ root: "/srv/app" });
    try {
      const info = toErrorInfo(error);
      assert.equal(info.message, "boom");
      assert.ok(!/\(\/|file:\/\/|at \//.test(info.stack!), String(info.stack));
      configureErrorStacks({ keep: false });
      assert.deepEqual(toErrorInfo(error), { message: "boom" });
    } finally {
      configureErrorStacks(before);
    }
    // Without a root (the library's default), only file names remain.
    assert.ok(toErrorInfo(new Error("x")).stack!.includes("bounds.test.ts"));
    assert.ok(!toErrorInfo(new Error("x")).stack!.includes("/test/unit/"));
  });

  it("SKEDULR_ERROR_STACKS is 1 (default) or 0", () => {
    assert.equal(parseWorkerConfig({}).errorStacks, true);
    assert.equal(parseWorkerConfig({ SKEDULR_ERROR_STACKS: "0" }).errorStacks, false);
    assert.throws(() => parseWorkerConfig({ SKEDULR_ERROR_STACKS: "no" }), /SKEDULR_ERROR_STACKS/);
  });

  it("a failing task keeps its stack without this machine's paths", async () => {
    const storage = new MemoryStorage();
    const s = new Scheduler({ storage, logger: silentLogger, pools: { default: 1 } });
    s.register("fail", () => {
      throw new Error("nope");
    });
    await s.start();
    try {
      const id = await s.submit({ type: "fail" });
      const task = await eventually(async () => {
        const t = await s.get(id);
        return t?.status === "dead" ? t : null;
      }, "the task to be dead");
      assert.equal(task.error?.message, "nope");
      assert.ok(task.error?.stack?.includes("bounds.test.ts"), String(task.error?.stack));
      assert.ok(!/(^|[\s(])(\/|file:)/m.test(task.error!.stack!), String(task.error?.stack));
    } finally {
      await s.shutdown({ timeoutMs: 0 });
      await storage.close();
    }
  });
});
