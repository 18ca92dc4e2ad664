/**
 * @module stats-cost bench — what `stats()` costs on Redis as finished tasks pile up:
 *
 *   bun scripts/bench/stats-cost.ts [--tasks 30000] [--rounds 4] [--reads 200]
 *
 * A scheduler with a pool of 50 on a throwaway redis-server (retention at its defaults)
 * drains `--tasks` no-op tasks a round; after each round, `--reads` sequential `stats()`
 * calls: the client's ms a call and Redis's µs a call (`INFO commandstats`), and the length
 * of the type's duration samples, which `stats()` reads whole.
 */
import process from "node:process";
import { startRedisServer } from "../tools/redis-server.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { arg } from "./bench-args.ts";

const TASKS = Number(arg("tasks", "30000"));
const ROUNDS = Number(arg("rounds", "4"));
const READS = Number(arg("reads", "200"));

const server = await startRedisServer();
const admin = connectRedisTcp(server.url);
const storage = new RedisStorage({ transport: connectRedisTcp(server.url), prefix: "bench" });
await storage.init();
const s = new Scheduler({ storage, pools: { default: 50 }, logger: silentLogger });
s.register("noop", () => null);
await s.start();
const succeeded = async () =>
  Number(await admin.send(["HGET", "bench:{default}:totals", "succeeded"]) ?? 0);
try {
  console.log("| finished tasks | stats() ms a call | Redis µs a call | duration samples |");
  console.log("|---:|---:|---:|---:|");
  for (let round = 1; round <= ROUNDS; round++) {
    await s.pause();
    for (let i = 0; i < TASKS; i += 1000) {
      await s.submitMany(
        Array.from({ length: Math.min(1000, TASKS - i) }, () => ({ type: "noop" })),
      );
    }
    await s.resume();
    while ((await succeeded()) < TASKS * round) await new Promise((r) => setTimeout(r, 5));
    await admin.send(["CONFIG", "RESETSTAT"]);
    const t0 = performance.now();
    for (let i = 0; i < READS; i++) await s.stats();
    const ms = (performance.now() - t0) / READS;
    const info = String(await admin.send(["INFO", "commandstats"]));
    const calls = info.match(/cmdstat_(?:fcall|evalsha):calls=(\d+),usec=(\d+)/);
    const redisUs = calls ? Number(calls[2]) / Number(calls[1]) : NaN;
    const samples = await admin.send(["LLEN", "bench:{default}:durations:noop"]);
    console.log(`| ${TASKS * round} | ${ms.toFixed(2)} | ${redisUs.toFixed(0)} | ${samples} |`);
  }
} finally {
  await s.shutdown({ timeoutMs: 0 });
  await storage.close();
  await admin.close();
  process.kill(server.pid, "SIGKILL");
}
