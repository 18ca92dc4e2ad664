/**
 * Header values of `http` tasks are credentials for the target: never returned by the API
 * (task, listing, schedules), never matched by `q` search, yet delivered to the target and
 * compared by a retried submit. Checked on every backend: the embedded store, Redis over TCP
 * and Redis over REST (through the project's gateway, in front of the test run's throwaway
 * redis-server), and through the HTTP API.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { createApp } from "../../routes/app.ts";
import {
  httpTaskHandler,
  httpTaskPayloadSchema,
  MemoryStorage,
  outboundPolicy,
  REDACTED,
  Scheduler,
  silentLogger,
  type Storage,
  type TaskRecord,
} from "../../src/mod.ts";
import { pinnedFetch } from "../../src/adapters/pinned-http.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { keyPrefix, keys } from "../../src/storage/redis/keys.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const SECRET = "Bearer s3cr3t-0123456789";
const GATEWAY_TOKEN = "secrets-gateway-token";
const LOCAL = outboundPolicy("127.0.0.1");

interface Backend {
  storage: Storage;
  /** The stored payload text, as the store keeps it (what listings search), for Redis. */
  rawPayload?(id: string): Promise<string>;
}

let gateway: RunningGateway | undefined;
const backends: Record<string, () => Promise<Backend>> = {
  memory: () => Promise.resolve({ storage: new MemoryStorage() }),
  "redis-tcp": async () => {
    const transport = connectRedisTcp(await testRedisUrl());
    const prefix = uniquePrefix("secrets");
    return redisBackend(new RedisStorage({ transport, prefix }), transport, prefix);
  },
  "redis-rest": () => {
    const transport = new RestTransport({ url: gateway!.url, token: GATEWAY_TOKEN });
    const prefix = uniquePrefix("secrets");
    return redisBackend(new RestRedisStorage({ transport, prefix }), transport, prefix);
  },
};

function redisBackend(
  storage: Storage,
  transport: RedisTransport,
  prefix: string,
): Promise<Backend> {
  return Promise.resolve({
    storage,
    rawPayload: async (id: string) =>
      String(await transport.send(["HGET", keys.task(keyPrefix(prefix), id), "payload"])),
  });
}

async function receiver(): Promise<{ url: string; auth: string[]; server: Server }> {
  const auth: string[] = [];
  const server = createServer((req, res) => {
    auth.push(String(req.headers.authorization));
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    auth,
    server,
  };
}

before(async () => {
  gateway = await startGateway({ redisUrl: await testRedisUrl(), token: GATEWAY_TOKEN });
});
after(async () => {
  await gateway?.stop();
});

for (const [name, open] of Object.entries(backends)) {
  describe(`http task header values are secret (${name})`, () => {
    it("stored apart, redacted in every answer, unsearchable, delivered to the target", async () => {
      const backend = await open();
      const r = await receiver();
      const s = new Scheduler({
        storage: backend.storage,
        logger: silentLogger,
        pools: { default: 2 },
      });
      s.register("http", httpTaskHandler({ policy: LOCAL, fetcher: pinnedFetch }), {
        payloadSchema: httpTaskPayloadSchema(LOCAL),
      });
      const app = createApp({ scheduler: s });
      const api = async (path: string) => (await app.request(`/skedulr/api${path}`)).text();
      const headers = { Authorization: SECRET, "X-Trace": "trace-42" };
      const spec = { id: `hook-${name}`, type: "http", payload: { url: r.url, headers } };
      try {
        await s.start();
        const id = await s.submit(spec);
        const done = await eventually(async () => {
          const t = await s.get(id);
          return t?.status === "succeeded" ? t : null;
        }, "delivered");
        assert.deepEqual(r.auth, [SECRET], "the target gets the value");

        const shown = JSON.parse(JSON.stringify(done)) as TaskRecord;
        assert.deepEqual((shown.payload as { headers: object }).headers, {
          Authorization: REDACTED,
          "X-Trace": REDACTED,
        });
        for (const text of [await api(`/tasks/${id}`), await api("/tasks"), JSON.stringify(done)]) {
          assert.ok(!text.includes("s3cr3t"), `a value leaked: ${text}`);
          assert.ok(text.includes(REDACTED));
        }
        if (backend.rawPayload) assert.ok(!(await backend.rawPayload(id)).includes("s3cr3t"));

        assert.equal((await s.list({ q: "s3cr3t" })).items.length, 0, "search skips values");
        assert.equal((await s.list({ q: "trace-42" })).items.length, 0);
        assert.equal((await s.list({ q: "authorization" })).items.length, 1, "names stay");
        assert.equal(JSON.parse(await api("/tasks?q=s3cr3t")).tasks.length, 0);

        // A retried submit of the same spec is still recognised (values compared, not shown).
        const [again] = await s.submitMany([spec]);
        assert.equal(again.existing, true);
        const changed = {
          ...spec,
          payload: { url: r.url, headers: { ...headers, "X-Trace": "x" } },
        };
        await assert.rejects(s.submitMany([changed]), /in use|conflict/i);

        // Schedules keep the values for their runs and show them redacted.
        const sid = await s.submit({
          type: "http",
          payload: { url: r.url, headers },
          every: "1h",
          runAt: Date.now(),
        });
        await eventually(() => r.auth.length === 2, "the schedule's first run");
        assert.deepEqual(r.auth, [SECRET, SECRET]);
        const schedules = await api("/schedules");
        assert.ok(!schedules.includes("s3cr3t") && schedules.includes(REDACTED), schedules);
        await s.removeSchedule(sid);
      } finally {
        await s.shutdown({ timeoutMs: 1000 });
        await backend.storage.close();
        r.server.closeAllConnections?.();
        await new Promise((done) => r.server.close(done));
      }
    });
  });
}
