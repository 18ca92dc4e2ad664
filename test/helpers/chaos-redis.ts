/**
 * @module chaos-redis — a throwaway redis-server with AOF persistence that a test can shut
 * down and restart on the same port and data, pause, fill up and kill: the Redis of the chaos
 * suite (test/chaos/). How Redis behaves under each of these is written down in
 * ../shared/notes/faults-and-clusters.md.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import type { RedisReply, RedisTransport } from "../../src/storage/redis/transport.ts";
import { type RedisServerHandle, startRedisServer } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";

export interface ChaosRedisOptions {
  /** `appendfsync`: `everysec` (Redis' default for AOF) or `always`. */
  fsync?: "everysec" | "always";
}

export interface ChaosRedis {
  readonly url: string;
  readonly port: number;
  /** The data directory, kept across restarts (the AOF lives here). */
  readonly dir: string;
  /** The pid of the server now running (a restart changes it). */
  readonly pid: number;
  /** Starts the server again on the same port and dir; resolves once it has loaded the AOF. */
  start(): Promise<void>;
  /** Graceful `SHUTDOWN`: writes the AOF, closes every connection, exits. */
  shutdown(): Promise<void>;
  /** SIGSTOP: connections stay open, commands queue unanswered until {@link resume}. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** `CONFIG SET maxmemory` (0 = no limit); with noeviction, adds are refused above it. */
  setMaxmemory(bytes: number): Promise<void>;
  /** `used_memory` from `INFO memory`. */
  usedMemory(): Promise<number>;
  /** SIGKILL: no AOF rewrite or fsync on the way out. */
  kill9(): Promise<void>;
  /** Kills the server (if running) and removes its data directory. */
  stop(): Promise<void>;
  /** One command on a fresh connection (survives restarts of the server). */
  send(cmd: string[]): Promise<RedisReply>;
  /** Runs `use` with a fresh connection, closed after. */
  query<T>(use: (redis: RedisTransport) => Promise<T>): Promise<T>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts redis-server with `--appendonly yes --appendfsync <fsync> --dir <tmp> --save ''` and
 * noeviction on a free port.
 *
 * @example
 * const redis = await startChaosRedis({ fsync: "always" });
 * await redis.shutdown();
 * await redis.start(); // same port, same data
 */
export async function startChaosRedis(options: ChaosRedisOptions = {}): Promise<ChaosRedis> {
  const dir = mkdtempSync(join(tmpdir(), "skedulr-chaos-"));
  const args = [
    "--appendonly",
    "yes",
    "--appendfsync",
    options.fsync ?? "everysec",
    "--dir",
    dir,
    "--save",
    "",
    "--maxmemory-policy",
    "noeviction",
  ];
  let server: RedisServerHandle = await startRedisServer(args);
  let running = true;
  const port = server.port;

  /**
   * Waits for a server that exits on its own (with code 0: redis-server.ts's stop() waits
   * forever for a child that already died of a signal), then lets it clean its temp dir.
   */
  const reap = async () => {
    await eventually(() => !alive(server.pid), `redis-server ${server.pid} to exit`, 15_000);
    await server.stop();
    running = false;
  };

  const query = async <T>(use: (redis: RedisTransport) => Promise<T>): Promise<T> => {
    const redis = connectRedisTcp(server.url);
    try {
      return await use(redis);
    } finally {
      await redis.close().catch(() => {});
    }
  };

  const handle: ChaosRedis = {
    url: server.url,
    port,
    dir,
    get pid() {
      return server.pid;
    },
    async start() {
      if (running) throw new Error(`redis-server on port ${port} is already running`);
      server = await startRedisServer(args, { port });
      running = true;
    },
    async shutdown() {
      // The server closes the connection instead of replying: the rejection is the answer.
      await query((r) => r.send(["SHUTDOWN"])).catch(() => {});
      await reap();
    },
    pause() {
      process.kill(server.pid, "SIGSTOP");
    },
    resume() {
      process.kill(server.pid, "SIGCONT");
    },
    async setMaxmemory(bytes) {
      await query((r) => r.send(["CONFIG", "SET", "maxmemory", String(Math.floor(bytes))]));
    },
    async usedMemory() {
      const info = String(await query((r) => r.send(["INFO", "memory"])));
      const m = /^used_memory:(\d+)/m.exec(info);
      if (!m) throw new Error(`INFO memory has no used_memory: ${info.slice(0, 200)}`);
      return Number(m[1]);
    },
    async kill9() {
      if (!running) return;
      await server.stop(); // SIGKILL, and waits for the exit
      running = false;
    },
    async stop() {
      if (running) {
        // A paused server ignores nothing but SIGKILL; CONT first is harmless.
        if (alive(server.pid)) process.kill(server.pid, "SIGCONT");
        await server.stop();
        running = false;
      }
      rmSync(dir, { recursive: true, force: true });
    },
    send: (cmd) => query((r) => r.send(cmd)),
    query,
  };
  return handle;
}
