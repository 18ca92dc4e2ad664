/**
 * docs/CONTRACT.md, the contract sheet, against what the API really answers and what its
 * OpenAPI document says: task and attempt statuses, error codes with their HTTP status, and
 * the fields of a task record, an attempt record and the stats totals.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ALL_STATUSES, TASK_EVENT_KINDS } from "../../src/mod.ts";
import { ATTEMPT_STATUSES } from "../../routes/schemas.ts";
import { API_ERROR_CODES, httpStatus } from "../../routes/errors.ts";
import { type ApiFixture, apiFixture } from "../helpers/api-app.ts";

// Tests run from the repository root (scripts/tools/test.sh).
const sheet = readFileSync("docs/CONTRACT.md", "utf8");

/** The rows of the first table under heading `title`, as arrays of cells. */
function table(title: string): string[][] {
  const section = sheet.split(/^## /m).find((s) => s.startsWith(title));
  assert.ok(section, `docs/CONTRACT.md has a section "${title}"`);
  return section.split("\n").filter((l) => l.startsWith("|")).slice(2)
    .map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
}

/** The first `code` of a cell. */
const name = (cell: string) => /`([^`]+)`/.exec(cell)?.[1] ?? "";
/** The fields named in the "Answer fields" row whose first cell starts with `answer`. */
function fields(answer: string): string[] {
  const row = table("Answer fields").find((r) => r[0].startsWith(answer));
  assert.ok(row, `an "Answer fields" row for ${answer}`);
  return [...row[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}
const sorted = (xs: Iterable<string>) => [...xs].sort();

describe("the contract sheet (docs/CONTRACT.md)", () => {
  let f: ApiFixture;
  let doc: { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  before(async () => {
    f = await apiFixture({
      handlers: {
        ok: () => "done",
        logs: (_p, ctx) => ctx.log("counted", { n: 1 }),
      },
    });
    doc = (await f.call("GET", "/skedulr/api/openapi.json")).body;
  });
  after(() => f.close());

  it("lists every task status and every attempt status, and no other", () => {
    assert.deepEqual(sorted(table("Task statuses").map((r) => name(r[0]))), sorted(ALL_STATUSES));
    assert.deepEqual(
      sorted(table("Attempt statuses").map((r) => name(r[0]))),
      sorted(ATTEMPT_STATUSES),
    );
  });

  it("lists every error code with the HTTP status the API answers it with", () => {
    const rows = table("Error codes");
    assert.deepEqual(sorted(rows.map((r) => name(r[0]))), sorted(API_ERROR_CODES));
    for (const [code, status] of rows) assert.equal(Number(status), httpStatus(name(code)), code);
  });

  it("names the fields of a task record, an attempt and the totals as the API answers them", async () => {
    const { body } = await f.call("POST", "/skedulr/api/tasks", { type: "ok" });
    await f.until(body.id, "succeeded");
    const record = (await f.call("GET", `/skedulr/api/tasks`)).body.tasks[0];
    assert.deepEqual(sorted(fields("task record")), sorted(Object.keys(record)));
    const detail = (await f.call("GET", `/skedulr/api/tasks/${body.id}`)).body;
    const more = Object.keys(detail).filter((k) => !(k in record));
    assert.deepEqual(sorted(more), ["children", "childrenNext", "parents"]);
    for (const k of more) assert.ok(fields("`GET /tasks/:id`").includes(k), `${k} listed`);
    assert.deepEqual(
      sorted(Object.keys(doc.components.schemas.Task.properties)),
      sorted(Object.keys(record)),
      "the OpenAPI Task schema",
    );
    const attempt = (await f.call("GET", "/skedulr/api/history")).body.attempts[0];
    assert.deepEqual(sorted(fields("attempt record")), sorted(Object.keys(attempt)));
    assert.deepEqual(
      sorted(Object.keys(doc.components.schemas.Attempt.properties)),
      sorted(Object.keys(attempt)),
      "the OpenAPI Attempt schema",
    );
    const answer = (await f.call("GET", "/skedulr/api/stats")).body;
    const stats = fields("`GET /stats`");
    for (const key of Object.keys(answer)) assert.ok(stats.includes(key), `${key} listed`);
    for (const key of Object.keys(answer.totals)) {
      assert.ok(stats.includes(key), `totals.${key} listed`);
    }
    for (const key of Object.keys(answer.pools.default)) {
      assert.ok(stats.includes(key), `pools.*.${key} listed`);
    }
    const flowKey = doc.components.schemas.FlowKeyStats.properties;
    for (const key of Object.keys(flowKey)) assert.ok(stats.includes(key), `flowKeys.*.${key}`);
  });

  it("names the fields of a task's log and its lines as GET /tasks/:id/logs answers them", async () => {
    const { body } = await f.call("POST", "/skedulr/api/tasks", { type: "logs" });
    await f.until(body.id, "succeeded");
    const answer = (await f.call("GET", `/skedulr/api/tasks/${body.id}/logs`)).body;
    const listed = fields("`GET /tasks/:id/logs`");
    const line = answer.logs.find((l: { fields?: unknown }) => l.fields);
    assert.ok(line, "a line with fields");
    for (const key of [...Object.keys(answer), ...Object.keys(line)]) {
      assert.ok(listed.includes(key), `${key} listed`);
    }
    const schemas = doc.components.schemas;
    assert.deepEqual(sorted(Object.keys(schemas.LogPage.properties)), sorted(Object.keys(answer)));
    assert.deepEqual(sorted(Object.keys(schemas.LogLine.properties)), sorted(Object.keys(line)));
  });

  it("names the fields of a schedule record as GET /schedules/:id answers them", async () => {
    const put = await f.call("PUT", "/skedulr/api/schedules/nightly", { type: "ok", every: "1h" });
    assert.equal(put.status, 201);
    const record = (await f.call("GET", "/skedulr/api/schedules/nightly")).body;
    assert.deepEqual(sorted(fields("schedule record")), sorted(Object.keys(record)));
    const schema = doc.components.schemas.Schedule.properties;
    assert.deepEqual(
      sorted([...Object.keys(schema), "nextRuns"]),
      sorted(Object.keys(record)),
      "the OpenAPI Schedule schema and ScheduleView's nextRuns",
    );
  });

  it("lists every task event kind, and the event's fields as the OpenAPI document has them", () => {
    assert.deepEqual(sorted(table("Task events").map((r) => name(r[0]))), sorted(TASK_EVENT_KINDS));
    const schema = doc.components.schemas.TaskEvent.properties;
    assert.deepEqual(sorted(new Set(fields("`GET /events`"))), sorted(Object.keys(schema)));
  });

  it("lists every value of waitingFor the OpenAPI document allows", () => {
    const section = sheet.split(/^## /m).find((s) => s.startsWith("Flow control keys"))!;
    const listing = section.split("\n- ").find((l) => l.startsWith("`waitingFor`"));
    assert.ok(listing, "a `waitingFor` item under Flow control keys");
    const waiting = doc.components.schemas.Task.properties.waitingFor as { enum: unknown[] };
    for (const value of waiting.enum) {
      if (value !== null) assert.ok(listing.includes(`\`${value}\``), `waitingFor ${value}`);
    }
  });
});
