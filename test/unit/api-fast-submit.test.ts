/**
 * `POST /skedulr/api/tasks` has a fast path (routes/fast-submit.ts) beside the middleware
 * chain. A query string sends the same request through the chain, so each case here is sent
 * both ways, on two apps with the same configuration and storage contents, and the answers
 * must match: status, every header, and the body (ids aside). Then what the fast path takes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ApiFixture, apiFixture, type FixtureOptions } from "../helpers/api-app.ts";
import { makeKey } from "../helpers/keys.ts";
import { fastSubmit } from "../../routes/fast-submit.ts";
import { createApp } from "../../routes/app.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { Credentials } from "../../routes/credentials.ts";
import { Sessions } from "../../routes/session-cookie.ts";
import { RequestDeadlines } from "../../routes/deadline.ts";
import { type FaultKind, Faults, faultyStorage } from "../helpers/faulty-storage.ts";

const URL_FAST = "http://127.0.0.1:8787/skedulr/api/tasks";
const URL_CHAIN = "http://127.0.0.1:8787/skedulr/api/tasks?via=chain";
const TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

interface Case {
  name: string;
  headers?: Record<string, string>;
  body?: string;
}

const json = { "content-type": "application/json" };
const CASES: Case[] = [
  { name: "a task", headers: json, body: '{"type":"noop","payload":{"n":1}}' },
  { name: "a task with an id, twice", headers: json, body: '{"type":"noop","id":"same"}' },
  { name: "a dedupe hit", headers: json, body: '{"type":"noop","dedupe":{"key":"k"}}' },
  { name: "a schedule", headers: json, body: '{"type":"noop","every":"1m"}' },
  { name: "a traceparent", headers: { ...json, traceparent: TRACE }, body: '{"type":"noop"}' },
  { name: "malformed JSON", headers: json, body: '{"type"' },
  { name: "not JSON", headers: { "content-type": "text/plain" }, body: '{"type":"noop"}' },
  { name: "no body", headers: json },
  { name: "an array", headers: json, body: '[{"type":"noop"}]' },
  { name: "an invalid spec", headers: json, body: '{"type":5,"delay":-1}' },
  { name: "a lone surrogate", headers: json, body: '{"type":"noop","payload":"\\ud800"}' },
  {
    name: "too large",
    headers: json,
    body: JSON.stringify({ type: "noop", payload: "x".repeat(600) }),
  },
  { name: "a foreign Host", headers: { ...json, host: "evil.example" }, body: '{"type":"noop"}' },
  {
    name: "a cross-site browser",
    headers: { ...json, "sec-fetch-site": "cross-site" },
    body: '{"type":"noop"}',
  },
  {
    name: "a foreign Origin",
    headers: { ...json, origin: "https://evil.example" },
    body: '{"type":"noop"}',
  },
];

interface Answer {
  status: number;
  headers: [string, string][];
  body: unknown;
}

/** Ids and times are new per submit: the answer with each (and a Location naming it) masked. */
async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch { /* compared as text */ }
  const id: unknown = body?.id;
  if (typeof id === "string" && id !== "same") body.id = "<id>";
  if (typeof body?.nextRunAt === "number") body.nextRunAt = "<time>";
  const headers = [...res.headers].map(([k, v]): [string, string] => [
    k,
    typeof id === "string" ? v.replace(encodeURIComponent(id), "<id>") : v,
  ]);
  return { status: res.status, headers, body };
}

/** Two apps alike; each case goes to one by the fast path and to the other by the chain. */
async function bothWays(options: FixtureOptions, cases: Case[]): Promise<void> {
  const fast = await apiFixture({ maxBodyBytes: 500, ...options });
  const chain = await apiFixture({ maxBodyBytes: 500, ...options });
  try {
    for (const c of cases) {
      const init = (): RequestInit => ({ method: "POST", headers: c.headers, body: c.body });
      const a = await answerOf(await fast.app.request(URL_FAST, init()));
      const b = await answerOf(await chain.app.request(URL_CHAIN, init()));
      assert.deepEqual(a, b, `${c.name}: the fast path answers as the chain does`);
      // A repeat too: the second of an id or a dedupe key answers differently from the first.
      const a2 = await answerOf(await fast.app.request(URL_FAST, init()));
      const b2 = await answerOf(await chain.app.request(URL_CHAIN, init()));
      assert.deepEqual(a2, b2, `${c.name}, again: the fast path answers as the chain does`);
    }
    await sameStore(fast, chain);
  } finally {
    await fast.close();
    await chain.close();
  }
}

/** Both stores hold the same tasks: same types, payloads, traceparents, statuses. */
async function sameStore(fast: ApiFixture, chain: ApiFixture): Promise<void> {
  const view = async (f: ApiFixture) =>
    (await f.s.list({ limit: 1000 })).items
      .map((t) => JSON.stringify([t.type, t.status, t.payload, t.traceparent ?? null]))
      .sort();
  assert.deepEqual(await view(fast), await view(chain));
}

describe("api: the fast submit path answers as the middleware chain does", () => {
  it("on an open API: successes, bad bodies, foreign hosts and cross-site browsers", async () => {
    await bothWays({}, CASES);
  });

  it("on a protected API: each bearer, a wrong one, and a role short of submit", async () => {
    const [reader, submitter] = await Promise.all([
      makeKey("dash", "read"),
      makeKey("ci", "submit"),
    ]);
    const keys = [reader.entry, submitter.entry];
    const withAuth = (authorization: string): Case[] =>
      CASES.map((c) => ({ ...c, headers: { ...c.headers, authorization } }));
    await bothWays({ token: "s3cret", keys }, [
      ...withAuth("Bearer s3cret"),
      ...withAuth(submitter.bearer.authorization),
      ...withAuth(reader.bearer.authorization),
      ...withAuth("Bearer wrong"),
      ...withAuth("Basic czNjcmV0"),
    ]);
  });

  it("with allowed hosts named: a host not among them is refused both ways", async () => {
    await bothWays({ token: "s3cret", allowedHosts: ["api.example"] }, [
      {
        name: "allowed",
        headers: { ...json, host: "api.example", authorization: "Bearer s3cret" },
        body: '{"type":"noop"}',
      },
      {
        name: "refused",
        headers: { ...json, host: "127.0.0.1:8787", authorization: "Bearer s3cret" },
        body: '{"type":"noop"}',
      },
    ]);
  });
});

describe("api: the fast submit path under store faults", () => {
  it("a store that refuses, loses the reply or hangs: the chain's 503 storage, both ways", async () => {
    const app = (faults: Faults) => {
      const scheduler = new Scheduler({
        storage: faultyStorage(new MemoryStorage(), faults),
        pools: {},
        logger: silentLogger,
      });
      return createApp({ scheduler, requestTimeoutMs: 200 });
    };
    for (const kind of ["reject", "lose-reply", "hang"] as FaultKind[]) {
      const faults = [new Faults(), new Faults()];
      const [fast, chain] = faults.map(app);
      for (const f of faults) f.inject("enqueue", kind);
      const init = (): RequestInit => ({
        method: "POST",
        headers: json,
        body: '{"type":"noop","id":"t1"}',
      });
      const a = await answerOf(await fast.request(URL_FAST, init()));
      const b = await answerOf(await chain.request(URL_CHAIN, init()));
      assert.equal(a.status, 503, `${kind}: ${JSON.stringify(a.body)}`);
      assert.deepEqual(a, b, `${kind}: the fast path answers as the chain does`);
      for (const f of faults) f.heal();
    }
  });
});

describe("api: what the fast submit path takes", () => {
  const scheduler = new Scheduler({
    storage: new MemoryStorage(),
    pools: {},
    logger: silentLogger,
  });
  const pathOf = (open: boolean) => {
    const credentials = new Credentials(open ? undefined : "s3cret", []);
    return fastSubmit({
      scheduler,
      logger: silentLogger,
      auth: { credentials, sessions: new Sessions(credentials, {}), now: () => 0 },
      host: null,
      deadlines: new RequestDeadlines(1000),
      maxBodyBytes: 1000,
    });
  };
  const post = (url: string, headers: Record<string, string> = {}) =>
    new Request(url, { method: "POST", headers, body: "{}" });

  it("a POST to exactly /skedulr/api/tasks, open or with a bearer; nothing else", () => {
    const open = pathOf(true);
    const closed = pathOf(false);
    assert.equal(open.takes(post(URL_FAST)), true);
    assert.equal(closed.takes(post(URL_FAST, { authorization: "Bearer x" })), true);
    // A session cookie (or nothing) on a protected API: the chain reads cookies.
    assert.equal(closed.takes(post(URL_FAST, { cookie: "skedulr_token=x" })), false);
    assert.equal(closed.takes(post(URL_FAST)), false);
    for (
      const url of [
        URL_CHAIN,
        `${URL_FAST}/`,
        `${URL_FAST}/batch`,
        "http://127.0.0.1:8787/x/skedulr/api/tasks",
        "http://127.0.0.1:8787/skedulr/api/tasks#frag",
      ]
    ) assert.equal(open.takes(post(url)), false, url);
    assert.equal(open.takes(new Request(URL_FAST)), false, "a GET");
  });

  it("an app answers its submits through it, the same as through the chain", async () => {
    const app = createApp({ scheduler });
    const res = await app.request("/skedulr/api/tasks", {
      method: "POST",
      headers: json,
      body: '{"type":"noop"}',
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
  });
});
