/**
 * @module conformance.cluster — the whole behaviour suite against a real Redis Cluster: three
 * masters started for this file (scripts/tools/redis-cluster.ts), the store split into three
 * partitions (one per master) over ioredis's Cluster with sharded pub/sub. Each test has its
 * own key prefix. Run by `npm run test:cluster` (not part of `npm test`).
 */
import { after, before } from "node:test";
import { ClusterTransport, parseClusterNodes } from "../../src/adapters/redis-cluster.ts";
import { partitionedRedis } from "../../src/storage/redis/partitions.ts";
import { type RedisClusterHandle, startRedisCluster } from "../../scripts/tools/redis-cluster.ts";
import { uniquePrefix } from "../../scripts/tools/redis-server.ts";
import type { StorageFactory } from "../conformance/harness.ts";
import { runBehaviourSuite } from "../conformance/all-suites.ts";

let cluster: RedisClusterHandle;
let transport: ClusterTransport;

before(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  transport = new ClusterTransport(parseClusterNodes(cluster.seeds).seeds);
});

after(async () => {
  await transport?.close();
  await cluster?.stop();
});

const partitioned: StorageFactory = async (options) => {
  const storage = partitionedRedis({
    transport,
    closeTransport: false,
    prefix: uniquePrefix("cluster"),
    partitions: 3,
    ...options,
  });
  await storage.init();
  return { storage, dispose: () => storage.close() };
};

runBehaviourSuite("redis cluster (3 masters, 3 partitions)", partitioned);
