/**
 * The console of `bun scripts/entry/worker.ts` as an operator reads it, through real processes:
 * a line per failed attempt and dead task of the user's own types, a summary line under a
 * burst, no repeated status line while idle, --help and --version, JSON lines, an
 * unreachable Redis named within 5 s (healthz 503) and recovered from, and a port in use.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";
import {
  freePort,
  type RedisServerHandle,
  startRedisServer,
} from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { VERSION } from "../../src/version.ts";

const JOBS = "test/e2e/fixtures/console-jobs.ts";
const running: WorkerProcess[] = [];

async function worker(env: Record<string, string>, wait = true): Promise<WorkerProcess> {
  // REDIS_URL "": the embedded store unless a test names one (the test run exports its own).
  const w = await startWorker({
    REDIS_URL: "",
    SKEDULR_JOBS: JOBS,
    SKEDULR_LOG_LEVEL: "info",
    ...env,
  });
  running.push(w);
  return wait ? await ready(w) : w;
}

async function post(w: WorkerProcess, path: string, body: unknown) {
  const r = await fetch(`${w.url}/api${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

const count = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].length;
/** Output from the first match of `marker` on. */
const after_ = (w: WorkerProcess, marker: string) => w.output().slice(w.output().indexOf(marker));

/** Runs a command to its end (15 s at most). */
function run(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const child = spawn(args[0], args.slice(1), { env: { ...process.env, REDIS_URL: "", ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not exit within 15 s: ${out}${err}`));
    }, 15_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

describe("the worker's console", () => {
  after(async () => {
    await Promise.all(running.map((w) => w.stop("SIGKILL")));
  });

  it("prints failed attempts and dead tasks of any type; a burst ends in one summary line", {
    timeout: 30_000,
  }, async () => {
    const w = await worker({ SKEDULR_POOLS: "default=8" });
    const { body } = await post(w, "/tasks", {
      type: "crunch_numbers",
      maxRetries: 1,
      backoff: { type: "fixed", delay: 0 },
    });
    const failed = `failed crunch_numbers ${body.id} attempt 1 (will retry): disk full\n`;
    const dead = `dead crunch_numbers ${body.id} attempt 2: disk full\n`;
    await eventually(() => w.output().includes(failed) && w.output().includes(dead), "2 lines");
    assert.doesNotMatch(w.output(), /second line|demo:/);

    const burst = await post(w, "/tasks/batch", Array(40).fill({ type: "crunch_numbers" }));
    const ids: string[] = burst.body.tasks.map((t: { id: string }) => t.id);
    // Every dead task is either printed or counted in a summary line, and never both.
    const tally = () => {
      const out = w.output();
      const printed = ids.filter((id) => out.includes(`dead crunch_numbers ${id} attempt 1`));
      const summed = [...out.matchAll(/… and (\d+) more in the last 10 s/g)]
        .reduce((n, m) => n + Number(m[1]), 0);
      return { printed: printed.length, summed };
    };
    const t = await eventually(
      () => {
        const t = tally();
        return t.printed + t.summed === ids.length ? t : null;
      },
      "the summary line",
      15_000,
    );
    assert.ok(t.printed <= 20 && t.summed >= 20, JSON.stringify(t));
  });

  it("prints the status line only when a figure changed", { timeout: 20_000 }, async () => {
    const w = await worker({ SKEDULR_LOG_LEVEL: "debug", SKEDULR_STATUS_MS: "100" });
    const status = /^status: running/gm;
    // Each tick that finds nothing new says so at debug level: 10 of them are 10 intervals.
    const idle = (from: string) => count(after_(w, from), /status: unchanged/g) >= 10;
    await eventually(() => w.output().includes("status: running") && idle("status: running"));
    assert.equal(count(w.output(), status), 1, w.output());

    const { body } = await post(w, "/tasks", { type: "echo", payload: 1 });
    const line = "status: running 0, queued 0, scheduled 0, done 1 (+1), dead 0";
    await eventually(() => w.output().includes(line) && idle(line), `${body.id} done, then idle`);
    assert.equal(count(w.output(), status), 2, w.output());
  });

  it("--help and --version print and exit 0 without starting; other arguments exit 2", {
    timeout: 30_000,
  }, async () => {
    const port = String(await freePort());
    const help = await run(["bun", "scripts/entry/worker.ts", "--help"], { PORT: port });
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: npm run worker/m);
    assert.match(help.out, /SKEDULR_LOG_FORMAT/);
    assert.doesNotMatch(help.out, /api: /, "no banner: nothing started");
    const version = await run(["bun", "scripts/entry/serve.ts", "--version"], { PORT: port });
    assert.deepEqual([version.code, version.out], [0, `${VERSION}\n`]);
    const deno = await run(["deno", "run", "-A", "scripts/entry/worker.ts", "--version"]);
    assert.deepEqual([deno.code, deno.out], [0, `${VERSION}\n`]);
    const bad = await run(["bun", "scripts/entry/worker.ts", "--port=9"], { PORT: port });
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown argument "--port=9"/);
  });

  it("SKEDULR_LOG_FORMAT=json: every line is one JSON object", { timeout: 20_000 }, async () => {
    const w = await worker({ SKEDULR_LOG_FORMAT: "json", SKEDULR_STATUS_MS: "200" });
    const { body } = await post(w, "/tasks", { type: "crunch_numbers" });
    await eventually(() => w.output().includes('"event":"task_dead"'), "the dead line");
    await eventually(() => w.output().includes('"event":"status"'), "a status line");
    assert.equal(await w.stop(), 0);
    const lines = w.output().split("\n").filter((l) => l.trim());
    const records = lines.map((l) => {
      assert.doesNotThrow(() => JSON.parse(l), `not JSON: ${l}`);
      return JSON.parse(l);
    });
    const dead = records.find((r) => r.event === "task_dead");
    assert.deepEqual(
      [dead.type, dead.id, dead.attempt, dead.error, dead.level],
      ["crunch_numbers", body.id, 1, "disk full", "error"],
    );
    assert.ok(records.every((r) => typeof r.time === "string" && typeof r.message === "string"));
    assert.ok(records.some((r) => r.message === "stopped"));
  });

  it("names an unreachable Redis within 5 s without its password; healthz 503", {
    timeout: 20_000,
  }, async () => {
    const port = await freePort();
    const started = Date.now();
    const w = await worker({ REDIS_URL: `redis://:hunter2@127.0.0.1:${port}` }, false);
    await eventually(
      () => w.output().includes(`storage: cannot reach redis://127.0.0.1:${port}:`),
      "the line naming Redis",
      5_000,
    );
    assert.ok(Date.now() - started < 5_000);
    assert.match(w.output(), new RegExp(`^connecting to redis://127\\.0\\.0\\.1:${port}$`, "m"));
    assert.doesNotMatch(w.output(), /hunter2/);
    const health = await fetch(`${w.url}/healthz`);
    assert.equal(health.status, 503);
    assert.equal((await health.json()).ok, false);
    assert.equal(w.child.exitCode, null, "still running, retrying");
  });

  it("connects once Redis comes up, then works", { timeout: 30_000 }, async () => {
    const port = await freePort();
    const w = await worker({ REDIS_URL: `redis://127.0.0.1:${port}` }, false);
    let redis: RedisServerHandle | undefined;
    try {
      await eventually(() => w.output().includes("storage: cannot reach"), "a failed attempt");
      redis = await startRedisServer([], { port });
      await eventually(() => w.output().includes("storage: connected to"), "connected", 15_000);
      await ready(w);
      const { body } = await post(w, "/tasks", { type: "echo", payload: "back" });
      await eventually(
        async () => {
          const r = await fetch(`${w.url}/api/tasks/${body.id}`);
          return (await r.json()).status === "succeeded";
        },
        "the task to succeed",
        10_000,
      );
      assert.match(w.output(), /storage: cannot reach .*retrying in 1 s \(attempt 1;/);
    } finally {
      await w.stop();
      await redis?.stop();
    }
  });

  it("a port in use is one clean line and exit 1", { timeout: 20_000 }, async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
    const port = (holder.address() as { port: number }).port;
    try {
      const r = await run(["bun", "scripts/entry/worker.ts"], {
        PORT: String(port),
        SKEDULR_DEMO: "0",
      });
      assert.equal(r.code, 1);
      assert.equal(r.out, "");
      assert.equal(
        r.err,
        `skedulr: cannot listen on 127.0.0.1:${port}: the port is in use (another process ` +
          "holds it); stop that process or set PORT to a free port\n",
      );
    } finally {
      holder.close();
    }
  });
});
