/**
 * @module main — `npm run rest-gateway`: the REST gateway as a process (see gateway.ts).
 */
import process from "node:process";
import { stopWithWrapper } from "../entry/parent-watch.ts";
import { type GatewayConfig, parseGatewayConfig, startGateway } from "./gateway.ts";

// Under npm, npx or deno task: stop when the wrapper is gone (no orphaned gateway).
stopWithWrapper();
let config: GatewayConfig;
try {
  config = parseGatewayConfig(process.env);
} catch (error) {
  console.error(`rest-gateway: ${(error as Error).message}`);
  process.exit(2);
}
const gw = await startGateway(config);
const safe = config.redisUrl.replace(/\/\/[^@]*@/, "//***@");
console.log(`rest-gateway: ${gw.url} → ${safe}`);
console.log(`  clients: UPSTASH_REDIS_REST_URL=${gw.url} UPSTASH_REDIS_REST_TOKEN=<the token>`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    await gw.stop();
    process.exit(0);
  });
}
