/**
 * `GET /events` across real worker processes on one Redis (`scripts/entry/worker.ts`): a
 * stream opened on node A sees the tasks that node B runs, each task's events in order; after
 * the client drops and reconnects with its Last-Event-ID it gets every event it missed, once;
 * a quiet stream outlasts the server's idle timeout (comments keep it open).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type RedisServerHandle, startRedisServer } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { api, startCluster } from "../helpers/cluster-workers.ts";
import { readSse, type SseReader, taskEventsOf } from "../helpers/sse.ts";

const SLOW = { timeout: 60_000 };

describe("task events over several worker processes (Redis)", () => {
  let server: RedisServerHandle;
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    await server.stop();
  });

  it(
    "node A's stream shows what node B runs, in order; a reconnect with Last-Event-ID misses nothing",
    SLOW,
    async () => {
      const c = await startCluster(server.url, "events");
      let stream: SseReader | null = null;
      try {
        // A runs no pool that the tasks use; B runs them.
        const [a] = await c.spawn(1, { SKEDULR_POOLS: "other=1" });
        const [b] = await c.spawn(1, { SKEDULR_POOLS: "work=4" });
        stream = readSse(await fetch(`${a.url}/api/events?pool=work`));
        await eventually(() => stream!.frames.some((f) => f.event === "open"), "A's stream opens");
        const submit = async (n: number) => {
          const ids: string[] = [];
          for (let i = 0; i < n; i++) {
            const r = await api(b, "/tasks", { type: "count", pool: "work" });
            assert.equal(r.status, 201);
            ids.push(r.body.id);
          }
          return ids;
        };
        const first = await submit(5);
        await eventually(
          () => taskEventsOf(stream!.frames).filter((e) => e.kind === "succeeded").length === 5,
          "five tasks succeed, seen on A",
        );
        for (const id of first) {
          const kinds: string[] = taskEventsOf(stream.frames).filter((e) => e.id === id).map((e) =>
            e.kind
          );
          assert.deepEqual(kinds, ["created", "started", "succeeded"], id);
        }
        const seen = taskEventsOf(stream.frames);
        const lastId = seen[seen.length - 1].eventId;
        await stream.close();

        // While the client is away, five more tasks run on B.
        const second = await submit(5);
        for (const id of second) {
          await eventually(async () => (await c.client.get(id))?.status === "succeeded", id);
        }
        stream = readSse(
          await fetch(`${a.url}/api/events?pool=work`, { headers: { "last-event-id": lastId } }),
        );
        await eventually(
          () => taskEventsOf(stream!.frames).filter((e) => e.kind === "succeeded").length === 5,
          "the missed tasks' events after the reconnect",
        );
        const resumed = taskEventsOf(stream.frames);
        assert.deepEqual(
          new Set(resumed.map((e) => e.id)),
          new Set(second),
          "only the missed ones",
        );
        assert.equal(resumed.length, 15, "each event once");
        for (const id of second) {
          const kinds: string[] = resumed.filter((e) => e.id === id).map((e) => e.kind);
          assert.deepEqual(kinds, ["created", "started", "succeeded"], id);
        }
        assert.ok(!stream.frames.some((f) => f.event === "missed"));

        // Quiet for longer than the server's idle timeout (10 s): still open, then live again.
        const quietSince = Date.now();
        await eventually(() => Date.now() - quietSince > 12_000 || null, "12 s of quiet", 15_000);
        assert.equal(stream.ended(), false, "the stream outlasted the idle timeout");
        assert.ok(stream.comments() >= 2, `${stream.comments()} keep-alive comments`);
        const [late] = await submit(1);
        await eventually(
          () => taskEventsOf(stream!.frames).some((e) => e.id === late && e.kind === "succeeded"),
          "a task after the quiet spell",
        );
      } finally {
        await stream?.close();
        await c.close();
      }
    },
  );
});
