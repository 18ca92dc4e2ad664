/**
 * @module gateway — `bun run rest-gateway` (or `deno task rest-gateway`): an
 * Upstash-compatible REST server in front of a TCP Redis.
 *
 * No Upstash-compatible server exists on npm, and the edge API (Cloudflare Workers, Deno
 * Deploy) can only reach Redis over HTTP, so this is what development and tests run; users
 * can also put it in front of their own Redis. Configuration, from the environment:
 *
 *   REDIS_URL                   redis://[:password@]host:port[/db] behind the gateway (required)
 *   GATEWAY_TOKEN               bearer token clients must send (or UPSTASH_REDIS_REST_TOKEN,
 *                               so one env file serves the gateway and its clients)
 *   PORT                        HTTP port (default 8079)
 *   GATEWAY_HOST                interface to bind (default 127.0.0.1)
 */
import { serve } from "../../src/adapters/serve.ts";
import { createGateway, type Gateway, type GatewayStats } from "./app.ts";

export interface GatewayConfig {
  redisUrl: string;
  token: string;
  port: number;
  hostname: string;
}

/** Reads the configuration; throws one Error listing every bad variable by name. */
export function parseGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  const problems: string[] = [];
  const get = (name: string) => env[name]?.trim() || null;
  const redisUrl = get("REDIS_URL");
  if (!redisUrl) {
    problems.push(
      "REDIS_URL: required, e.g. redis://127.0.0.1:6379 (the Redis behind the gateway)",
    );
  } else if (!/^rediss?:\/\/[^/]/.test(redisUrl) || !URL.canParse(redisUrl)) {
    problems.push(`REDIS_URL: expected redis://host:port, got ${JSON.stringify(redisUrl)}`);
  } else if (redisUrl.startsWith("rediss:")) {
    problems.push("REDIS_URL: rediss:// (TLS) is not supported by the gateway; use redis://");
  }
  const gatewayToken = get("GATEWAY_TOKEN");
  const upstashToken = get("UPSTASH_REDIS_REST_TOKEN");
  const token = gatewayToken ?? upstashToken;
  if (gatewayToken && upstashToken && gatewayToken !== upstashToken) {
    problems.push("GATEWAY_TOKEN and UPSTASH_REDIS_REST_TOKEN differ; set one, or both the same");
  } else if (!token) {
    problems.push("GATEWAY_TOKEN: required (or UPSTASH_REDIS_REST_TOKEN): the bearer token");
  } else if (token.length < 16 || /\s/.test(token)) {
    problems.push(
      `${gatewayToken ? "GATEWAY_TOKEN" : "UPSTASH_REDIS_REST_TOKEN"}: use at least 16 ` +
        "characters without spaces",
    );
  }
  const portText = get("PORT") ?? "8079";
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) {
    problems.push(`PORT: expected an integer 0..65535, got ${JSON.stringify(portText)}`);
  }
  const hostname = get("GATEWAY_HOST") ?? "127.0.0.1";
  if (problems.length) {
    throw new Error(`Invalid gateway configuration:\n  - ${problems.join("\n  - ")}`);
  }
  return { redisUrl: redisUrl!, token: token!, port, hostname };
}

export interface RunningGateway {
  /** Base URL, e.g. `http://127.0.0.1:8079` (what UPSTASH_REDIS_REST_URL takes). */
  url: string;
  port: number;
  stats(): GatewayStats;
  stop(): Promise<void>;
}

/**
 * Starts the gateway in this process (tests and benchmarks do; port 0 picks a free one).
 *
 * @example
 * const gw = await startGateway({ redisUrl: "redis://127.0.0.1:6380", token: "a".repeat(16) });
 * const redis = new Redis({ url: gw.url, token: "a".repeat(16) });
 */
export async function startGateway(
  config: Omit<GatewayConfig, "port" | "hostname"> & { port?: number; hostname?: string },
  options: { keepAliveMs?: number } = {},
): Promise<RunningGateway> {
  const gateway: Gateway = createGateway({ ...config, ...options });
  const hostname = config.hostname ?? "127.0.0.1";
  const server = await serve(
    gateway.fetch as (request: Request) => Promise<Response>,
    { port: config.port ?? 0, hostname },
  );
  const host = hostname === "0.0.0.0" ? "127.0.0.1" : hostname;
  return {
    url: `http://${host}:${server.port}`,
    port: server.port,
    stats: gateway.stats,
    stop: async () => {
      gateway.close(); // open SSE streams first, or the server waits on them forever
      await server.stop();
    },
  };
}
