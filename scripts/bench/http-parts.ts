/**
 * @module http-parts bench — where a one-task `POST /skedulr/api/tasks` on the embedded store
 * spends the server's CPU: the same app served with one part of the submit taken out at a
 * time, each in a fresh process, next to http.ts's Hono hello-world, driven by wrk:
 *
 *   bun scripts/bench/http-parts.ts [--reps 3] [--seconds 5] [--warmup 2] [--connections 50]
 *                                   [--only hello,full,no-store,no-submit,no-growth]
 *
 * Variants (the server is `createApp` on a started Scheduler with its pools paused, as the
 * `memory` cell of http.ts):
 * - `full`: the real submit;
 * - `no-store`: `MemoryStorage.enqueue` answers without storing (what the submitter costs);
 * - `no-submit`: `submitMany` answers at once (what the HTTP path and its gates cost);
 * - `no-growth`: each task stored, then dropped from the table and the ready queue (what a
 *   store that grows by every task costs the process beyond the enqueue's own work).
 *
 * `deno run -A scripts/bench/http-parts.ts` runs the same on Deno. A diagnosis, not a target:
 * figures vary ±1.5 µs a request between single runs.
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { requireWrk, wrk } from "./http-wrk.ts";
import { processCpuMicros } from "./e2e-cpu.ts";
import { ready, startWorker } from "../tools/worker-process.ts";
import { arg, median } from "./bench-args.ts";
import { RUNTIME } from "./bench-child.ts";

const VARIANTS = ["full", "no-store", "no-submit", "no-growth"] as const;
type Variant = typeof VARIANTS[number];

// A server process of this script serves one variant (PARTS_VARIANT) on PORT.
if (process.env.PARTS_VARIANT) await serveVariant(process.env.PARTS_VARIANT as Variant);
else await run();

/** One server process: the variant on PORT (its healthz answers once it listens). */
async function serveVariant(variant: Variant): Promise<void> {
  const { serve } = await import("../../src/adapters/serve.ts");
  const { MemoryStorage, Scheduler } = await import("../../src/mod.ts");
  const { TaskTable } = await import("../../src/storage/memory/task-table.ts");
  const { createApp } = await import("../../routes/app.ts");
  const { runtimeClock } = await import("../../src/adapters/runtime.ts");
  const storage = new MemoryStorage({});
  // The worker's clock (scripts/entry/boot.ts): the API's deadline timer is unref'd with it.
  const clock = process.env.PARTS_SYSTEM_CLOCK ? undefined : runtimeClock;
  const scheduler = new Scheduler({ storage, pools: { default: 4 }, clock });
  scheduler.register("noop", () => {});
  await scheduler.start();
  await scheduler.pause();
  type Answer = { id: string; status: string };
  if (variant === "no-submit") {
    let n = 0;
    Object.assign(scheduler, {
      submitMany: () => Promise.resolve([{ id: `t${++n}`, kind: "task", status: "queued" }]),
    });
  } else if (variant === "no-store") {
    Object.assign(storage, {
      enqueue: (p: { tasks: { id: string }[] }) =>
        Promise.resolve(p.tasks.map((t) => ({ id: t.id, status: "queued" }))),
    });
  } else if (variant === "no-growth") {
    // The table of the store: the one whose insert runs (a bench's reach into private state).
    let table: InstanceType<typeof TaskTable> | undefined;
    const insert = TaskTable.prototype.insert;
    TaskTable.prototype.insert = function (row, now) {
      table = this;
      return insert.call(this, row, now);
    };
    const enqueue = storage.enqueue.bind(storage);
    Object.assign(storage, {
      enqueue: async (p: Parameters<typeof enqueue>[0]) => {
        const answers = await enqueue(p) as Answer[];
        for (const a of answers) {
          table!.rows.delete(a.id);
          table!.popReady("default");
        }
        return answers;
      },
    });
  }
  const app = createApp({ scheduler, version: "bench" });
  await serve(app.fetch, { port: Number(process.env.PORT), hostname: "127.0.0.1" });
}

async function run(): Promise<void> {
  requireWrk();
  const reps = Number(arg("reps", "3"));
  const o = {
    seconds: Number(arg("seconds", "5")),
    connections: Number(arg("connections", "50")),
    threads: 1,
  };
  const warmup = Number(arg("warmup", "2"));
  const body = JSON.stringify({ type: "noop", payload: { n: 1 } });
  const names = arg("only", ["hello", ...VARIANTS].join(",")).split(",");
  for (const n of names) {
    if (n !== "hello" && !(VARIANTS as readonly string[]).includes(n)) {
      throw new Error(`--only: unknown server "${n}" (hello, ${VARIANTS.join(", ")})`);
    }
  }
  const results = new Map<string, { rps: number; cpu: number }[]>(names.map((n) => [n, []]));
  for (let rep = 1; rep <= reps; rep++) {
    for (const name of names) {
      // hello: the `hello` cell's app of http.ts, on its own path.
      const server = await ready(
        name === "hello"
          ? await startWorker({}, "scripts/bench/http-hello.ts", RUNTIME)
          : await startWorker({ PARTS_VARIANT: name }, fileURLToPath(import.meta.url), RUNTIME),
      );
      const url = name === "hello"
        ? server.url.replace(/\/skedulr$/, "/")
        : `${server.url}/api/tasks`;
      const pid = server.child.pid!;
      await wrk(url, body, { ...o, seconds: warmup });
      const cpu0 = processCpuMicros(pid);
      const r = await wrk(url, body, o);
      const cpu = (processCpuMicros(pid) - cpu0) / r.requests;
      await server.stop("SIGKILL");
      if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      results.get(name)!.push({ rps: r.perSecond, cpu });
      console.log(
        `rep ${rep} ${name.padEnd(9)} ${Math.round(r.perSecond).toLocaleString("en")} req/s, ` +
          `${cpu.toFixed(1)} µs CPU a request`,
      );
    }
  }
  const helloRuns = results.get("hello");
  const hello = helloRuns ? median(helloRuns.map((x) => x.rps)) : NaN;
  console.log(`\nmedians of ${reps}:\n\n| server | req/s | vs hello | CPU µs a request |`);
  console.log("|---|---:|---:|---:|");
  for (const [name, xs] of results) {
    const rps = median(xs.map((x) => x.rps));
    console.log(
      `| ${name} | ${Math.round(rps).toLocaleString("en")} | ${
        hello ? `${(rps / hello * 100).toFixed(0)}%` : "–"
      } | ${median(xs.map((x) => x.cpu)).toFixed(1)} |`,
    );
  }
  process.exit(0);
}
