/**
 * Starts a detached throwaway redis-server for a whole test run and prints "<url> <pid>",
 * so scripts/tools/test.sh can export REDIS_URL and kill it afterwards.
 */
import process from "node:process";
import { startRedisServer } from "./redis-server.ts";

try {
  const server = await startRedisServer([], { detached: true });
  console.log(`${server.url} ${server.pid}`);
  process.exit(0);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
