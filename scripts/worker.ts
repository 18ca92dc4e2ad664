/**
 * `bun run worker`: runs a Skedulr worker. Until the HTTP API lands this runs on the
 * embedded store with a demo job set: `send_email` in pool `critical` with 3 retries and
 * exponential back-off (500 ms..10 s, jitter 0.2), fails its first attempts on purpose, and
 * prints each result. Stops cleanly on SIGINT/SIGTERM.
 */
import { consoleLogger, MemoryStorage, Scheduler } from "../src/mod.ts";
import {
  env,
  exit,
  hostName,
  onShutdownSignal,
  processId,
  runtimeClock,
} from "../src/adapters/runtime.ts";

const storage = new MemoryStorage();
const scheduler = new Scheduler({
  storage,
  clock: runtimeClock,
  pools: { default: 10, critical: 4 },
  host: hostName(),
  pid: processId(),
  logger: consoleLogger((env("SKEDULR_LOG_LEVEL") as "info" | undefined) ?? "warn"),
});

let sent = 0;
scheduler.register("send_email", async (payload: { to: string; subject: string }, ctx) => {
  // A flaky mail server: the first attempt of every other email fails.
  if (ctx.attempt === 1 && sent++ % 2 === 0) throw new Error("SMTP 451: try again later");
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { delivered: payload.to, at: new Date().toISOString() };
});

scheduler.onResult((r) => {
  const error = r.error ? ` — ${r.error.message}` : "";
  console.log(
    `${r.status.padEnd(9)} ${r.type} ${r.taskId} attempt ${r.attempt} (${r.durationMs} ms)${error}`,
  );
});

await scheduler.start();
console.log(`skedulr worker ${scheduler.workerId}`);
console.log(
  "  storage: embedded (in memory, this process only; set REDIS_URL for Redis once supported)",
);
console.log("  pools:   default=10, critical=4");
console.log(`  jobs:    ${scheduler.types.join(", ")}`);

for (const to of ["ada@example.com", "grace@example.com", "linus@example.com"]) {
  await scheduler.submit({
    type: "send_email",
    payload: { to, subject: "Welcome" },
    pool: "critical",
    priority: 10,
    maxRetries: 3,
    backoff: { type: "exponential", base: "500ms", max: "10s", jitter: 0.2 },
  });
}
await scheduler.scheduleRecurring({
  type: "send_email",
  payload: { to: "ops@example.com", subject: "Heartbeat" },
}, "5s");

onShutdownSignal(async (signal) => {
  console.log(`${signal}: draining (running handlers get up to 10 s)`);
  await scheduler.shutdown({ timeoutMs: 10_000 });
  console.log("stopped");
  exit(0);
});

if (env("SKEDULR_EXIT_AFTER_MS")) {
  setTimeout(async () => {
    await scheduler.shutdown({ timeoutMs: 5_000 });
    console.log(JSON.stringify((await scheduler.stats()).byStatus));
    exit(0);
  }, Number(env("SKEDULR_EXIT_AFTER_MS")));
}
