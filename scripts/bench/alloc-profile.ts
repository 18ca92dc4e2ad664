/**
 * @module alloc-profile — what one task allocates on its way through the scheduler, by
 * function, from V8's sampling heap profiler (objects collected since included), so Deno only:
 *
 *   deno run -A scripts/bench/alloc-profile.ts [--mode dispatch|submit] [--tasks 30000]
 *                                              [--top 25]
 *
 * - dispatch: tasks submitted with delays, then profiled from due to started, as the dispatch
 *   bench's scheduler design runs them (wheel, pools, embedded store, history, events);
 * - submit: one-task `POST /skedulr/api/tasks` requests through the API app in process (no
 *   server), after as many as warm-up; a `Request` of the same shape made and read alone is
 *   profiled too, for what the runtime's own objects take.
 * A diagnosis, not a target: bytes are sampled (every 2 KiB allocated, scaled), not counted.
 */
import { Session } from "node:inspector/promises";
import process from "node:process";
import { makeDesign } from "./dispatch-designs.ts";
import { createApp } from "../../routes/app.ts";
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import { runtimeClock } from "../../src/adapters/runtime.ts";
import { arg } from "./bench-args.ts";

if (!("Deno" in globalThis)) {
  console.error(
    "alloc-profile needs V8's heap profiler: deno run -A scripts/bench/alloc-profile.ts",
  );
  process.exit(1);
}
const MODE = arg("mode", "dispatch");
const N = Number(arg("tasks", "30000"));
const TOP = Number(arg("top", "25"));

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const session = new Session();
session.connect();
await session.post("HeapProfiler.enable");

/** Runs `work` under the sampling profiler; bytes by function (self), summed. */
async function sampled(work: () => Promise<void>): Promise<Map<string, number>> {
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 2048,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await work();
  const { profile } = await session.post("HeapProfiler.stopSampling") as {
    profile: { head: ProfileNode };
  };
  const bytes = new Map<string, number>();
  const walk = (node: ProfileNode) => {
    const f = node.callFrame;
    const where = f.url.split("/").slice(-2).join("/");
    const name = `${f.functionName || "(anonymous)"} ${where}:${f.lineNumber + 1}`;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return bytes;
}

function report(what: string, bytes: Map<string, number>, per: number): void {
  const total = [...bytes.values()].reduce((a, b) => a + b, 0);
  console.log(`${what}: ${Math.round(total / per).toLocaleString("en")} B a task (sampled)`);
  const top = [...bytes].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [name, b] of top) console.log(`  ${String(Math.round(b / per)).padStart(6)}  ${name}`);
}

if (MODE === "dispatch") {
  let started = 0;
  const design = makeDesign("scheduler", {
    onStart: () => void started++,
    pool: 100,
    batch: 1,
    exactDue: true,
  });
  await design.setup();
  const now = Date.now();
  const due = new Float64Array(N).map((_, i) => now + 1_500 + (i * 3_000) / N);
  await design.scheduleAll(due);
  const bytes = await sampled(async () => {
    while (started < N) await new Promise((r) => setTimeout(r, 20));
  });
  await design.teardown();
  report(`dispatch, ${N} tasks from due to started`, bytes, N);
} else if (MODE === "submit") {
  const scheduler = new Scheduler({
    storage: new MemoryStorage(),
    pools: { default: 10 },
    logger: silentLogger,
    clock: runtimeClock,
  });
  scheduler.register("noop", () => {});
  await scheduler.start();
  await scheduler.pause();
  const app = createApp({ scheduler });
  const body = '{"type":"noop","payload":{"n":1}}';
  const request = () =>
    new Request("http://127.0.0.1:8080/skedulr/api/tasks", {
      method: "POST",
      // As wrk sends it: with its length, so the body is read in one piece.
      headers: {
        "content-type": "application/json",
        "content-length": String(body.length),
        host: "127.0.0.1:8080",
      },
      body,
    });
  for (let i = 0; i < N; i++) await (await app.fetch(request())).text();
  report(
    `POST /tasks in process, ${N} requests`,
    await sampled(async () => {
      for (let i = 0; i < N; i++) await (await app.fetch(request())).text();
    }),
    N,
  );
  report(
    "the same Request made and read alone",
    await sampled(async () => {
      for (let i = 0; i < N; i++) await request().text();
    }),
    N,
  );
  await scheduler.shutdown({ timeoutMs: 1_000 });
} else {
  throw new Error(`--mode: dispatch or submit, got ${MODE}`);
}
process.exit(0);
