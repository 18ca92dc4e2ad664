/**
 * The OpenAPI document as the tools users run on it see it: Redocly's recommended rules pass
 * with no error and no warning (open and secured), every operation has a stable operationId,
 * and a client generated from it (openapi-typescript types + openapi-fetch) type-checks with
 * tsc against the answers a live app (embedded store) really gives, answers that also
 * validate against the document's response schemas at run time.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { type ApiFixture, apiFixture } from "../helpers/api-app.ts";
import { schemaProblems } from "../helpers/json-schema.ts";
import { makeKey } from "../helpers/keys.ts";
import { answersSource, TOUR_SOURCE } from "../helpers/openapi-tour.ts";

const TOKEN = "openapi-client-admin-token-0123";
const BIN = resolve("node_modules/.bin");
/** Beside the repository's node_modules, so the generated program resolves openapi-fetch. */
const DIR = resolve(
  `.tmp/openapi-client-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
);
const LIMIT = { timeout: 30_000 };

/** The names generated clients call methods by: renaming one breaks every client. */
const OPERATION_IDS = [
  "cancelTask",
  "deleteSchedule",
  "getDocs",
  "getHealth",
  "getMetrics",
  "getOpenApi",
  "getSchedule",
  "getStats",
  "getTask",
  "getTaskLogs",
  "listHistory",
  "listSchedules",
  "listTasks",
  "listWorkers",
  "login",
  "logout",
  "pause",
  "pauseSchedule",
  "putSchedule",
  "resubmitTask",
  "resubmitTasks",
  "resume",
  "resumeSchedule",
  "setPoolSize",
  "streamTaskEvents",
  "submitTask",
  "submitTaskBatch",
  "triggerSchedule",
  "waitTask",
];

type Doc = Record<string, any>;
interface Seen {
  op: string;
  status: number;
  type: string;
  body: unknown;
}

/** Runs a tool from node_modules/.bin; never throws, the caller reads the exit code. */
function tool(name: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    // No telemetry or update checks from Redocly: a test sends nothing out.
    const env = {
      ...process.env,
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_NOTIFICATIONS: "true",
    };
    execFile(join(BIN, name), args, { maxBuffer: 32 << 20, env }, (error, out, err) => {
      done({ code: error ? Number(error.code ?? 1) || 1 : 0, out: String(out), err: String(err) });
    });
  });
}

async function readDoc(f: ApiFixture, token?: string): Promise<Doc> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await f.call("GET", "/skedulr/api/openapi.json", undefined, auth);
  assert.equal(res.status, 200);
  return res.body;
}

/** Redocly's findings on `doc` with its recommended rules, as "severity rule: message at". */
async function lint(doc: Doc, name: string): Promise<string[]> {
  const file = join(DIR, `${name}.json`);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const r = await tool("redocly", ["lint", "--extends=recommended", "--format=json", file]);
  const report = JSON.parse(r.out.slice(r.out.indexOf("{")));
  const found = (report.problems as any[]).map((p) =>
    `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`
  );
  assert.equal(r.code === 0, report.totals.errors === 0, `redocly exit ${r.code}: ${r.err}`);
  return found;
}

function operations(doc: Doc): [string, Doc][] {
  return Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc).map(([method, op]): [string, Doc] => [`${method} ${path}`, op])
  );
}

describe("the OpenAPI document, with the tools users run on it", () => {
  let open: ApiFixture;
  let secured: ApiFixture;
  let reader = "";
  // Set up inside the tests (hooks get Bun's 5 s default); each test awaits the same start.
  let setup: Promise<void> | undefined;
  const started = () =>
    setup ??= (async () => {
      mkdirSync(DIR, { recursive: true });
      const key = await makeKey("grafana", "read");
      reader = key.key;
      open = await apiFixture({ start: false });
      secured = await apiFixture({
        token: TOKEN,
        keys: [key.entry],
        pools: { default: 2, critical: 1 },
        handlers: {
          ok: (_payload, ctx) => {
            ctx.log("tour line", { step: 1 });
            ctx.log("no fields");
            return { done: true };
          },
          fail: () => {
            throw new Error("tour failure");
          },
          slow: (_payload, ctx) =>
            new Promise((_, reject) =>
              ctx.signal.addEventListener("abort", () => reject(new Error("stopped")))
            ),
        },
      });
    })();
  after(async () => {
    await open?.close();
    await secured?.close();
    rmSync(DIR, { recursive: true, force: true });
  });

  it(
    "passes Redocly's recommended rules with no error and no warning, open or secured",
    LIMIT,
    async () => {
      await started();
      const [a, b] = await Promise.all([
        lint(await readDoc(open), "open"),
        lint(await readDoc(secured, TOKEN), "secured"),
      ]);
      assert.deepEqual(a, [], "the open document (no token)");
      assert.deepEqual(b, [], "the secured document");
    },
  );

  it("names every operation with a stable, unique operationId; declares server and security", async () => {
    await started();
    for (const doc of [await readDoc(open), await readDoc(secured, TOKEN)]) {
      const ids = operations(doc).map(([, op]) => op.operationId);
      assert.deepEqual([...ids].sort(), OPERATION_IDS);
      assert.equal(doc.servers.length, 1);
      assert.ok(Array.isArray(doc.security));
    }
    const doc = await readDoc(secured, TOKEN);
    assert.equal(doc.components.securitySchemes.bearer.scheme, "bearer");
    for (const [name, op] of operations(doc)) {
      const codes = Object.keys(op.responses);
      assert.ok(codes.some((c) => /^4\d\d$/.test(c)), `${name}: a 4xx answer`);
      if (!op.security) assert.ok(codes.includes("401"), `${name}: its 401`);
    }
  });

  let seen: Seen[] | undefined;
  it(
    "a client generated from it type-checks against the answers the API really gives",
    LIMIT,
    async () => {
      await started();
      writeFileSync(join(DIR, "doc.json"), JSON.stringify(await readDoc(secured, TOKEN)));
      const gen = await tool("openapi-typescript", [
        join(DIR, "doc.json"),
        "-o",
        join(DIR, "api.d.ts"),
      ]);
      assert.equal(gen.code, 0, `openapi-typescript: ${gen.err}`);
      writeFileSync(join(DIR, "tour.ts"), TOUR_SOURCE);
      // Run the program (it uses the generated client exactly as a user would) on the live app.
      const { tour } = await import(pathToFileURL(join(DIR, "tour.ts")).href);
      const fetch = (request: Request) => Promise.resolve(secured.app.fetch(request));
      seen = (await tour({ fetch, admin: TOKEN, reader })) as Seen[];
      writeFileSync(join(DIR, "answers.ts"), answersSource(seen));
      writeFileSync(
        join(DIR, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "ESNext",
            moduleResolution: "bundler",
            lib: ["ES2023", "DOM", "DOM.Iterable"],
            types: [],
            strict: true,
            noEmit: true,
            allowImportingTsExtensions: true,
            exactOptionalPropertyTypes: true,
          },
          include: ["*.ts"],
        }),
      );
      const tsc = await tool("tsc", ["-p", DIR]);
      assert.equal(tsc.code, 0, `tsc on the generated client and the real answers:\n${tsc.out}`);
      const called = new Set(seen.map((s) => s.op));
      assert.deepEqual(OPERATION_IDS.filter((id) => !called.has(id)), [], "operations not called");
      for (const code of [200, 201, 400, 401, 403, 404, 409]) {
        assert.ok(seen.some((s) => s.status === code), `the tour saw a ${code}`);
      }
    },
  );

  it("real answers validate against the document's response schemas", LIMIT, async () => {
    assert.ok(seen, "the answers of the previous test");
    const doc = await readDoc(secured, TOKEN);
    const byId = new Map(operations(doc).map(([, op]) => [op.operationId as string, op]));
    const problems: string[] = [];
    for (const s of seen) {
      const answer = byId.get(s.op)?.responses?.[String(s.status)];
      const schema = answer?.content?.[s.type]?.schema;
      if (!schema) {
        problems.push(`${s.op}: ${s.status} ${s.type} is not documented`);
        continue;
      }
      for (const p of schemaProblems(s.body, schema, doc)) {
        problems.push(`${s.op} ${s.status}: ${p}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
