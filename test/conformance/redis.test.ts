/**
 * The behaviour suite against Redis over TCP, on the test run's throwaway redis-server, each
 * test under its own key prefix.
 */
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
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

const redis: StorageFactory = async (options) => {
  const transport = connectRedisTcp(await testRedisUrl());
  const storage = new RedisStorage({ transport, prefix: uniquePrefix("conf"), ...options });
  await storage.init();
  return { storage, dispose: () => storage.close() };
};

/** The edge deliverer's store: its scripts hashed before the first call, as in each alarm. */
const redisOnce: StorageFactory = async (options) => {
  const made = await redis(options);
  await (made.storage as RedisStorage).prepare();
  return made;
};

const backend = `redis-tcp (${
  typeof (globalThis as { Bun?: unknown }).Bun !== "undefined" ? "bun" : "deno"
})`;
basicsSuite(backend, redis);
retriesSuite(backend, redis);
timeSuite(backend, redis);
poolsSuite(backend, redis);
workflowsSuite(backend, redis);
observeSuite(backend, redis);
faultsSuite(backend, redis);
boundsSuite(backend, redis);
limitsSuite(backend, redis);
typesSuite(backend, redis);
queriesSuite(backend, redis);
dedupeSuite(backend, redis);
debounceSuite(backend, redis);
expirySuite(backend, redis);
flowKeysSuite(backend, redis);
callOrderSuite(backend, redis);
schedulesSuite(backend, redis);
eventsSuite(backend, redis);
logsSuite(backend, redis);
logsFaultsSuite(backend, redis);
callbacksSuite(backend, redis);
callbackDeliverySuite(backend, redis);
edgeSuite(backend, redisOnce);
