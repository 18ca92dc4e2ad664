/**
 * @module redis-cluster — starts a throwaway Redis Cluster on free ports for tests and
 * benchmarks: `masters` masters and `replicas` replicas per master, made with
 * `redis-server --cluster-enabled yes` and `redis-cli --cluster create`, as
 * /work/shared/notes/faults-and-clusters.md describes; waits until every node says
 * `cluster_state:ok`. Also the faults the cluster tests need: kill a node, fail a master
 * over to its replica.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-server.ts";
import { eventually } from "./wait.ts";

export interface ClusterNode {
  port: number;
  pid: number;
  /** Whether its process still runs (false after kill()). */
  alive: boolean;
}

export interface RedisClusterHandle {
  nodes: ClusterNode[];
  /** `127.0.0.1:port,…` of every node: REDIS_CLUSTER_NODES. */
  seeds: string;
  /** Ports of the nodes that are masters now (it changes with a failover). */
  masters(): number[];
  /** The replicas of master `port` now. */
  replicasOf(port: number): number[];
  /** Runs `redis-cli -p port …` and answers its output (throws when it fails). */
  cli(port: number, ...args: string[]): string;
  /** SIGKILL of one node: no shutdown, no last write. */
  kill(port: number): Promise<void>;
  /** CLUSTER FAILOVER on replica `port`, then waits until it is a master everywhere. */
  failover(replica: number): Promise<void>;
  /** Waits until every live node says `cluster_state:ok`. */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const INSTALL_HINT = "redis-server was not found on PATH. Install it first: " +
  "`apt-get install -y redis-server` (Debian/Ubuntu) or `brew install redis` (macOS).";

/**
 * Starts a cluster. `nodeTimeoutMs` is cluster-node-timeout: how long a master may stay
 * silent before its replica takes over (short, so a killed master fails over quickly).
 */
export async function startRedisCluster(
  options: { masters?: number; replicas?: number; nodeTimeoutMs?: number } = {},
): Promise<RedisClusterHandle> {
  if (spawnSync("redis-server", ["--version"]).error) throw new Error(INSTALL_HINT);
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), "skedulr-cluster-"));
  const children = new Map<number, ChildProcess>();
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < masters * (1 + replicas); i++) {
    const port = await freePort();
    const child = spawn("redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      join(dir, `nodes-${port}.conf`),
      "--cluster-node-timeout",
      String(options.nodeTimeoutMs ?? 2_000),
      "--dir",
      dir,
      "--dbfilename",
      `dump-${port}.rdb`,
      "--save",
      "",
      "--appendonly",
      "no",
      "--maxmemory-policy",
      "noeviction",
    ], { stdio: "ignore" });
    children.set(port, child);
    nodes.push({ port, pid: child.pid!, alive: true });
    child.once("exit", () => (nodes.find((n) => n.port === port)!.alive = false));
  }
  const cli = (port: number, ...args: string[]) => {
    const r = spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`redis-cli -p ${port} ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  const handle: RedisClusterHandle = {
    nodes,
    seeds: nodes.map((n) => `127.0.0.1:${n.port}`).join(","),
    masters: () => roles(cli, nodes).filter((r) => r.master === null).map((r) => r.port),
    replicasOf: (port) => roles(cli, nodes).filter((r) => r.master === port).map((r) => r.port),
    cli,
    async kill(port) {
      const child = children.get(port)!;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
    async failover(replica) {
      // A manual failover the master does not complete in time (its replication offset under
      // load) is dropped by the replica without a word: ask again, up to three times.
      const promoted = () =>
        nodes.filter((n) => n.alive).every((n) => masterSeenBy(cli, n.port, replica));
      for (let attempt = 1;; attempt++) {
        cli(replica, "CLUSTER", "FAILOVER");
        try {
          await eventually(promoted, `node ${replica} to be a master on every node`, 10_000);
          break;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
      await handle.ready();
    },
    async ready(timeoutMs = 20_000) {
      await eventually(
        () =>
          nodes.filter((n) => n.alive).every((n) =>
            /cluster_state:ok/.test(tryCli(cli, n.port, "CLUSTER", "INFO"))
          ),
        "every node to say cluster_state:ok",
        timeoutMs,
      );
    },
    async stop() {
      await Promise.all(nodes.map((n) => handle.kill(n.port)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await eventually(
      () => nodes.every((n) => tryCli(cli, n.port, "PING").trim() === "PONG"),
      "every node to answer",
      10_000,
    );
    cli(
      nodes[0].port,
      "--cluster",
      "create",
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      "--cluster-replicas",
      String(replicas),
      "--cluster-yes",
    );
    await handle.ready();
    // Every replica must have joined its master, or a failover test has nothing to promote.
    await eventually(
      () => handle.masters().length === masters && roles(cli, nodes).length === nodes.length,
      `${masters} masters and ${masters * replicas} replicas`,
      20_000,
    );
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}

function tryCli(cli: RedisClusterHandle["cli"], port: number, ...args: string[]): string {
  try {
    return cli(port, ...args);
  } catch {
    return "";
  }
}

/** Each live node's port and its master's port (null: a master), as CLUSTER NODES says. */
function roles(
  cli: RedisClusterHandle["cli"],
  nodes: ClusterNode[],
): { port: number; master: number | null }[] {
  const live = nodes.find((n) => n.alive);
  if (!live) return [];
  const lines = tryCli(cli, live.port, "CLUSTER", "NODES").trim().split("\n");
  const byId = new Map<string, number>();
  const parsed = lines.map((line) => line.split(" ")).filter((f) => f.length >= 8);
  for (const f of parsed) byId.set(f[0], Number(/:(\d+)@/.exec(f[1])?.[1]));
  return parsed
    .filter((f) =>
      !f[2].includes("fail") && nodes.some((n) => n.alive && n.port === byId.get(f[0]))
    )
    .map((f) => ({
      port: byId.get(f[0])!,
      master: f[2].includes("master") ? null : byId.get(f[3]) ?? null,
    }));
}

/** Whether node `port` sees `master` as a master. */
function masterSeenBy(cli: RedisClusterHandle["cli"], port: number, master: number): boolean {
  return tryCli(cli, port, "CLUSTER", "NODES").split("\n").some((line) => {
    const flags = line.split(" ")[2] ?? "";
    return line.includes(`:${master}@`) && flags.split(",").includes("master") &&
      !flags.includes("fail");
  });
}
