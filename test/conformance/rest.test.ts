/**
 * The behaviour suite against Redis over Upstash REST: RestRedisStorage (the store a worker
 * over REST uses, event-driven claims included) through the project's REST gateway,
 * started in this process in front of the test run's throwaway redis-server. Runs under
 * Bun and Deno alike; each test under its own key prefix.
 */
import { after, before, describe } from "node:test";
import { RestTransport } from "../../src/storage/redis/rest-transport.ts";
import { RestRedisStorage } from "../../src/storage/redis/rest-storage.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { type RunningGateway, startGateway } from "../../scripts/rest-gateway/gateway.ts";
import { testRedisUrl, uniquePrefix } from "../../scripts/tools/redis-server.ts";
import type { StorageFactory } from "./harness.ts";
import { basicsSuite } from "./suite-basics.ts";
import { retriesSuite } from "./suite-retries.ts";
import { timeSuite } from "./suite-time.ts";
import { poolsSuite } from "./suite-pools.ts";
import { workflowsSuite } from "./suite-workflows.ts";
import { observeSuite } from "./suite-observe.ts";
import { faultsSuite } from "./suite-faults.ts";
import { boundsSuite } from "./suite-bounds.ts";
import { limitsSuite } from "./suite-limits.ts";
import { typesSuite } from "./suite-types.ts";
import { queriesSuite } from "./suite-queries.ts";
import { dedupeSuite } from "./suite-dedupe.ts";
import { debounceSuite } from "./suite-debounce.ts";
import { expirySuite } from "./suite-expiry.ts";
import { schedulesSuite } from "./suite-schedules.ts";
import { flowKeysSuite } from "./suite-flow-keys.ts";
import { callOrderSuite } from "./suite-call-order.ts";
import { eventsSuite } from "./suite-events.ts";
import { logsSuite } from "./suite-logs.ts";
import { logsFaultsSuite } from "./suite-logs-faults.ts";
import { callbacksSuite } from "./suite-callbacks.ts";
import { callbackDeliverySuite } from "./suite-callback-delivery.ts";
import { edgeSuite } from "./suite-edge.ts";

const TOKEN = "conformance-rest-token";
let gateway: RunningGateway | undefined;

const rest: StorageFactory = async (options) => {
  if (!gateway) throw new Error("the REST gateway did not start (see the before hook)");
  const transport = new RestTransport({ url: gateway.url, token: TOKEN });
  const storage = new RestRedisStorage({ transport, prefix: uniquePrefix("rest"), ...options });
  await storage.init();
  return { storage, dispose: () => storage.close() };
};

/**
 * The store the edge deliverer makes in each alarm: plain RedisStorage, no event stream, its
 * scripts hashed before the first call (prepare).
 */
const restOnce: StorageFactory = async (options) => {
  if (!gateway) throw new Error("the REST gateway did not start (see the before hook)");
  const transport = new RestTransport({ url: gateway.url, token: TOKEN });
  const storage = new RedisStorage({
    transport,
    prefix: uniquePrefix("rest"),
    subscribeEvents: false,
    checkEvictionPolicy: false,
    ...options,
  });
  await storage.init();
  await storage.prepare();
  return { storage, dispose: () => storage.close() };
};

const backend = `redis-rest (${
  typeof (globalThis as { Bun?: unknown }).Bun !== "undefined" ? "bun" : "deno"
})`;

describe(backend, () => {
  before(async () => {
    gateway = await startGateway({ redisUrl: await testRedisUrl(), token: TOKEN });
  });
  after(async () => {
    await gateway?.stop();
  });
  basicsSuite(backend, rest);
  retriesSuite(backend, rest);
  timeSuite(backend, rest);
  poolsSuite(backend, rest);
  workflowsSuite(backend, rest);
  observeSuite(backend, rest);
  faultsSuite(backend, rest);
  boundsSuite(backend, rest);
  limitsSuite(backend, rest);
  typesSuite(backend, rest);
  queriesSuite(backend, rest);
  dedupeSuite(backend, rest);
  debounceSuite(backend, rest);
  expirySuite(backend, rest);
  flowKeysSuite(backend, rest);
  callOrderSuite(backend, rest);
  schedulesSuite(backend, rest);
  eventsSuite(backend, rest);
  logsSuite(backend, rest);
  logsFaultsSuite(backend, rest);
  callbacksSuite(backend, rest);
  callbackDeliverySuite(backend, rest);
  edgeSuite(backend, restOnce);
});
