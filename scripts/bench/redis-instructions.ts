/**
 * @module redis-instructions — what Redis executes per task, counted by valgrind's callgrind:
 * instructions are the same from run to run, whatever else the machine does, so small
 * changes to the Lua scripts show where timings drown in noise.
 *
 *   bun scripts/bench/redis-instructions.ts [--tasks 3000] [--claim 20]
 *                                           [--modes none,keys,quiet,nohistory]
 *                                           [--submit 100] [--server <redis-server>]
 *
 * Per mode, a redis-server under `valgrind --tool=callgrind` (from Debian's valgrind) is
 * filled with no-op tasks (`keys`: each with a flow key of 1,000, `parallelism: 1000`;
 * `quiet`: no key, with the deployment's task events off; `nohistory`: no key, completions
 * that file no history entry, as for a type with `history: 0`),
 * then instrumentation is switched on and the tasks are claimed `--claim` at a time and
 * completed (all completions of a claim in one call, as a worker's tick sends them). The
 * figure is Redis's instructions per task for claim + complete, nothing else.
 * With `--submit N` the count is of submitting instead: the tasks go in by `submitMany`
 * batches of N (each with a small payload, as the HTTP bench sends), nothing is claimed.
 * `KEEP_CALLGRIND=1` keeps each run's callgrind file (its path is printed) for
 * `callgrind_annotate`. `--server <path>` runs another redis-server binary: Debian's is
 * stripped, so Lua's own functions show as addresses; one built from Redis's source (`make`
 * in a checkout of the same tag) names them (docs/BENCHMARKS.md).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import process from "node:process";
import { freePort } from "../tools/redis-server.ts";
import { connectRedisTcp } from "../../src/adapters/redis-tcp.ts";
import { RedisStorage } from "../../src/storage/redis/redis-storage.ts";
import { Scheduler, silentLogger } from "../../src/mod.ts";
import { arg } from "./bench-args.ts";

const N = Number(arg("tasks", "3000"));
const CLAIM = Number(arg("claim", "20"));
const MODES = arg("modes", "none,keys,quiet,nohistory").split(",");
const SUBMIT = Number(arg("submit", "0"));
const SERVER = arg("server", "redis-server");
if (spawnSync("valgrind", ["--version"]).error) {
  console.error("valgrind was not found: apt-get install -y valgrind");
  process.exit(1);
}

async function instructionsPerTask(mode: string): Promise<number> {
  const port = await freePort();
  const out = `/tmp/skedulr-callgrind.${process.pid}.${port}`;
  const server = spawn("valgrind", [
    "--tool=callgrind",
    "--instr-atstart=no",
    `--callgrind-out-file=${out}`,
    SERVER,
    ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  ], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0;; tries++) {
    const probe = connectRedisTcp(url);
    const up = await probe.send(["PING"]).then(() => true, () => false);
    await probe.close().catch(() => {});
    if (up) break;
    if (tries > 150) throw new Error("redis-server under valgrind did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
  const storage = new RedisStorage({
    transport: connectRedisTcp(url),
    prefix: "bench",
    taskEvents: mode !== "quiet",
  });
  await storage.init();
  const client = new Scheduler({ storage, pools: {}, logger: silentLogger });
  const specs = Array.from({ length: N }, (_, i) => ({
    type: "noop",
    ...(SUBMIT ? { payload: { n: 1 } } : {}),
    ...(mode === "keys" ? { flowControl: { key: `k${i % 1000}`, parallelism: 1000 } } : {}),
  }));
  if (SUBMIT) return await submitted(storage, client, specs, server, out);
  for (let i = 0; i < N; i += 1000) await client.submitMany(specs.slice(i, i + 1000));
  const owner = { workerId: "w1", leaseMs: 600_000 };
  const round = async () => {
    const claimed = await storage.claim({ pool: "default", max: CLAIM, owner, now: Date.now() });
    await Promise.all(claimed.map((c) =>
      storage.complete({
        lease: { id: c.id, workerId: owner.workerId, token: c.token },
        result: null,
        now: Date.now(),
        history: mode !== "nohistory",
      })
    ));
    return claimed.length;
  };
  await round(); // the scripts are loaded and compiled outside the count
  spawnSync("callgrind_control", ["--instr=on", String(server.pid)]);
  let done = 0;
  for (let n = await round(); n > 0; n = await round()) done += n;
  return await counted(storage, server, out, done);
}

/** Submits `specs` in batches of SUBMIT, counting all but a first batch (scripts load then). */
async function submitted(
  storage: RedisStorage,
  client: Scheduler,
  specs: object[],
  server: ChildProcess,
  out: string,
): Promise<number> {
  await client.submitMany(specs.slice(0, SUBMIT));
  spawnSync("callgrind_control", ["--instr=on", String(server.pid)]);
  for (let i = 0; i < specs.length; i += SUBMIT) {
    await client.submitMany(specs.slice(i, i + SUBMIT));
  }
  return await counted(storage, server, out, specs.length);
}

/** Stops counting and the server; Redis's instructions per task. */
async function counted(
  storage: RedisStorage,
  server: ChildProcess,
  out: string,
  tasks: number,
): Promise<number> {
  spawnSync("callgrind_control", ["--instr=off", String(server.pid)]);
  await storage.close();
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  const total = Number(readFileSync(out, "utf8").match(/^totals: (\d+)/m)?.[1]);
  if (!process.env.KEEP_CALLGRIND) rmSync(out, { force: true });
  else console.log(out);
  return total / tasks;
}

const what = SUBMIT ? `submitted ${SUBMIT} a call` : `claim ${CLAIM} + complete`;
console.log(`redis instructions per task (${what}), ${N} tasks, callgrind`);
const results: Record<string, number> = {};
for (const mode of MODES) {
  results[mode] = await instructionsPerTask(mode);
  console.log(`  ${mode.padEnd(9)} ${Math.round(results[mode]).toLocaleString("en")}`);
}
const share = (a: number, b: number) => `${(100 * (a / b - 1)).toFixed(1)}%`;
if (results.none && results.keys) {
  console.log(`  a flow key per task: +${share(results.keys, results.none)}`);
}
if (results.none && results.quiet) {
  console.log(`  task events (none vs quiet): +${share(results.none, results.quiet)}`);
}
if (results.none && results.nohistory) {
  console.log(`  history entries (none vs nohistory): +${share(results.none, results.nohistory)}`);
}
process.exit(0);
