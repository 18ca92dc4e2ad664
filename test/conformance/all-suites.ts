/**
 * @module all-suites — every behaviour suite, in one call: what each backend's test file runs
 * (memory, Redis over TCP and REST, partitioned stores, a Redis Cluster).
 */
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

/** Registers every suite for `backend`, each test on a fresh store from `factory`. */
export function runBehaviourSuite(backend: string, factory: StorageFactory): void {
  basicsSuite(backend, factory);
  retriesSuite(backend, factory);
  timeSuite(backend, factory);
  poolsSuite(backend, factory);
  workflowsSuite(backend, factory);
  observeSuite(backend, factory);
  faultsSuite(backend, factory);
  boundsSuite(backend, factory);
  limitsSuite(backend, factory);
  typesSuite(backend, factory);
  queriesSuite(backend, factory);
  dedupeSuite(backend, factory);
  debounceSuite(backend, factory);
  expirySuite(backend, factory);
  flowKeysSuite(backend, factory);
  schedulesSuite(backend, factory);
  eventsSuite(backend, factory);
  logsSuite(backend, factory);
  logsFaultsSuite(backend, factory);
  callbacksSuite(backend, factory);
  callbackDeliverySuite(backend, factory);
}
