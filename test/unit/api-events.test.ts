/**
 * HTTP API, `GET /events`: task events as Server-Sent Events through `app.request()` against
 * a real Scheduler on the embedded store: the stream's format, filters, resuming with
 * Last-Event-ID, bad input, the cap on open streams, and a cut-off slow client.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { apiFixture } from "../helpers/api-app.ts";
import { readSse, taskEventsOf } from "../helpers/sse.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const E = "/skedulr/api/events";

describe("api: GET /events", () => {
  it("streams each task event as event: <kind>, id: <batch>/<index>, data: <the event>", async () => {
    const f = await apiFixture({ handlers: { double: (p: { n: number }) => p.n * 2 } });
    const res = await f.app.request(E);
    const sse = readSse(res);
    try {
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
      await eventually(() => sse.frames.some((fr) => fr.event === "open"), "the open frame");
      const { body } = await f.call("POST", "/skedulr/api/tasks", {
        type: "double",
        payload: { n: 2 },
      });
      await eventually(
        () => taskEventsOf(sse.frames).some((e) => e.kind === "succeeded"),
        "the task's last event",
      );
      const events = taskEventsOf(sse.frames).filter((e) => e.id === body.id);
      assert.deepEqual(events.map((e) => e.kind), ["created", "started", "succeeded"]);
      for (const frame of sse.frames.filter((fr) => fr.id !== undefined)) {
        const e = JSON.parse(frame.data);
        assert.equal(frame.event, e.kind);
        assert.equal(frame.id, e.eventId);
        assert.match(frame.id!, /^\d+\/\d+$/);
      }
      assert.equal(events[0].type, "double");
    } finally {
      await sse.close();
      await f.close();
    }
  });

  it("filters by id, type, pool and kind", async () => {
    const f = await apiFixture({
      handlers: { a: () => 1, b: () => 2 },
      pools: { default: 2, x: 2 },
    });
    const sse = readSse(await f.app.request(`${E}?type=b&kind=succeeded,started&pool=x`));
    try {
      const ids: string[] = [];
      for (const spec of [{ type: "a" }, { type: "b" }, { type: "b", pool: "x" }]) {
        ids.push((await f.call("POST", "/skedulr/api/tasks", spec)).body.id);
      }
      for (const id of ids) await f.until(id, "succeeded");
      await eventually(() => taskEventsOf(sse.frames).length === 2, "two events");
      const events = taskEventsOf(sse.frames);
      assert.deepEqual(events.map((e) => [e.id, e.kind]), [[ids[2], "started"], [
        ids[2],
        "succeeded",
      ]]);
      const byId = readSse(
        await f.app.request(`${E}?id=${ids[0]}`, {
          headers: { "last-event-id": "0/0" }, // 0/0: everything the buffer holds
        }),
      );
      await eventually(() => taskEventsOf(byId.frames).length === 3, "the first task's events");
      assert.deepEqual(new Set(taskEventsOf(byId.frames).map((e) => e.id)), new Set([ids[0]]));
      await byId.close();
    } finally {
      await sse.close();
      await f.close();
    }
  });

  it("resumes after Last-Event-ID (header or query) with every later event, once", async () => {
    const f = await apiFixture({ handlers: { t: () => "ok" } });
    const live = readSse(await f.app.request(E));
    try {
      await eventually(() => live.frames.some((fr) => fr.event === "open"), "the open frame");
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await f.call("POST", "/skedulr/api/tasks", { type: "t" })).body.id);
        await f.until(ids[i], "succeeded");
      }
      await eventually(() => taskEventsOf(live.frames).length === 9, "nine events");
      const all = taskEventsOf(live.frames);
      const last = all[3].eventId;
      for (const init of [{ headers: { "last-event-id": last } }, {}]) {
        const path = "headers" in init ? E : `${E}?lastEventId=${encodeURIComponent(last)}`;
        const resumed = readSse(await f.app.request(path, init));
        await eventually(() => taskEventsOf(resumed.frames).length === 5, "the five after it");
        assert.deepEqual(taskEventsOf(resumed.frames), all.slice(4));
        await resumed.close();
      }
      // An id this store never gave: the stream says events were missed.
      const stranger = readSse(
        await f.app.request(E, { headers: { "last-event-id": "9999999/0" } }),
      );
      await eventually(() => stranger.frames.some((fr) => fr.event === "missed"), "missed");
      await stranger.close();
    } finally {
      await live.close();
      await f.close();
    }
  });

  it("refuses bad input with a 400 naming the parameter", async () => {
    const f = await apiFixture({ start: false });
    try {
      const cases: [string, Record<string, string>, string][] = [
        [`${E}?kind=finished`, {}, "kind"],
        [`${E}?id=`, {}, "id"],
        [`${E}?type=${Array.from({ length: 101 }, (_, i) => `t${i}`).join(",")}`, {}, "type"],
        [E, { "last-event-id": "yesterday" }, "Last-Event-ID"],
        [`${E}?lastEventId=12`, {}, "lastEventId"],
      ];
      for (const [path, headers, field] of cases) {
        const res = await f.raw(path, { headers });
        assert.equal(res.status, 400, path);
        assert.equal(res.body.error.code, "invalid_request");
        assert.equal(res.body.error.issues[0].path, field, path);
      }
    } finally {
      await f.close();
    }
  });

  it("serves at most maxEventStreams streams (429 with Retry-After), and a closed one frees its place", async () => {
    const f = await apiFixture({ start: false, maxEventStreams: 2 });
    const a = readSse(await f.app.request(E));
    const b = readSse(await f.app.request(E));
    try {
      const third = await f.raw(E);
      assert.equal(third.status, 429);
      assert.equal(third.body.error.code, "rate_limited");
      assert.ok(Number(third.headers.get("retry-after")) > 0);
      await a.close();
      await eventually(async () => {
        const res = await f.app.request(E);
        if (res.status !== 200) return false;
        await readSse(res).close();
        return true;
      }, "a place frees");
    } finally {
      await b.close();
      await f.close();
    }
  });
});
