/**
 * @module http-inprocess bench — the API's own CPU for a one-task `POST /skedulr/api/tasks`
 * on the embedded store, with no server and no socket: requests made in process and given
 * to `app.fetch`, 50 at a time, a macrotask after each answer (a server's requests each get
 * their own burst of microtasks), next to a Hono hello-world POST made the same way:
 *
 *   bun scripts/bench/http-inprocess.ts [--requests 200000] [--reps 5] [--base <dir>]
 *   deno run -A scripts/bench/http-inprocess.ts …   # the same on Deno
 *
 * Each measurement is a fresh process (`--child <root> --app hello|submit`) that imports the
 * app of that checkout, so `--base` compares the code in <dir> in the same run, interleaved.
 * Steadier than `bench:http` (no wrk, no kernel) for an A/B of the API's own work; over HTTP
 * the same change shows about twice as large, in µs a request (docs/BENCHMARKS.md).
 */
import { join, resolve } from "node:path";
import { setImmediate } from "node:timers";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { arg, argv, median } from "./bench-args.ts";
import { childJson } from "./bench-child.ts";

const REQUESTS = Number(arg("requests", "200000"));
const REPS = Number(arg("reps", "5"));
const BASE = arg("base", "");
const HERE = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const CONCURRENCY = 50;

if (argv.includes("--child")) await child(resolve(arg("child", HERE)), arg("app", "submit"));
else run();

/** One measurement: prints the CPU µs per request of `app` as one JSON line. */
async function child(root: string, app: string): Promise<void> {
  let fetch: (request: Request) => Response | Promise<Response>;
  let url = "http://127.0.0.1:8080/skedulr/api/tasks";
  if (app === "hello") {
    const { Hono } = await import("hono");
    const hello = new Hono();
    hello.post("/", async (c) => {
      const body = await c.req.json();
      return c.json({ id: "hello", status: typeof body === "object" ? "queued" : "odd" }, 201);
    });
    fetch = hello.fetch;
    url = "http://127.0.0.1:8080/";
  } else {
    const mod = await import(join(root, "src/mod.ts"));
    const { createApp } = await import(join(root, "routes/app.ts"));
    const { runtimeClock } = await import(join(root, "src/adapters/runtime.ts"));
    const scheduler = new mod.Scheduler({
      storage: new mod.MemoryStorage(),
      pools: { default: 50 },
      clock: runtimeClock,
      logger: mod.silentLogger,
    });
    scheduler.register("noop", () => {});
    await scheduler.start();
    await scheduler.pause();
    fetch = createApp({ scheduler, version: "bench" }).fetch;
  }
  const body = JSON.stringify({ type: "noop", payload: { n: 1 } });
  const headers = {
    "content-type": "application/json",
    "content-length": String(body.length),
    host: "127.0.0.1:8080",
  };
  const round = async (n: number) => {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < n) {
        const res = await fetch(new Request(url, { method: "POST", headers, body }));
        if (res.status !== 201) throw new Error(`${app}: ${res.status} ${await res.text()}`);
        await res.text();
        await new Promise((done) => setImmediate(done));
      }
    }));
  };
  await round(REQUESTS / 10); // warm-up: the JIT, the store's first growth
  const before = process.cpuUsage();
  await round(REQUESTS);
  const used = process.cpuUsage(before);
  console.log(JSON.stringify({ us: (used.user + used.system) / REQUESTS }));
  process.exit(0);
}

function measure(root: string, app: string): number {
  const args = ["--child", root, "--app", app, "--requests", `${REQUESTS}`];
  return childJson<{ us: number }>(fileURLToPath(import.meta.url), args, `${root} ${app}`).us;
}

function run(): void {
  const cells: [string, string, string][] = [["hello", HERE, "hello"], ["this", HERE, "submit"]];
  if (BASE) cells.push(["base", resolve(BASE), "submit"]);
  const runs = new Map<string, number[]>(cells.map(([name]) => [name, []]));
  console.log(`http in process: ${REQUESTS} one-task POSTs a measurement, ${REPS} reps`);
  for (let r = 0; r < REPS; r++) {
    const line = cells.map(([name, root, app]) => {
      const us = measure(root, app);
      runs.get(name)!.push(us);
      return `${name} ${us.toFixed(2)}`;
    });
    console.log(`  rep ${r + 1}: CPU µs a request: ${line.join(", ")}`);
  }
  console.log(`\n| app | CPU µs a request (median) |\n|---|---:|`);
  for (const [name, xs] of runs) console.log(`| ${name} | ${median(xs).toFixed(2)} |`);
}
