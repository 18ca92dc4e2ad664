/**
 * The API's request deadline counts the store's time, not the client's upload
 * (routes/deadline.ts): a body that takes several deadlines to arrive is still answered, and a
 * store that hangs after a slow upload gets the whole deadline from the end of the upload; on
 * `POST /tasks` (its fast path starts the clock after the read) and on a route of the
 * middleware chain (`jsonBody` holds the clock while it reads).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { Faults, faultyStorage } from "../helpers/faulty-storage.ts";

const DEADLINE_MS = 200;
const CHUNK_GAP_MS = 150;

/** A JSON body sent in 4 pieces, CHUNK_GAP_MS apart (a slow client); `sent` is when it ended. */
function slowBody(spec: unknown): { body: ReadableStream<Uint8Array>; sent: Promise<number> } {
  const text = new TextEncoder().encode(JSON.stringify(spec));
  const quarter = Math.ceil(text.length / 4);
  let piece = 0;
  let ended: (at: number) => void = () => {};
  const sent = new Promise<number>((resolve) => (ended = resolve));
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((r) => setTimeout(r, CHUNK_GAP_MS));
      if (piece < 4) controller.enqueue(text.subarray(piece * quarter, ++piece * quarter));
      else {
        controller.close();
        ended(performance.now());
      }
    },
  });
  return { body, sent };
}

function setup() {
  const faults = new Faults();
  const scheduler = new Scheduler({
    storage: faultyStorage(new MemoryStorage(), faults),
    pools: {},
    logger: silentLogger,
  });
  scheduler.register("t", () => null);
  const app = createApp({ scheduler, requestTimeoutMs: DEADLINE_MS });
  const post = (body: ReadableStream<Uint8Array>, path = "/skedulr/api/tasks") =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
  return { faults, post, app };
}

describe("api: the request deadline and slow uploads", () => {
  // The fast path, and a route of the chain: a batch of one, answered `{ tasks: [...] }`.
  const routes = [
    { name: "POST /tasks", path: "/skedulr/api/tasks", wrap: (spec: object) => spec },
    { name: "POST /tasks/batch", path: "/skedulr/api/tasks/batch", wrap: (spec: object) => [spec] },
  ];
  const idOf = (answer: { id?: string; tasks?: { id: string }[] }) =>
    answer.id ?? answer.tasks?.[0].id;

  for (const route of routes) {
    it(`${route.name}: a body that takes three deadlines to arrive is stored and answered 201`, async () => {
      const { post } = setup();
      const started = performance.now();
      const { body, sent } = slowBody(route.wrap({ type: "t", id: "slow-upload" }));
      const res = await post(body, route.path);
      const answer = await res.json();
      assert.equal(res.status, 201, JSON.stringify(answer));
      assert.equal(idOf(answer), "slow-upload");
      assert.ok(
        (await sent) - started >= 3 * DEADLINE_MS,
        "the upload took longer than three deadlines",
      );
    });

    it(`${route.name}: a store that hangs after a slow upload gets the whole deadline from its end`, async () => {
      const { faults, post } = setup();
      faults.inject("enqueue", "hang");
      try {
        const { body, sent } = slowBody(route.wrap({ type: "t", id: "slow-then-stuck" }));
        const res = await post(body, route.path);
        const answered = performance.now();
        const answer = await res.json();
        assert.equal(res.status, 503, JSON.stringify(answer));
        assert.equal(answer.error.code, "storage");
        assert.match(answer.error.message, new RegExp(`no answer within ${DEADLINE_MS} ms`));
        const afterUpload = answered - await sent;
        assert.ok(
          afterUpload >= DEADLINE_MS - 5 && afterUpload < DEADLINE_MS + 1_000,
          `answered ${afterUpload.toFixed(0)} ms after the upload ended`,
        );
      } finally {
        faults.heal();
      }
    });
  }

  it("requests in flight together each get their own deadline", async () => {
    const { faults, post, app } = setup();
    faults.inject("enqueue", "hang");
    try {
      const json = (id: string) =>
        new Blob([JSON.stringify({ type: "t", id })]).stream() as ReadableStream<Uint8Array>;
      const timed = async (id: string) => {
        const started = performance.now();
        const res = await post(json(id));
        return { status: res.status, started, answered: performance.now() };
      };
      const first = timed("first");
      await new Promise((r) => setTimeout(r, DEADLINE_MS / 2)); // the second starts later
      const second = timed("second");
      // A request that ends while both wait takes nothing from them.
      assert.equal((await app.request("/skedulr/api/stats")).status, 200);
      const [a, b] = await Promise.all([first, second]);
      assert.deepEqual([a.status, b.status], [503, 503]);
      for (const [name, r] of [["first", a], ["second", b]] as const) {
        const waited = r.answered - r.started;
        assert.ok(
          waited >= DEADLINE_MS - 5 && waited < DEADLINE_MS + 150,
          `${name}: answered ${waited.toFixed(0)} ms after it started`,
        );
      }
      assert.ok(a.answered < b.answered, "the first deadline fell first");
    } finally {
      faults.heal();
    }
  });
});
