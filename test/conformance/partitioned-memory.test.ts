/**
 * The behaviour suite against a partitioned store of three embedded stores: the routing,
 * placement, claims and merged reads of src/storage/partitioned/ without Redis (the same
 * suite runs on a real Redis Cluster in test/cluster/).
 */
import { MemoryStorage } from "../../src/storage/memory/memory-storage.ts";
import { PartitionedStorage } from "../../src/storage/partitioned/partitioned-storage.ts";
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
import { eventsSuite } from "./suite-events.ts";
import { logsSuite } from "./suite-logs.ts";
import { logsFaultsSuite } from "./suite-logs-faults.ts";
import { callbacksSuite } from "./suite-callbacks.ts";
import { callbackDeliverySuite } from "./suite-callback-delivery.ts";

const partitioned: StorageFactory = (options) => {
  const parts = [0, 1, 2].map(() => new MemoryStorage(options));
  const storage = new PartitionedStorage({ parts });
  return Promise.resolve({ storage, dispose: () => storage.close() });
};

basicsSuite("partitioned (3 × memory)", partitioned);
retriesSuite("partitioned (3 × memory)", partitioned);
timeSuite("partitioned (3 × memory)", partitioned);
poolsSuite("partitioned (3 × memory)", partitioned);
workflowsSuite("partitioned (3 × memory)", partitioned);
observeSuite("partitioned (3 × memory)", partitioned);
faultsSuite("partitioned (3 × memory)", partitioned);
boundsSuite("partitioned (3 × memory)", partitioned);
limitsSuite("partitioned (3 × memory)", partitioned);
typesSuite("partitioned (3 × memory)", partitioned);
queriesSuite("partitioned (3 × memory)", partitioned);
dedupeSuite("partitioned (3 × memory)", partitioned);
debounceSuite("partitioned (3 × memory)", partitioned);
expirySuite("partitioned (3 × memory)", partitioned);
flowKeysSuite("partitioned (3 × memory)", partitioned);
schedulesSuite("partitioned (3 × memory)", partitioned);
eventsSuite("partitioned (3 × memory)", partitioned);
logsSuite("partitioned (3 × memory)", partitioned);
logsFaultsSuite("partitioned (3 × memory)", partitioned);
callbacksSuite("partitioned (3 × memory)", partitioned);
callbackDeliverySuite("partitioned (3 × memory)", partitioned);
