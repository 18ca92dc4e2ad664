/**
 * @module redis-cluster — the transport for a Redis Cluster, on ioredis's `Cluster` (Bun's
 * client has no cluster mode), for Bun, Deno and Node.
 *
 * Every script names one hash-tagged prefix (one partition, src/storage/partitioned/), so
 * ioredis sends it to the master of that slot, follows MOVED and ASK after a reshard or a
 * failover, and auto-pipelines per node: a pipeline is split per slot by construction.
 * Events travel over sharded pub/sub (`shardedPubSub`): the scripts SPUBLISH, subscribers
 * SSUBSCRIBE on the channel's shard (ioredis needs `shardedSubscribers` for that), where
 * plain PUBLISH is broadcast to every node.
 *
 * Faults, as for the single-node transports (redis-link.ts): nothing is queued while the
 * cluster is down, and no command whose connection closed under it is sent again (ioredis's
 * `retryDelayOnFailover` would resend it: a claim could run twice). Redirections (MOVED,
 * ASK) and CLUSTERDOWN or TRYAGAIN replies are retried by ioredis: the server did not run
 * the command. A connection error also refreshes the slot map, so a promoted replica is
 * found without waiting for the periodic refresh.
 */
import { Cluster, type ClusterOptions, type Redis } from "ioredis";
import {
  normaliseResp3,
  pipelineBySend,
  RedisCommandError,
  type RedisReply,
  type RedisTransport,
  type Unsubscribe,
} from "../storage/redis/transport.ts";
import {
  ChannelListeners,
  ConnectionGate,
  connectionLost,
  type LinkOptions,
  splitLinkOptions,
  StallWatch,
  watchedSend,
} from "./redis-link.ts";

/** A seed node of the cluster, as `REDIS_CLUSTER_NODES` lists them. */
export interface ClusterSeed {
  host: string;
  port: number;
}

/** Options of {@link ClusterTransport}: fault bounds, credentials, and ioredis's own. */
export type ClusterTransportOptions = LinkOptions & {
  password?: string;
  username?: string;
  tls?: boolean;
  /** Passed to ioredis's `Cluster` over the defaults below. */
  cluster?: ClusterOptions;
};

/**
 * Reads `REDIS_CLUSTER_NODES`: `host:port` entries separated by commas, or
 * `redis://[user:password@]host:port` (`rediss://` for TLS), whose credentials then apply to
 * every node. Throws a message naming the bad entry.
 *
 * @example
 * parseClusterNodes("10.0.0.1:7000,10.0.0.2:7000");
 */
export function parseClusterNodes(
  spec: string,
): { seeds: ClusterSeed[]; password?: string; username?: string; tls: boolean } {
  const out: ReturnType<typeof parseClusterNodes> = { seeds: [], tls: false };
  for (const raw of spec.split(",").map((s) => s.trim()).filter(Boolean)) {
    const url = raw.includes("://") ? raw : `redis://${raw}`;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new TypeError(`REDIS_CLUSTER_NODES: ${JSON.stringify(raw)} is not host:port`);
    }
    const port = Number(u.port);
    if (!/^rediss?:$/.test(u.protocol) || !u.hostname || !Number.isInteger(port) || port < 1) {
      throw new TypeError(
        `REDIS_CLUSTER_NODES: ${JSON.stringify(raw)} is not host:port (e.g. 10.0.0.1:7000)`,
      );
    }
    out.seeds.push({ host: u.hostname.replace(/^\[|\]$/g, ""), port });
    if (u.protocol === "rediss:") out.tls = true;
    if (u.password) out.password = decodeURIComponent(u.password);
    if (u.username) out.username = decodeURIComponent(u.username);
  }
  if (out.seeds.length === 0) {
    throw new TypeError("REDIS_CLUSTER_NODES: expected host:port,host:port,… of the cluster");
  }
  return out;
}

/** Reconnect forever, 50 ms doubling to 2 s, with jitter (as the single-node transport). */
function reconnectDelay(attempt: number): number {
  return Math.min(2_000, 50 * 2 ** Math.min(attempt - 1, 6)) + Math.floor(Math.random() * 100);
}

/** Commands without a key that must reach every master, not one picked at random. */
const EVERY_MASTER = new Set(["CONFIG", "SCRIPT"]);

/**
 * A {@link RedisTransport} over a Redis Cluster.
 *
 * @example
 * const transport = new ClusterTransport([{ host: "127.0.0.1", port: 7000 }]);
 * const storage = partitionedRedis({ transport, partitions: 3 });
 */
export class ClusterTransport implements RedisTransport {
  readonly name = "ioredis-cluster";
  readonly shardedPubSub = true;
  readonly #cluster: Cluster;
  readonly #where: string;
  readonly #gate: ConnectionGate;
  readonly #watch: StallWatch;
  #closed = false;
  readonly #listeners = new ChannelListeners();

  constructor(seeds: ClusterSeed[], options: ClusterTransportOptions = {}) {
    const [link, rest] = splitLinkOptions(options);
    const { password, username, tls, cluster } = rest;
    this.#where = `cluster ${seeds.map((s) => `${s.host}:${s.port}`).join(",")}`;
    this.#cluster = new Cluster(seeds, {
      enableAutoPipelining: true,
      // ioredis 6 would pipeline these with the tick's other commands to the slot's master,
      // on the command connection instead of the shard's subscriber: messages then reach a
      // connection nobody listens to (checked here: SPUBLISH counts a receiver, none arrives).
      autoPipeliningIgnoredCommands: ["ssubscribe", "sunsubscribe"],
      // Nothing queued while the cluster is down: the gate below waits a bounded time.
      enableOfflineQueue: false,
      // A command whose connection closed may have run: never resend it (0 turns it off).
      retryDelayOnFailover: 0,
      // The server refused these without running them: safe to send again.
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      shardedSubscribers: true,
      // A backstop only: a redirection or a lost node refreshes the map at once (#toError),
      // and each refresh is a command an idle worker pays for.
      slotsRefreshInterval: 60_000,
      clusterRetryStrategy: reconnectDelay,
      // Node connections come back on their own; what was in flight is rejected, not resent.
      clusterNodeRetryStrategy: reconnectDelay,
      redisOptions: {
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        ...(password ? { password } : {}),
        ...(username ? { username } : {}),
        ...(tls ? { tls: {} } : {}),
      },
      ...cluster,
    });
    // Errors surface on the commands; without a listener ioredis logs every reconnect.
    this.#cluster.on("error", () => {});
    this.#cluster.on("node error", () => {});
    this.#cluster.on("smessage", (channel: string, message: string) => {
      this.#listeners.deliver(channel, message);
    });
    this.#gate = new ConnectionGate(() => this.#cluster.status === "ready", link.offlineWaitMs);
    this.#cluster.on("ready", () => this.#gate.opened());
    this.#watch = new StallWatch(link.stallTimeoutMs, () => this.#cluster.disconnect(true));
  }

  async send(cmd: string[]): Promise<RedisReply> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot send ${cmd[0]}`);
    if (this.#cluster.status !== "ready" && !(await this.#gate.ready())) {
      throw this.#gate.unreachable(this.#where, cmd[0]);
    }
    const name = cmd[0].toUpperCase();
    if (EVERY_MASTER.has(name)) return this.#everyMaster(cmd);
    return await this.#call(this.#cluster, cmd);
  }

  #call(client: Cluster | Redis, cmd: string[]): Promise<RedisReply> {
    // Arguments as one array, never spread (a batch is more arguments than a call takes).
    return watchedSend(
      this.#watch,
      cmd,
      async () => normaliseResp3(cmd, await client.call(cmd[0], cmd.slice(1))),
      (error) => this.#toError(error, cmd),
    );
  }

  /**
   * CONFIG and SCRIPT on every master: a script loaded everywhere, and a setting read from
   * every node. A CONFIG GET value that differs between masters comes back as the values
   * joined by `|`, so a check for one value (noeviction) fails on any node that lacks it.
   */
  async #everyMaster(cmd: string[]): Promise<RedisReply> {
    const masters = this.#cluster.nodes("master");
    const replies = await Promise.all(masters.map((node) => this.#call(node, cmd)));
    if (cmd[0].toUpperCase() !== "CONFIG" || replies.length < 2) return replies[0] ?? null;
    const values = new Map<string, Set<string>>();
    for (const reply of replies) {
      const flat = Array.isArray(reply) ? reply : [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const set = values.get(String(flat[i])) ?? new Set();
        values.set(String(flat[i]), set.add(String(flat[i + 1])));
      }
    }
    return [...values].flatMap(([field, set]) => [field, [...set].join("|")]);
  }

  pipeline(cmds: string[][]): Promise<(RedisReply | RedisCommandError)[]> {
    return pipelineBySend((cmd) => this.send(cmd), cmds);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe> {
    if (this.#closed) throw new Error(`Redis transport is closed; cannot subscribe ${channel}`);
    return await this.#listeners.add(channel, onMessage, async () => {
      try {
        if (this.#cluster.status !== "ready" && !(await this.#gate.ready())) {
          throw this.#gate.unreachable(this.#where, `SSUBSCRIBE ${channel}`);
        }
        // ioredis keeps the channel on its shard's subscriber across failovers and reshards.
        await this.#cluster.ssubscribe(channel);
      } catch (error) {
        throw this.#toError(error, ["SSUBSCRIBE", channel]);
      }
    }, async () => {
      if (this.#cluster.status === "ready") {
        await this.#cluster.sunsubscribe(channel).catch(() => {});
      }
    });
  }

  #toError(error: unknown, cmd: string[]): unknown {
    if (error instanceof Error && error.name === "ReplyError") {
      // A redirection ioredis did not follow (see faults.ts): learn the new map now.
      if (/^(MOVED|ASK) /.test(error.message) && !this.#closed) this.#cluster.refreshSlotsCache();
      return new RedisCommandError(error.message, { cause: error });
    }
    // A node went away (killed, failed over): learn the new slot map now, not in 2 s.
    if (!this.#closed) this.#cluster.refreshSlotsCache();
    const lost = error instanceof Error && error.name === "MaxRetriesPerRequestError";
    return connectionLost(this.#where, cmd[0], error, lost ? "the connection was lost" : undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watch.stop();
    this.#listeners.clear();
    await this.#cluster.quit().catch(() => this.#cluster.disconnect());
  }
}
