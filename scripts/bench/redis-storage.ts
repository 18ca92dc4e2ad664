/**
 * Storage-level throughput on a throwaway redis-server: bulk enqueue N tasks, then drain
 * them with W simulated workers that each claim up to C tasks per script call and complete
 * them (completions of one tick share one script call). No scheduler, no handlers: this is
 * the ceiling the storage layer leaves for the scheduler above it.
 *
 *   bun scripts/bench/redis-storage.ts [--tasks 20000] [--workers 2] [--claim 50] [--client bun|ioredis]
 */
import { startRedisServer } from "../tools/redis-server.ts";
import { connectRedisTcp, type TcpClient } from "../../src/adapters/redis-tcp.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { newTask } from "../tools/new-task.ts";

const createdAt = Date.now();

const args = new Map<string, string>();
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) args.set(argv[i].replace(/^--/, ""), argv[i + 1]);
const N = Number(args.get("tasks") ?? 20_000);
const WORKERS = Number(args.get("workers") ?? 2);
const CLAIM = Number(args.get("claim") ?? 50);
const client = (args.get("client") ?? "auto") as TcpClient;

const server = await startRedisServer();
const storage = new RedisStorage({
  transport: connectRedisTcp(server.url, client),
  prefix: "bench",
  history: { maxCount: 10_000 },
});
await storage.init();

let t = performance.now();
for (let i = 0; i < N; i += 1_000) {
  const batch = Array.from(
    { length: Math.min(1_000, N - i) },
    (_, j) => newTask(`t${i + j}`, createdAt, { type: "noop", payload: { n: 1 } }),
  );
  await storage.enqueue({ tasks: batch, now: Date.now() });
}
const enqueueRate = N / ((performance.now() - t) / 1000);

t = performance.now();
let done = 0;
await Promise.all(Array.from({ length: WORKERS }, async (_, w) => {
  const owner = { workerId: `w${w}`, leaseMs: 30_000 };
  for (;;) {
    const claimed = await storage.claim({ pool: "default", max: CLAIM, owner, now: Date.now() });
    if (claimed.length === 0) break;
    const ok = await Promise.all(
      claimed.map((c) =>
        storage.complete({
          lease: { id: c.id, workerId: owner.workerId, token: c.token },
          result: null,
          now: Date.now(),
        })
      ),
    );
    done += ok.filter(Boolean).length;
  }
}));
const drainRate = done / ((performance.now() - t) / 1000);
const transport = (storage as unknown as { name: string }).name;
console.log(
  `${transport} via ${client === "auto" ? "auto" : client}: enqueue ${Math.round(enqueueRate)}/s ` +
    `(batches of 1000); claim(${CLAIM})+complete drain with ${WORKERS} workers ${
      Math.round(drainRate)
    }/s ` +
    `(${done}/${N} done)`,
);
if (args.has("profile")) {
  const admin = connectRedisTcp(server.url, "ioredis");
  const info = String(await admin.send(["INFO", "commandstats"]));
  const rows = info.split("\n").filter((l) => l.startsWith("cmdstat_")).map((l) => {
    const [name, rest] = l.slice(8).split(":");
    const f = Object.fromEntries(rest.split(",").map((kv) => kv.split("=")));
    return { name, calls: Number(f.calls), usec: Number(f.usec), per: Number(f.usec_per_call) };
  }).sort((a, b) => b.usec - a.usec).slice(0, 15);
  for (const r of rows) {
    console.log(`${r.name.padEnd(18)} calls=${r.calls} usec=${r.usec} per=${r.per}`);
  }
  await admin.close();
}
await storage.close();
await server.stop();
process.exit(0);
