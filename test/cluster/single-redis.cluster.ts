/**
 * @module single-redis.cluster — the whole behaviour suite on one Redis server with the store
 * split into three partitions: what a deployment runs before it moves to a cluster, and the
 * partitioned store over the TCP transports (plain PUBLISH and SUBSCRIBE). Run by
 * `npm run test:cluster`.
 */
import { after, before } from "node:test";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { partitionedRedis } from "../../src/storage/redis/partitions.ts";
import {
  type RedisServerHandle,
  startRedisServer,
  uniquePrefix,
} from "../../scripts/tools/redis-server.ts";
import type { StorageFactory } from "../conformance/harness.ts";
import { runBehaviourSuite } from "../conformance/all-suites.ts";

let server: RedisServerHandle;

before(async () => {
  server = await startRedisServer();
});

after(async () => {
  await server?.stop();
});

const partitioned: StorageFactory = async (options) => {
  const storage = partitionedRedis({
    transport: connectRedisTcp(server.url),
    prefix: uniquePrefix("parts"),
    partitions: 3,
    ...options,
  });
  await storage.init();
  return { storage, dispose: () => storage.close() };
};

runBehaviourSuite("one redis (3 partitions)", partitioned);
