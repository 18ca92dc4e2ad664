/**
 * @module cli.test — the `skedulr` API commands (scripts/entry/cli.ts → scripts/entry/cli/) against a live
 * `bun scripts/entry/worker.ts` on the embedded store with the default jobs module, run as users
 * run them: `bun scripts/entry/cli.ts`, `npm run cli --`, Deno, and Node on the JavaScript the npm
 * package ships. Checks the readable output, `--json`, `--help` and every exit code.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/tools/redis-server.ts";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";
import { eventually } from "../../scripts/tools/wait.ts";

const TOKEN = "cli-test-admin-token-0123456789";
const READ_KEY = "cli-test-read-key-0123456789";
const COMMANDS = [
  "submit",
  "get",
  "logs",
  "list",
  "dead",
  "cancel",
  "resubmit",
  "stats",
  "pause",
  "resume",
  "schedules",
];

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, stdin piped in (or closed), within 30 s. */
function run(cmd: string[], env: Record<string, string>, stdin?: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0], cmd.slice(1), {
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(stdin ?? "");
  });
}

describe("skedulr CLI against a live worker", () => {
  let w: WorkerProcess;
  let env: Record<string, string>;
  const cli = (args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
    run(["bun", "scripts/entry/cli.ts", ...args], { ...env, ...options.env }, options.stdin);
  /** Runs and insists on `code`, showing everything when it differs. */
  const expect = async (code: number, args: string[], options = {}) => {
    const r = await cli(args, options);
    assert.equal(r.code, code, `skedulr ${args.join(" ")}\n${r.stdout}${r.stderr}`);
    return r;
  };
  const status = async (id: string) =>
    JSON.parse((await expect(0, ["get", id, "--json"])).stdout).status;

  before(async () => {
    const readHash = createHash("sha256").update(READ_KEY).digest("hex");
    w = await ready(
      await startWorker({
        SKEDULR_TOKEN: TOKEN,
        SKEDULR_KEYS: `viewer:read:${readHash}`,
        SKEDULR_POOLS: "default=4,critical=2",
        SKEDULR_SHUTDOWN_TIMEOUT: "1s",
      }),
    );
    // The banner's URL ends in /skedulr: the CLI accepts it as it is.
    env = { SKEDULR_URL: w.url, SKEDULR_API_KEY: TOKEN };
  }, { timeout: 60_000 });
  after(async () => {
    await w?.stop();
  });

  it("--help lists every command and the exit codes; each command has its own --help", {
    timeout: 30_000,
  }, async () => {
    const top = await expect(0, ["--help"]);
    for (const name of COMMANDS) assert.match(top.stdout, new RegExp(`^  ${name} +\\S`, "m"));
    assert.match(top.stdout, /SKEDULR_URL/);
    assert.match(top.stdout, /Exit codes: 0 ok; 1 .*; 2 .*4xx/s);
    for (const name of COMMANDS) {
      const r = await expect(0, [name, "--help"]);
      assert.match(r.stdout, new RegExp(`^usage: skedulr ${name}`), name);
    }
    const unknown = await cli(["frobnicate"]);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });

  it("submit from an argument, from stdin, a batch; get as a table and as JSON", {
    timeout: 30_000,
  }, async () => {
    const one = await expect(0, ["submit", '{"type":"echo","payload":{"n":1}}']);
    const [id, st] = one.stdout.trim().split(/ +/);
    assert.equal(st, "queued");
    const piped = await expect(0, ["submit", "-q"], { stdin: '{"type":"echo","payload":2}' });
    assert.match(piped.stdout, /^[\w.:-]+\n$/, "-q prints the id alone");
    const batch = await expect(0, ["submit"], { stdin: '[{"type":"echo"},{"type":"echo"}]' });
    assert.equal(batch.stdout.trim().split("\n").length, 2);
    // The API's warnings go to stderr: stdout stays the ids a script reads.
    const unknown = await expect(0, ["submit", "-q", '{"type":"no_such_handler"}']);
    assert.match(unknown.stdout, /^[\w.:-]+\n$/);
    assert.match(unknown.stderr, /^warning: .*no_such_handler/m);
    await eventually(async () => (await status(id)) === "succeeded", `${id} succeeded`, 10_000);
    const table = await expect(0, ["get", id]);
    assert.match(table.stdout, new RegExp(`^id +${id}$`, "m"));
    assert.match(table.stdout, /^status +succeeded$/m);
    assert.match(table.stdout, /^result +\{"n":1\}$/m);
    const json = JSON.parse((await expect(0, ["get", id, "--json"])).stdout);
    assert.deepEqual([json.id, json.result], [id, { n: 1 }]);
  });

  it("logs prints a task's lines with their attempts; --attempt filters, --json is the API's", {
    timeout: 30_000,
  }, async () => {
    const spec = {
      type: "send_email",
      payload: { to: "ada@example.com", flaky: true },
      maxRetries: 1,
      backoff: { type: "fixed", delay: "10ms" },
    };
    const id = (await expect(0, ["submit", "-q", JSON.stringify(spec)])).stdout.trim();
    await eventually(async () => (await status(id)) === "succeeded", `${id} succeeded`, 10_000);
    const all = await expect(0, ["logs", id]);
    const lines = all.stdout.trim().split("\n");
    assert.equal(lines.length, 2, all.stdout);
    assert.match(
      lines[0],
      /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}#1 {2}sending {2}\{"to":"ada@example.com"\}$/,
    );
    assert.ok(lines[1].includes("  #2  sending  "), lines[1]);
    const second = await expect(0, ["logs", id, "--attempt", "2", "--json"]);
    const page = JSON.parse(second.stdout);
    assert.deepEqual([page.logs.length, page.logs[0].attempt, page.dropped], [1, 2, 0]);
    const bad = await cli(["logs", id, "--attempt", "zero"]);
    assert.equal(bad.code, 1);
    assert.equal((await cli(["logs", "no-such-task"])).code, 2);
  });

  it("a dead task: submit --wait exits 5, dead lists it, resubmit queues it again", {
    timeout: 30_000,
  }, async () => {
    const r = await expect(5, ["submit", "--wait", '{"type":"fail","id":"cli-broken"}']);
    assert.match(r.stdout, /^status +dead$/m);
    assert.match(r.stdout, /failed on purpose/);
    const dead = await expect(0, ["dead", "--type", "fail"]);
    assert.match(dead.stdout, /^ID +TYPE +POOL +ATTEMPTS +FINISHED +ERROR$/m);
    assert.match(dead.stdout, /^cli-broken +fail +default +1 +.* ago +failed on purpose$/m);
    assert.equal((await expect(0, ["resubmit", "cli-broken"])).stdout, "cli-broken  queued\n");
    await eventually(async () => (await status("cli-broken")) === "dead", "dead again", 10_000);
    const bulk = await expect(0, ["resubmit", "--status", "dead", "--type", "fail"]);
    assert.match(bulk.stdout, /^resubmitted [1-9]\d*$/m);
    await expect(1, ["resubmit"]); // neither an id nor --status
  });

  it("cancel a running task; a second cancel and an unknown id exit 2 with the API's error", {
    timeout: 30_000,
  }, async () => {
    const id = (await expect(0, ["submit", "-q", '{"type":"sleep","payload":{"ms":60000}}']))
      .stdout.trim();
    await eventually(async () => (await status(id)) === "running", `${id} running`, 10_000);
    const running = await expect(0, ["list", "--status", "running", "--type", "sleep"]);
    assert.match(running.stdout, new RegExp(`^${id} +sleep +running +default +1/1 `, "m"));
    assert.equal((await expect(0, ["cancel", id])).stdout, `${id}  cancelled\n`);
    const again = await expect(2, ["cancel", id]);
    assert.match(again.stderr, /409 conflict: .*already ended cancelled/);
    assert.equal(again.stdout, "");
    const missing = await expect(2, ["get", "no-such-task"]);
    assert.match(missing.stderr, /404 not_found: Task "no-such-task" was not found/);
    const waited = await expect(5, ["get", id, "--wait"]);
    assert.match(waited.stdout, /^status +cancelled$/m);
  });

  it("list filters (status, type, q, limit) with a cursor hint; --json is the API's answer", {
    timeout: 30_000,
  }, async () => {
    const marker = `m${Date.now()}`;
    for (let i = 0; i < 3; i++) {
      await expect(0, ["submit", JSON.stringify({ type: "echo", payload: { marker, i } })]);
    }
    const page = await expect(0, ["list", "--q", marker, "--limit", "2"]);
    assert.equal(page.stdout.trim().split("\n").length, 3, "a header and two rows");
    const cursor = /more: add --cursor (\S+)/.exec(page.stderr)?.[1];
    assert.ok(cursor, page.stderr);
    const rest = JSON.parse(
      (await expect(0, ["list", "--q", marker, "--cursor", cursor, "--json"]))
        .stdout,
    );
    assert.equal(rest.tasks.length, 1);
    const none = await expect(0, ["list", "--q", marker, "--status", "dead,cancelled"]);
    assert.equal(none.stdout, "");
    assert.match(none.stderr, /no tasks match/);
    await expect(1, ["list", "--limit", "zero"]);
    await expect(1, ["list", "--bogus"]);
    const invalid = await expect(2, ["list", "--status", "sleeping"]);
    assert.match(invalid.stderr, /400 invalid_request/);
  });

  it("stats, pause and resume (admin; a read key gets exit 2 and 403), schedules", {
    timeout: 30_000,
  }, async () => {
    assert.equal(
      (await expect(0, ["pause", "--pool", "critical"])).stdout,
      "paused pool critical\n",
    );
    const stats = await expect(0, ["stats"]);
    assert.match(stats.stdout, /^tasks +scheduled \d+ · waiting/m);
    assert.match(stats.stdout, /^critical +2 +\d+ +\d+ +yes$/m);
    assert.equal((await expect(0, ["resume"])).stdout, "resumed every pool\n");
    const reader = { SKEDULR_API_KEY: READ_KEY };
    await expect(0, ["stats", "--json"], { env: reader });
    const denied = await expect(2, ["pause"], { env: reader });
    assert.match(denied.stderr, /403 forbidden: .*admin/);
    const sch = await expect(0, [
      "submit",
      '{"type":"report","cron":"0 9 * * 1-5","timezone":"Europe/Berlin"}',
    ]);
    const schId = sch.stdout.split(/ +/)[0];
    assert.match(sch.stdout, /^sch_\S+ +active +next run /);
    const list = await expect(0, ["schedules"]);
    assert.match(
      list.stdout,
      new RegExp(`^${schId} +report +cron 0 9 \\* \\* 1-5 \\(Europe/Berlin\\)`, "m"),
    );
    await expect(0, ["cancel", schId]);
  });

  it("exit codes: 1 bad input, 2 no credential, 3 a 5xx, 4 unreachable, 6 a --wait timeout", {
    timeout: 30_000,
  }, async () => {
    const bad = await expect(1, ["submit", "{not json"]);
    assert.match(bad.stderr, /the spec is not JSON/);
    await expect(1, ["submit"], { stdin: "" });
    const anonymous = await expect(2, ["stats"], { env: { SKEDULR_API_KEY: "" } });
    assert.match(anonymous.stderr, /401 unauthorized[\s\S]*set SKEDULR_API_KEY/);
    // A server whose storage is down answers 503 with the API's error shape.
    const down: Server = createServer((_, res) => {
      res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ error: { code: "storage", message: "Storage unreachable" } }));
    });
    await new Promise<void>((r) => down.listen(0, "127.0.0.1", r));
    const port = (down.address() as { port: number }).port;
    try {
      const r = await expect(3, ["stats"], { env: { SKEDULR_URL: `http://127.0.0.1:${port}` } });
      assert.match(r.stderr, /503 storage: Storage unreachable\n {2}retry after 1 s/);
    } finally {
      down.close();
    }
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const gone = await expect(4, ["list"], { env: { SKEDULR_URL: nobody } });
    assert.match(gone.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+\/skedulr\/api/);
    const id = (await expect(0, ["submit", "-q", '{"type":"sleep","payload":{"ms":30000}}']))
      .stdout.trim();
    const slow = await expect(6, ["get", id, "--wait", "--timeout", "300ms"]);
    assert.match(slow.stderr, /still (queued|running) after --timeout/);
    await expect(0, ["cancel", id]);
  });

  it("runs through npm run cli, under Deno, and on Node from the package's JavaScript", {
    timeout: 90_000,
  }, async () => {
    const npm = await run(["npm", "run", "-s", "cli", "--", "stats", "--json"], env);
    assert.equal(npm.code, 0, npm.stderr);
    assert.ok(JSON.parse(npm.stdout).byStatus);
    const deno = ["deno", "run", "-A", "scripts/entry/cli.ts"];
    const viaDeno = await run([...deno, "submit", "-q"], env, '{"type":"echo","payload":"deno"}');
    assert.equal(viaDeno.code, 0, viaDeno.stderr);
    const id = viaDeno.stdout.trim();
    await eventually(async () => (await status(id)) === "succeeded", "deno's task", 10_000);
    const missing = await run([...deno, "get", "no-such-task"], env);
    assert.equal(missing.code, 2, missing.stderr);
    // `npx skedulr <command>` runs dist/scripts/entry/cli.js on Node: compile as the build does.
    const out = mkdtempSync(join(tmpdir(), "skedulr-cli-"));
    try {
      await new Promise<void>((resolve, reject) =>
        execFile(
          "tsc",
          [
            "-p",
            "tsconfig.build.json",
            "--outDir",
            out,
            "--noCheck",
            "--declaration",
            "false",
            "--declarationMap",
            "false",
          ],
          (error, stdout) => (error ? reject(new Error(`${error.message}\n${stdout}`)) : resolve()),
        )
      );
      const node = await run(["node", join(out, "scripts/entry/cli.js"), "get", id], env);
      assert.equal(node.code, 0, node.stderr);
      assert.match(node.stdout, /^result +"deno"$/m);
      const nodeGone = await run(["node", join(out, "scripts/entry/cli.js"), "get", "x"], env);
      assert.equal(nodeGone.code, 2, nodeGone.stderr);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
