/**
 * HTTP API, roles: every guarded route declares the role it needs (a walk over the app's
 * routes fails for one that does not), read/submit/admin keys get exactly their routes,
 * a 403 names the role needed, the dashboard shows only what the role allows, and the
 * OpenAPI document and docs/CONTRACT.md say the same.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createApp } from "../../routes/app.ts";
import { dashboard } from "../../routes/dashboard.ts";
import { routeRoles } from "../../routes/roles.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { apiFixture, storedCount } from "../helpers/api-app.ts";
import { makeKey } from "../helpers/keys.ts";

const TOKEN = "roles-admin-token-0123456789";
const A = "/skedulr/api";

/** The rule: reads are read, creating work is submit, the rest admin. */
const EXPECTED: Record<string, string> = {
  [`POST ${A}/tasks`]: "submit",
  [`POST ${A}/tasks/batch`]: "submit",
  [`POST ${A}/tasks/:id/cancel`]: "submit",
  [`POST ${A}/tasks/:id/resubmit`]: "submit",
  [`POST ${A}/tasks/resubmit`]: "admin",
  [`DELETE ${A}/schedules/:id`]: "admin",
  [`PUT ${A}/schedules/:id`]: "admin",
  [`POST ${A}/schedules/:id/pause`]: "admin",
  [`POST ${A}/schedules/:id/resume`]: "admin",
  [`POST ${A}/schedules/:id/trigger`]: "submit",
  [`POST ${A}/pause`]: "admin",
  [`POST ${A}/resume`]: "admin",
  [`POST ${A}/pools/:name`]: "admin",
};

async function roleFixture() {
  const [reader, submitter, admin] = await Promise.all([
    makeKey("grafana", "read"),
    makeKey("ci", "submit"),
    makeKey("ops", "admin"),
  ]);
  const f = await apiFixture({
    start: false,
    token: TOKEN,
    keys: [reader.entry, submitter.entry, admin.entry],
    pools: { default: 2, critical: 1 },
    dashboard,
  });
  return { f, reader, submitter, admin };
}

describe("api roles: every route declares one", () => {
  it("walks the app's routes: each guarded route has the role the rule gives it", () => {
    const scheduler = new Scheduler({ logger: silentLogger });
    const app = createApp({ scheduler, token: TOKEN, dashboard });
    const table = routeRoles(app);
    assert.ok(table.size >= 18, `only ${table.size} guarded routes found`);
    const missing = [...table].filter(([, role]) => role === null).map(([route]) => route);
    assert.deepEqual(missing, [], "routes without a declared role (add role(...) to them)");
    for (const [route, role] of table) {
      const want = EXPECTED[route] ?? (route.startsWith("GET ") ? "read" : "(listed in EXPECTED)");
      assert.equal(role, want, route);
    }
    for (const route of Object.keys(EXPECTED)) assert.ok(table.has(route), `${route} exists`);
  });

  it("a route added without a role is found by the walk and needs admin (fail closed)", async () => {
    const [submitter, admin] = await Promise.all([
      makeKey("ci", "submit"),
      makeKey("ops", "admin"),
    ]);
    const scheduler = new Scheduler({ storage: new MemoryStorage(), logger: silentLogger });
    const app = createApp({
      scheduler,
      keys: [submitter.entry, admin.entry],
      dashboard: (root) => root.get("/api/forgotten", (c) => c.json({ ok: true })),
    });
    assert.equal(routeRoles(app).get(`GET ${A}/forgotten`), null);
    const as = (k: typeof admin) => app.request(`${A}/forgotten`, { headers: k.bearer });
    const refused = await as(submitter);
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).error.message, /needs the admin role/);
    assert.equal((await as(admin)).status, 200);
  });
});

describe("api roles: what each key may do", () => {
  it("read reads; submit also submits, cancels and resubmits one; admin does the rest", async () => {
    const { f, reader, submitter, admin } = await roleFixture();
    try {
      for (const path of ["/stats", "/tasks", "/workers", "/schedules", "/history"]) {
        assert.equal((await f.call("GET", A + path, undefined, reader.bearer)).status, 200, path);
      }
      assert.equal((await f.call("GET", "/skedulr/metrics", undefined, reader.bearer)).status, 200);
      const head = await f.app.request(`${A}/stats`, { method: "HEAD", headers: reader.bearer });
      assert.equal(head.status, 200);

      const denied = await f.call("POST", `${A}/tasks`, { type: "a" }, reader.bearer);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, "forbidden");
      assert.match(denied.body.error.message, /needs the submit role; key "grafana" has the read/);
      assert.equal(await storedCount(f.s), 0, "a refused submit stores nothing");

      const t = await f.call("POST", `${A}/tasks`, { type: "a" }, submitter.bearer);
      assert.equal(t.status, 201);
      const batch = await f.call("POST", `${A}/tasks/batch`, [{ type: "b" }], submitter.bearer);
      assert.equal(batch.status, 201);
      const cancel = `${A}/tasks/${t.body.id}/cancel`;
      assert.equal((await f.call("POST", cancel, {}, reader.bearer)).status, 403);
      assert.equal((await f.call("POST", cancel, {}, submitter.bearer)).status, 200);
      const resubmit = `${A}/tasks/${t.body.id}/resubmit`;
      assert.equal((await f.call("POST", resubmit, {}, submitter.bearer)).status, 200);

      const adminOnly: [string, string, unknown][] = [
        ["POST", `${A}/pause`, {}],
        ["POST", `${A}/resume`, {}],
        ["POST", `${A}/pools/default`, { concurrency: 3 }],
        ["POST", `${A}/tasks/resubmit`, { status: "cancelled" }],
        ["DELETE", `${A}/schedules/nope`, undefined],
      ];
      for (const [method, path, body] of adminOnly) {
        for (const k of [reader, submitter]) {
          const res = await f.call(method, path, body, k.bearer);
          assert.equal(res.status, 403, `${k.entry.name} ${method} ${path}`);
          assert.match(res.body.error.message, /needs the admin role/);
        }
      }
      const paused = await f.s.stats();
      assert.ok(Object.values(paused.pools).every((p) => !p.paused), "nothing paused");
      assert.equal((await f.call("POST", `${A}/pause`, {}, admin.bearer)).status, 200);
      assert.equal(
        (await f.call("POST", `${A}/resume`, {}, { authorization: `Bearer ${TOKEN}` }))
          .status,
        200,
      );
      const del = await f.call("DELETE", `${A}/schedules/nope`, undefined, admin.bearer);
      assert.equal(del.status, 404, "admin gets past the role to the route");
    } finally {
      await f.close();
    }
  });

  it("submit cannot remove a schedule through cancel; admin can", async () => {
    const { f, submitter, admin } = await roleFixture();
    try {
      const sched = await f.call(
        "POST",
        `${A}/tasks`,
        { type: "a", every: "1h" },
        submitter.bearer,
      );
      assert.equal(sched.status, 201, "a submit key creates schedules");
      const path = `${A}/tasks/${sched.body.id}/cancel`;
      const refused = await f.call("POST", path, {}, submitter.bearer);
      assert.equal(refused.status, 403);
      assert.match(refused.body.error.message, /removing schedule .* needs the admin role/);
      assert.equal((await f.s.listSchedules()).length, 1, "still there");
      assert.equal((await f.call("POST", path, {}, admin.bearer)).status, 200);
      assert.equal((await f.s.listSchedules()).length, 0);
      const unknown = await f.call("POST", `${A}/tasks/nope/cancel`, {}, submitter.bearer);
      assert.equal(unknown.status, 404);
    } finally {
      await f.close();
    }
  });

  it("no spelling of an admin route lets a weaker key through", async () => {
    const { f, reader, submitter } = await roleFixture();
    try {
      const spellings = [
        `${A}/pause/`,
        "/skedulr//api/pause",
        "/skedulr/api//pause",
        `${A}/PAUSE`,
        "/SKEDULR/api/pause",
        `${A}/pause;x=1`,
        `${A}/tasks/x/../../pause`,
        `${A}/tasks/%2e%2e/pause`,
        `${A}/%70ause`,
        `${A}/pause?pool=default`,
      ];
      for (const path of spellings) {
        for (const k of [reader, submitter]) {
          const res = await f.call("POST", path, {}, k.bearer);
          assert.ok([403, 404].includes(res.status), `${path} → ${res.status}`);
        }
      }
      for (const method of ["OPTIONS", "HEAD", "PUT", "PATCH"]) {
        const res = await f.app.request(`${A}/pause`, { method, headers: reader.bearer });
        assert.ok([403, 404].includes(res.status), `${method} → ${res.status}`);
      }
      const stats = await f.s.stats();
      assert.ok(Object.values(stats.pools).every((p) => !p.paused), "nothing paused");
    } finally {
      await f.close();
    }
  });
});

describe("api roles: the dashboard and the documents", () => {
  it("the dashboard page carries the role and no admin controls for weaker keys", async () => {
    const { f, reader, submitter, admin } = await roleFixture();
    try {
      const page = async (k: typeof reader) =>
        (await f.call("GET", "/skedulr", undefined, k.bearer)).text;
      const read = await page(reader);
      assert.match(read, /<body data-role="read">/);
      assert.doesNotMatch(read, /id="pause-all"|id="resume-all"/);
      assert.match(read, /read only/);
      assert.doesNotMatch(await page(submitter), /id="pause-all"/);
      assert.match(await page(admin), /id="pause-all"/);
    } finally {
      await f.close();
    }
  });

  it("the OpenAPI document names each operation's role and its 403", async () => {
    const { f, reader } = await roleFixture();
    try {
      const doc = (await f.call("GET", `${A}/openapi.json`, undefined, reader.bearer)).body;
      assert.equal(doc.paths[`${A}/pause`].post["x-skedulr-role"], "admin");
      assert.equal(doc.paths[`${A}/tasks`].post["x-skedulr-role"], "submit");
      assert.equal(doc.paths[`${A}/tasks/{id}`].get["x-skedulr-role"], "read");
      assert.match(doc.paths[`${A}/pause`].post.responses["403"].description, /admin role/);
      const login = doc.paths["/skedulr/login"].post.responses["429"];
      assert.ok(login.headers["Retry-After"], "the login's 429 carries Retry-After");
      assert.ok(doc.paths["/skedulr/logout"].post.responses["403"]);
      for (const [path, item] of Object.entries(doc.paths) as [string, any][]) {
        for (const [method, op] of Object.entries(item) as [string, any][]) {
          if (path.startsWith(A)) assert.ok(op["x-skedulr-role"], `${method} ${path}: a role`);
        }
      }
    } finally {
      await f.close();
    }
  });

  it("docs/CONTRACT.md lists the role of every route that needs more than read", () => {
    const sheet = readFileSync("docs/CONTRACT.md", "utf8");
    const section = sheet.split(/^## /m).find((s) => s.startsWith("Roles"));
    assert.ok(section, "a Roles section");
    for (const [route, role] of Object.entries(EXPECTED)) {
      const [method, path] = route.split(" ");
      const short = path.replace(A, "");
      const row: string | undefined = section.split("\n")
        .find((l: string) => l.includes(`${method} ${short}`));
      assert.ok(row, `a row for ${method} ${short}`);
      assert.ok(row.endsWith(`| \`${role}\` |`), `${route}: ${role} in "${row}"`);
    }
  });
});
