/**
 * @module readme-snippets.test — the docs work as written: every ```sh and ```python block of
 * README.md and docs/*.md runs against a worker started as the README says (`npm run worker`,
 * the embedded store, the default jobs module), in a shell like a fresh clone's (no
 * node_modules/.bin on PATH, no Skedulr or Redis variables), and prints what its `# → …`
 * comments say.
 *
 * A file's blocks run in order in one bash session (`set -e`, so every command must succeed),
 * Python blocks through `python3 -` in that session, so a block may use what an earlier one
 * defined. Markers (test/helpers/snippets.ts) skip a block with a visible reason, leave it to
 * test/e2e/package.test.ts (`tested:`), or run it as a server that must answer. The docs'
 * fixed ports become free ones (6379: a throwaway Redis), so no developer's service is used.
 * `SNIPPETS_VERBOSE=1` prints each session's output.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { freePort, testRedisUrl } from "../../scripts/tools/redis-server.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import {
  arrows,
  extractSnippets,
  missingArrow,
  type Snippet,
  withPorts,
} from "../helpers/snippets.ts";

const REPO = resolve(import.meta.dirname ?? dirname(new URL(import.meta.url).pathname), "../..");
const FILES = [
  "README.md",
  ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) =>
    `docs/${f}`
  ),
];

/** A new user's shell: what `npm install` gives, not what this test run's PATH has. */
function freshShellEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(SKEDULR_|UPSTASH_|REDIS_URL$|PORT$|GATEWAY_)/.test(k)) continue;
    env[k] = v;
  }
  env.PATH = (env.PATH ?? "").split(delimiter).filter((p) => !p.includes("node_modules")).join(
    delimiter,
  );
  return { ...env, NO_COLOR: "1", PYTHONDONTWRITEBYTECODE: "1" };
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited(): boolean;
  /** SIGTERM to the whole process group (npm, sh, bun), SIGKILL if it lingers. */
  stop(): Promise<void>;
}

function startGroup(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, { cwd: REPO, env, detached: true, stdio: "pipe" });
  child.stdin!.end();
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const gone = new Promise<void>((r) => child.once("exit", () => r()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch { /* already gone */ }
  };
  return {
    child,
    output: () => out,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    stop: async () => {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 10_000);
      await gone;
      clearTimeout(timer);
      signal("SIGKILL"); // anything of the group that outlived its leader
    },
  };
}

/** One bash session running a file's blocks in order; each block's output is fenced. */
function sessionScript(blocks: { code: string }[], lang: Snippet["lang"][]): string {
  const parts = ["exec 2>&1", "set -e", `cd ${JSON.stringify(REPO)}`];
  blocks.forEach((b, i) => {
    parts.push(`printf '\\n@@snippet ${i}@@\\n'`);
    parts.push(
      lang[i] === "python"
        ? `python3 - <<'__SKEDULR_SNIPPET__'\n${b.code}__SKEDULR_SNIPPET__`
        : b.code,
    );
    parts.push(`printf '\\n@@snippet ${i} ok@@\\n'`);
  });
  return parts.join("\n") + "\n";
}

function runSession(script: string, env: Record<string, string>, timeoutMs: number) {
  const dir = mkdtempSync(join(tmpdir(), "skedulr-snippets-"));
  const file = join(dir, "session.sh");
  writeFileSync(file, script);
  const session = startGroup("bash", [file], env);
  const timer = setTimeout(() => void session.stop(), timeoutMs);
  return new Promise<{ code: number | null; output: string }>((done) =>
    session.child.once("close", (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      done({ code, output: session.output() });
    })
  );
}

describe("docs snippets run as written", () => {
  let worker: Started;
  let ports: Record<string, number>;
  const env = freshShellEnv();

  before(async () => {
    const port = await freePort();
    const redisPort = Number(new URL(await testRedisUrl()).port);
    ports = { "8080": port, "6379": redisPort, "8079": await freePort() };
    // "npm install && npm run worker": the install is this checkout's; the worker is as written.
    worker = startGroup("npm", ["run", "worker"], {
      ...env,
      PORT: String(port),
      SKEDULR_SHUTDOWN_TIMEOUT: "2s",
    });
    await eventually(
      async () =>
        worker.exited() ||
        (await fetch(`http://127.0.0.1:${port}/skedulr/healthz`).catch(() => null))?.ok,
      "npm run worker to answer /skedulr/healthz",
      30_000,
    );
    assert.ok(!worker.exited(), `npm run worker exited:\n${worker.output()}`);
  }, { timeout: 60_000 });
  after(async () => {
    await worker?.stop();
  });

  for (const file of FILES) {
    const snippets = extractSnippets(file, readFileSync(join(REPO, file), "utf8"));
    if (snippets.length === 0) continue;
    it(`${file}: every shell and Python block`, { timeout: 180_000 }, async () => {
      const started = Date.now();
      const notes: string[] = [];
      for (const s of snippets.filter((s) => s.marker?.kind === "skip-test")) {
        assert.ok(s.marker!.value, `${file}:${s.line}: a skip-test marker needs a reason`);
        notes.push(`skipped ${file}:${s.line}: ${s.marker!.value}`);
      }
      const session = snippets.filter((s) => s.marker === null);
      if (session.length) {
        const blocks = session.map((s) => ({ code: withPorts(s.code, ports) }));
        const script = sessionScript(blocks, session.map((s) => s.lang));
        const { code, output } = await runSession(script, env, 150_000);
        if (process.env.SNIPPETS_VERBOSE) console.log(output); // to see what the docs print
        session.forEach((s, i) => {
          const where = `${file}:${s.line} (${s.lang})`;
          const start = output.indexOf(`@@snippet ${i}@@\n`);
          const end = output.indexOf(`\n@@snippet ${i} ok@@`);
          const own = start < 0 ? "" : output.slice(start, end < 0 ? undefined : end);
          assert.ok(
            end >= 0,
            `${where} failed (the session exited ${code}). Its output:\n${own}\n` +
              `--- worker ---\n${worker.output().slice(-3000)}`,
          );
          const expected = arrows(s.code).map((a) => withPorts(a, ports));
          const missing = missingArrow(own, expected);
          assert.equal(missing, null, `${where} printed no "${missing}". Its output:\n${own}`);
          if (s.lang === "sh" && !expected.some((a) => a.includes('"error"'))) {
            assert.doesNotMatch(own, /\{"error":\{/, `${where} got an error answer:\n${own}`);
          }
        });
        assert.equal(code, 0, output);
        notes.push(`ran ${session.length} blocks of ${file} in ${Date.now() - started} ms`);
      }
      for (const s of snippets.filter((s) => s.marker?.kind === "test-server")) {
        await runServer(s, withPorts(s.code, ports), withPorts(s.marker!.value, ports), env);
        notes.push(`started and stopped the server of ${file}:${s.line}`);
      }
      for (const note of notes) console.log(`snippets: ${note}`);
    });
  }
});

/** A block that starts a server: it must answer `url` (any HTTP status) before it is stopped. */
async function runServer(s: Snippet, code: string, url: string, env: Record<string, string>) {
  const server = startGroup("bash", ["-c", code], env);
  try {
    await eventually(
      async () => server.exited() || (await fetch(url).catch(() => null)) !== null,
      `${s.file}:${s.line} to answer ${url}`,
      30_000,
    );
    assert.ok(!server.exited(), `${s.file}:${s.line} exited:\n${server.output()}`);
  } finally {
    await server.stop();
  }
}
