/**
 * @module redis-tcp — picks the TCP transport for the current runtime.
 *
 * Bun's built-in client on Bun (faster pipelined script batches and lower latency there,
 * measured by `scripts/bench/redis-client.ts`), ioredis with auto-pipelining on Deno and
 * Node. `client` forces one.
 */
import type { RedisTransport } from "../storage/redis/transport.ts";
import { BunRedisTransport, hasBunRedis } from "./redis-bun.ts";
import { IoredisTransport } from "./redis-ioredis.ts";

/** Which TCP client to use; `auto` picks by runtime. */
export type TcpClient = "auto" | "bun" | "ioredis";

/**
 * Opens a TCP transport to `url` (`redis://[:password@]host:port[/db]`, `rediss://` for TLS).
 *
 * @example
 * const transport = connectRedisTcp("redis://127.0.0.1:6379");
 * const storage = new RedisStorage({ transport });
 */
export function connectRedisTcp(url: string, client: TcpClient = "auto"): RedisTransport {
  if (client === "bun" || (client === "auto" && hasBunRedis())) return new BunRedisTransport(url);
  return new IoredisTransport(url);
}
