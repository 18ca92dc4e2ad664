/**
 * The behaviour suite against the embedded store.
 */
import { MemoryStorage } from "../../src/storage/memory/memory-storage.ts";
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

const memory: StorageFactory = (options) => {
  const storage = new MemoryStorage(options);
  return Promise.resolve({ storage, dispose: () => storage.close() });
};

basicsSuite("memory", memory);
retriesSuite("memory", memory);
timeSuite("memory", memory);
poolsSuite("memory", memory);
workflowsSuite("memory", memory);
observeSuite("memory", memory);
faultsSuite("memory", memory);
boundsSuite("memory", memory);
limitsSuite("memory", memory);
typesSuite("memory", memory);
queriesSuite("memory", memory);
dedupeSuite("memory", memory);
debounceSuite("memory", memory);
expirySuite("memory", memory);
flowKeysSuite("memory", memory);
callOrderSuite("memory", memory);
schedulesSuite("memory", memory);
eventsSuite("memory", memory);
logsSuite("memory", memory);
logsFaultsSuite("memory", memory);
callbacksSuite("memory", memory);
callbackDeliverySuite("memory", memory);
edgeSuite("memory", memory);
