/**
 * The behaviour suite against the embedded store.
 */
import { MemoryStorage } from "../../src/storage/memory/memory-storage.ts";
import type { StorageFactory } from "./harness.ts";
import { basicsSuite } from "./suite-basics.ts";
import { retriesSuite } from "./suite-retries.ts";

const memory: StorageFactory = (options) => {
  const storage = new MemoryStorage(options);
  return Promise.resolve({ storage, dispose: () => storage.close() });
};

basicsSuite("memory", memory);
retriesSuite("memory", memory);
