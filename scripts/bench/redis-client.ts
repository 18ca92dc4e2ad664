/**
 * Measures the TCP transports side by side on a throwaway redis-server: single round-trip
 * latency of EVALSHA (sequential, p50/p99) and pipelined EVALSHA throughput (many calls in
 * flight). Runs on Bun (both clients), Deno and Node (ioredis).
 *
 *   bun scripts/bench/redis-client.ts [--calls 200000] [--rounds 3]
 *   deno run -A scripts/bench/redis-client.ts
 *   bun build --target=node scripts/bench/redis-client.ts --outfile .tmp/rc.mjs && node .tmp/rc.mjs
 *
 * REDIS_URL points it at an existing server instead (never the shared one: it writes keys).
 */
import { startRedisServer } from "../tools/redis-server.ts";
import { IoredisTransport } from "../../src/adapters/redis-ioredis.ts";
import { BunRedisTransport, hasBunRedis } from "../../src/adapters/redis-bun.ts";
import { ScriptRunner } from "../../src/storage/redis/script-runner.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";

const args = new Map<string, string>();
const argv = typeof process !== "undefined" ? process.argv.slice(2) : [];
for (let i = 0; i < argv.length; i += 2) args.set(argv[i].replace(/^--/, ""), argv[i + 1]);
const CALLS = Number(args.get("calls") ?? 200_000);
const ROUNDS = Number(args.get("rounds") ?? 3);
const LATENCY_CALLS = Number(args.get("latency-calls") ?? 5_000);
const WINDOWS = (args.get("windows") ?? "100,1000").split(",").map(Number);

// A script shaped like the hot ones: reads a hash field, writes two keys, returns a table.
const SCRIPT = {
  name: "bench",
  numKeys: 2,
  source: `
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('ZADD', KEYS[2], n, ARGV[1])
return {n, ARGV[1]}`,
};

const runtime = "Bun" in globalThis
  ? `bun ${(globalThis as any).Bun.version}`
  : "Deno" in globalThis
  ? `deno ${(globalThis as any).Deno.version.deno}`
  : `node ${process.version}`;

const server = process.env.REDIS_URL ? null : await startRedisServer();
const url = process.env.REDIS_URL ?? server!.url;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function latency(t: RedisTransport, runner: ScriptRunner, keys: string[]) {
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_CALLS; i++) {
    const start = performance.now();
    await runner.run(SCRIPT, keys, [`m${i % 100}`]);
    samples.push((performance.now() - start) * 1000);
  }
  const ping: number[] = [];
  for (let i = 0; i < LATENCY_CALLS; i++) {
    const start = performance.now();
    await t.send(["PING"]);
    ping.push((performance.now() - start) * 1000);
  }
  samples.sort((a, b) => a - b);
  ping.sort((a, b) => a - b);
  return {
    evalP50: quantile(samples, 0.5),
    evalP99: quantile(samples, 0.99),
    pingP50: quantile(ping, 0.5),
  };
}

async function throughput(runner: ScriptRunner, keys: string[], window: number) {
  const start = performance.now();
  let issued = 0;
  // `window` calls in flight at all times: each completion issues the next call.
  await Promise.all(Array.from({ length: window }, async () => {
    while (issued < CALLS) {
      const i = issued++;
      await runner.run(SCRIPT, keys, [`m${i % 1000}`]);
    }
  }));
  return CALLS / ((performance.now() - start) / 1000);
}

async function throughputBatched(runner: ScriptRunner, keys: string[], batch: number) {
  const start = performance.now();
  for (let done = 0; done < CALLS; done += batch) {
    const calls = Array.from({ length: Math.min(batch, CALLS - done) }, (_, j) => ({
      script: SCRIPT,
      keys,
      args: [`m${(done + j) % 1000}`],
    }));
    await runner.runMany(calls);
  }
  return CALLS / ((performance.now() - start) / 1000);
}

const makers: [string, () => RedisTransport][] = [["ioredis", () => new IoredisTransport(url)]];
if (hasBunRedis()) makers.unshift(["bun", () => new BunRedisTransport(url)]);

const results = new Map<string, Record<string, number[]>>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, make] of makers) {
    const t = make();
    const runner = new ScriptRunner(t);
    const keys = [`bench:{${name}}:h`, `bench:{${name}}:z`];
    await runner.run(SCRIPT, keys, ["warm"]);
    for (let i = 0; i < 2000; i++) await t.send(["PING"]); // warm up JIT and socket
    const r = results.get(name) ?? {};
    const push = (k: string, v: number) => (r[k] ??= []).push(v);
    const lat = await latency(t, runner, keys);
    push("evalsha p50 µs", lat.evalP50);
    push("evalsha p99 µs", lat.evalP99);
    push("ping p50 µs", lat.pingP50);
    for (const w of WINDOWS) push(`in-flight ${w} ops/s`, await throughput(runner, keys, w));
    push("runMany 1000 ops/s", await throughputBatched(runner, keys, 1000));
    results.set(name, r);
    await t.send(["DEL", ...keys]);
    await t.close();
  }
}

console.log(`# ${runtime}, redis ${url.replace(/^redis:\/\//, "")}, median of ${ROUNDS} rounds`);
for (const [name, r] of results) {
  const line = Object.entries(r).map(([k, v]) => {
    const sorted = [...v].sort((a, b) => a - b);
    return `${k}=${Math.round(sorted[Math.floor(sorted.length / 2)])}`;
  });
  console.log(`${name}: ${line.join("  ")}`);
}
await server?.stop();
process.exit(0);
