/**
 * The behaviour suite against a partitioned store of three embedded stores: the routing,
 * placement, claims and merged reads of src/storage/partitioned/ without Redis (the same
 * suite runs on a real Redis Cluster in test/cluster/).
 */
import { MemoryStorage } from "../../src/storage/memory/memory-storage.ts";
import { PartitionedStorage } from "../../src/storage/partitioned/partitioned-storage.ts";
import type { StorageFactory } from "./harness.ts";
import { runBehaviourSuite } from "./all-suites.ts";

const partitioned: StorageFactory = (options) => {
  const parts = [0, 1, 2].map(() => new MemoryStorage(options));
  const storage = new PartitionedStorage({ parts });
  return Promise.resolve({ storage, dispose: () => storage.close() });
};

runBehaviourSuite("partitioned (3 × memory)", partitioned);
