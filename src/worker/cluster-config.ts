/**
 * @module cluster-config — the environment that splits a deployment into partitions and
 * points it at a Redis Cluster (config.ts reads the rest): SKEDULR_PARTITIONS and
 * REDIS_CLUSTER_NODES, each refused with a message naming it.
 */
import { MAX_PARTITIONS } from "../core/partitions.ts";

/** `host:port`, `[v6]:port`, or `redis(s)://[user:password@]host:port`. */
const NODE = /^(?:rediss?:\/\/(?:[^@/\s]*@)?)?(?:\[[0-9a-f:.]+\]|[^\s,:/@[\]]+):\d{1,5}$/i;

export interface ClusterConfig {
  /** SKEDULR_PARTITIONS (default 1: one partition, the layout of a single store). */
  partitions: number;
  /** REDIS_CLUSTER_NODES as given (a comma list of seed nodes), or null. */
  clusterNodes: string | null;
}

/** Reads both variables; each problem is pushed onto `problems`, naming its variable. */
export function parseClusterConfig(
  get: (name: string) => string | null,
  problems: string[],
  others: { redisUrl: string | null; restUrl: string | null },
): ClusterConfig {
  const raw = get("SKEDULR_PARTITIONS");
  let partitions = 1;
  if (raw !== null) {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > MAX_PARTITIONS) {
      problems.push(
        `SKEDULR_PARTITIONS: expected an integer 1..${MAX_PARTITIONS}, got ${JSON.stringify(raw)}`,
      );
    } else partitions = n;
  }
  const clusterNodes = get("REDIS_CLUSTER_NODES");
  if (clusterNodes !== null) {
    const bad = clusterNodes.split(",").map((s) => s.trim()).find((s) => !NODE.test(s));
    if (bad !== undefined) {
      problems.push(
        `REDIS_CLUSTER_NODES: expected host:port,host:port,… of the cluster's nodes, got ${
          JSON.stringify(bad)
        }`,
      );
    }
    if (others.redisUrl || others.restUrl) {
      problems.push(
        "REDIS_CLUSTER_NODES and " + (others.redisUrl ? "REDIS_URL" : "UPSTASH_REDIS_REST_URL") +
          " are both set; choose one",
      );
    }
  }
  if (partitions > 1 && others.restUrl && !others.redisUrl && clusterNodes === null) {
    problems.push(
      "SKEDULR_PARTITIONS: partitions need Redis over TCP (REDIS_URL or REDIS_CLUSTER_NODES); " +
        "the REST transport reaches one endpoint with one partition",
    );
  }
  if (partitions > 1 && !others.redisUrl && !others.restUrl && clusterNodes === null) {
    problems.push(
      "SKEDULR_PARTITIONS: the embedded store has one partition; set REDIS_URL or " +
        "REDIS_CLUSTER_NODES to split a deployment",
    );
  }
  return { partitions, clusterNodes };
}
