/**
 * HTTP API, docs and observability: openapi.json from the valibot schemas, the docs page,
 * healthz, Prometheus metrics, the `/skedulr` page and the dashboard hook.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { renderMetrics } from "../../routes/metrics.ts";
import { MemoryStorage, Scheduler, silentLogger, TaskSpecSchema } from "../../src/mod.ts";
import { apiFixture } from "../helpers/api-app.ts";
import { VERSION } from "../../src/version.ts";
import type { TaskRecord } from "../../src/core/task.ts";
import { eventually, gate } from "../../scripts/tools/wait.ts";

const ROUTES: [string, string][] = [
  ["post", "/skedulr/api/tasks"],
  ["get", "/skedulr/api/tasks"],
  ["post", "/skedulr/api/tasks/batch"],
  ["get", "/skedulr/api/tasks/{id}"],
  ["post", "/skedulr/api/tasks/{id}/cancel"],
  ["post", "/skedulr/api/tasks/{id}/resubmit"],
  ["post", "/skedulr/api/tasks/resubmit"],
  ["get", "/skedulr/api/schedules"],
  ["delete", "/skedulr/api/schedules/{id}"],
  ["get", "/skedulr/api/workers"],
  ["get", "/skedulr/api/stats"],
  ["post", "/skedulr/api/pause"],
  ["post", "/skedulr/api/resume"],
  ["post", "/skedulr/api/pools/{name}"],
  ["get", "/skedulr/api/history"],
  ["get", "/skedulr/api/openapi.json"],
  ["get", "/skedulr/api/docs"],
  ["get", "/skedulr/healthz"],
  ["get", "/skedulr/metrics"],
];

/** Every `$ref` in a document, to check each resolves. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe("api docs", () => {
  it("openapi.json is valid JSON describing every route, with the task schema", async () => {
    const f = await apiFixture({ start: false, version: "9.9.9" });
    try {
      const res = await f.call("GET", "/skedulr/api/openapi.json");
      assert.equal(res.status, 200);
      const doc = JSON.parse(res.text);
      assert.equal(doc.openapi, "3.1.0");
      assert.equal(doc.info.version, "9.9.9");
      for (const [method, path] of ROUTES) {
        assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} documented`);
      }
      const spec = doc.components.schemas.TaskSpec;
      assert.equal(spec.type, "object");
      assert.deepEqual(spec.required, ["type"]);
      assert.equal(spec.additionalProperties, false);
      assert.deepEqual(
        Object.keys(spec.properties).sort(),
        Object.keys(TaskSpecSchema.entries).sort(),
      );
      assert.equal(spec.properties.maxRetries.type, "integer");
      assert.equal(spec.properties.maxRetries.maximum, 1000);
      assert.equal(spec.$schema, undefined);
      const post = doc.paths["/skedulr/api/tasks"].post;
      assert.equal(
        post.requestBody.content["application/json"].schema.$ref,
        "#/components/schemas/TaskSpec",
      );
      assert.ok(post.responses["201"] && post.responses["400"] && post.responses["409"]);
      assert.equal(doc.components.schemas.TaskBatch.maxItems, 1000);
      assert.deepEqual(doc.components.schemas.BulkResubmit.properties.status.enum, [
        "dead",
        "cancelled",
        "expired",
      ]);
      assert.equal(doc.components.schemas.PoolSize.properties.concurrency.maximum, 10_000);
      for (const ref of refs(doc)) {
        const name = ref.replace("#/components/schemas/", "");
        assert.ok(doc.components.schemas[name], `${ref} resolves`);
      }
      assert.equal(doc.components.securitySchemes, undefined, "no token: no security schemes");
    } finally {
      await f.close();
    }
  });

  it("with a token the document declares bearer and cookie security", async () => {
    const f = await apiFixture({ start: false, token: "t" });
    try {
      const doc = (await f.call("GET", "/skedulr/api/openapi.json", undefined, {
        authorization: "Bearer t",
      })).body;
      assert.equal(doc.components.securitySchemes.bearer.scheme, "bearer");
      assert.equal(doc.components.securitySchemes.cookie.name, "skedulr_token");
      assert.deepEqual(doc.paths["/skedulr/healthz"].get.security, []);
      assert.ok(doc.paths["/skedulr/api/stats"].get.responses["401"]);
    } finally {
      await f.close();
    }
  });

  it("the docs page is self-contained HTML listing every path", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("GET", "/skedulr/api/docs");
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /text\/html/);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      assert.doesNotMatch(res.text, /<script|https?:\/\/(?!json-schema)/);
      for (const [, path] of ROUTES) assert.ok(res.text.includes(path), path);
      const page = await f.call("GET", "/skedulr");
      assert.equal(page.status, 200);
      assert.match(page.text, /href="\/skedulr\/api\/docs"/);
    } finally {
      await f.close();
    }
  });
});

describe("api healthz", () => {
  it("200 { ok: true, storage } when the store answers, 503 when it does not", async () => {
    const f = await apiFixture({ start: false });
    try {
      const res = await f.call("GET", "/skedulr/healthz");
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { ok: true, storage: "memory" });
    } finally {
      await f.close();
    }
    for (const ping of [() => Promise.resolve(false), () => Promise.reject(new Error("down"))]) {
      const storage = new MemoryStorage();
      storage.ping = ping;
      const app = createApp({ scheduler: new Scheduler({ storage, logger: silentLogger }) });
      const res = await app.request("/skedulr/healthz");
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "1");
      const body = await res.json();
      assert.deepEqual({ ...body, error: undefined }, {
        ok: false,
        storage: "memory",
        error: undefined,
      });
      assert.match(body.error, /unreachable|down/);
    }
  });
});

describe("api metrics", () => {
  it("Prometheus text: status counts, pools, totals, per-type durations", async () => {
    const f = await apiFixture({
      handlers: {
        ok: () => "fine",
        bad: () => {
          throw new Error("x");
        },
      },
      pools: { default: 4, critical: 2 },
    });
    try {
      const a = (await f.call("POST", "/skedulr/api/tasks", { type: "ok" })).body.id;
      const b = (await f.call("POST", "/skedulr/api/tasks", { type: "bad" })).body.id;
      await f.until(a, "succeeded");
      await f.until(b, "dead");
      await f.call("POST", "/skedulr/api/pause", { pool: "critical" });
      const res = await f.call("GET", "/skedulr/metrics");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
      const lines = res.text.trimEnd().split("\n");
      for (
        const want of [
          'skedulr_tasks{status="succeeded"} 1',
          'skedulr_tasks{status="dead"} 1',
          'skedulr_tasks{status="queued"} 0',
          'skedulr_pool_size{pool="default"} 4',
          'skedulr_pool_size{pool="critical"} 2',
          'skedulr_pool_paused{pool="critical"} 1',
          'skedulr_pool_paused{pool="default"} 0',
          'skedulr_pool_running{pool="default"} 0',
          'skedulr_pool_queued{pool="default"} 0',
          "skedulr_attempts_total 2",
          "skedulr_attempts_succeeded_total 1",
          "skedulr_attempts_failed_total 1",
          "skedulr_tasks_dead_total 1",
          'skedulr_task_duration_samples{type="ok"} 1',
        ]
      ) assert.ok(lines.includes(want), want);
      assert.ok(
        lines.some((l) => l.startsWith('skedulr_task_duration_seconds{type="ok",quantile="0.5"} ')),
      );
      assert.ok(lines.some((l) => /^skedulr_workers [1-9]/.test(l)));
      const sample =
        /^[a-z_]+(\{[a-z_]+="(?:[^"\\]|\\.)*"(,[a-z_]+="(?:[^"\\]|\\.)*")*\})? -?[0-9.e+-]+$/;
      for (const line of lines) {
        if (line.startsWith("#")) assert.match(line, /^# (HELP|TYPE) skedulr_[a-z_]+ /);
        else assert.match(line, sample);
      }
    } finally {
      await f.close();
    }
  });

  it("escapes label values", () => {
    const text = renderMetrics({
      byStatus: {} as never,
      pools: {
        'we"ird\\pool\n': {
          size: 1,
          running: 0,
          queued: 0,
          parked: 0,
          paused: false,
          globalConcurrency: null,
          rateLimit: null,
          startsInWindow: 0,
        },
      },
      totals: { succeeded: 0, failedAttempts: 0, dead: 0, stalled: 0, expired: 0 },
      durations: {},
      flowKeys: [],
    }, []);
    assert.ok(text.includes('skedulr_pool_size{pool="we\\"ird\\\\pool\\n"} 1'));
  });

  it("exports each pool's cluster-wide limits and their usage", () => {
    const pool = { size: 5, running: 3, queued: 9, parked: 0, paused: false, startsInWindow: 4 };
    const text = renderMetrics({
      byStatus: {} as never,
      pools: {
        emails: { ...pool, globalConcurrency: 3, rateLimit: { max: 5, perMs: 500 } },
        plain: { ...pool, globalConcurrency: null, rateLimit: null, startsInWindow: 0 },
      },
      totals: { succeeded: 0, failedAttempts: 0, dead: 0, stalled: 0, expired: 0 },
      durations: {},
      flowKeys: [],
    }, []);
    for (
      const line of [
        'skedulr_pool_global_concurrency{pool="emails"} 3',
        'skedulr_pool_rate_limit{pool="emails"} 5',
        'skedulr_pool_rate_window_seconds{pool="emails"} 0.5',
        'skedulr_pool_rate_window_starts{pool="emails"} 4',
        'skedulr_pool_running{pool="emails"} 3',
      ]
    ) assert.ok(text.includes(line), line);
    assert.ok(!text.includes('skedulr_pool_rate_limit{pool="plain"}'));
  });
});

describe("api waiting, made visible", () => {
  it("a parked task's waitingFor, the busy key in /stats, parked and busy keys in /metrics", async () => {
    const g = gate();
    const f = await apiFixture({ handlers: { hold: () => g.promise }, pools: { default: 4 } });
    try {
      const flowControl = { key: "tenant-1", parallelism: 1 };
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(
          (await f.call("POST", "/skedulr/api/tasks", { type: "hold", flowControl })).body.id,
        );
      }
      await f.until(ids[0], "running");
      await eventually(async () =>
        (await f.call("GET", `/skedulr/api/tasks/${ids[2]}`)).body.waitingFor === "parallelism"
      );
      const stats = (await f.call("GET", "/skedulr/api/stats")).body;
      assert.equal(stats.pools.default.parked, 2);
      assert.deepEqual(stats.flowKeys, [
        { key: "tenant-1", parallelism: 1, rate: null, periodMs: null, running: 1, parked: 2 },
      ]);
      const metrics = (await f.call("GET", "/skedulr/metrics")).text.split("\n");
      for (const want of ['skedulr_pool_parked{pool="default"} 2', "skedulr_flow_keys_busy 1"]) {
        assert.ok(metrics.includes(want), want);
      }
      assert.ok(metrics.some((l) => /^# HELP skedulr_flow_keys_busy .*no per-key label/.test(l)));

      // A pool at its global limit: the queued task says so, through the API.
      await f.call("POST", "/skedulr/api/pools/default", { globalConcurrency: 1 });
      const other = (await f.call("POST", "/skedulr/api/tasks", { type: "hold" })).body.id;
      const listed = (await f.call("GET", "/skedulr/api/tasks?status=queued")).body.tasks;
      const why = Object.fromEntries(listed.map((t: TaskRecord) => [t.id, t.waitingFor]));
      assert.deepEqual(why, {
        [ids[1]]: "parallelism",
        [ids[2]]: "parallelism",
        [other]: "pool_limit",
      });
      g.open();
      for (const id of [...ids, other]) await f.until(id, "succeeded");
      assert.deepEqual((await f.call("GET", "/skedulr/api/stats")).body.flowKeys, []);
    } finally {
      g.open();
      await f.close();
    }
  });
});

describe("api dashboard hook", () => {
  it("mounts the dashboard under /skedulr with the same guard", async () => {
    const scheduler = new Scheduler({ logger: silentLogger });
    const app = createApp({
      scheduler,
      token: "t",
      dashboard: (root, tools) => {
        root.get("/", tools.requireAuth, (c) => c.text(`dashboard ${tools.version}`));
      },
    });
    assert.equal((await app.request("/skedulr")).status, 401);
    const res = await app.request("/skedulr", { headers: { authorization: "Bearer t" } });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), `dashboard ${VERSION}`);
    assert.equal((await app.request("/skedulr/healthz")).status, 200);
  });
});
