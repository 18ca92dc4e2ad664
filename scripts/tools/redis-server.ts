/**
 * @module redis-server — starts a throwaway `redis-server` on a free port for tests.
 *
 * Test files call {@link testRedisUrl}: it returns `REDIS_URL` when set (scripts/tools/test.sh
 * starts one server for the whole run and exports it), else starts a private server that
 * dies with the process. Tests that kill or restart Redis call {@link startRedisServer}.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServerHandle {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const INSTALL_HINT = "redis-server was not found on PATH. Install it first: " +
  "`apt-get install -y redis-server` (Debian/Ubuntu) or `brew install redis` (macOS).";

/** Finds a free TCP port on 127.0.0.1 by binding port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts redis-server on a free port, or on `port` (a restart on the port of one stopped),
 * with no persistence and noeviction, and waits until it answers. `detached` lets it outlive
 * this process (scripts/tools/test.sh kills it at the end of the run).
 */
export async function startRedisServer(
  extraArgs: string[] = [],
  options: { detached?: boolean; port?: number } = {},
): Promise<RedisServerHandle> {
  if (spawnSync("redis-server", ["--version"]).error) throw new Error(INSTALL_HINT);
  const port = options.port ?? await freePort();
  const dir = mkdtempSync(join(tmpdir(), "skedulr-redis-"));
  const child: ChildProcess = spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--maxmemory-policy",
    "noeviction",
    ...extraArgs,
  ], { stdio: "ignore", detached: options.detached ?? false });
  if (options.detached) child.unref();
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null) {
      throw new Error(`redis-server exited with code ${child.exitCode} on port ${port}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`redis-server did not answer on port ${port} within 10 s`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    stop: async () => {
      // A server killed by a signal has signalCode set and exitCode still null.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function answersPing(port: number): Promise<boolean> {
  const { connect } = await import("node:net");
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    sock.once("error", () => resolve(false));
    sock.once("connect", () => sock.write("PING\r\n"));
    sock.once("data", (d) => {
      sock.destroy();
      resolve(d.toString().startsWith("+PONG"));
    });
  });
}

let shared: Promise<string> | undefined;

/** The Redis URL for this test run: `REDIS_URL`, or one private server per process. */
export function testRedisUrl(): Promise<string> {
  const env = process.env.REDIS_URL;
  if (env) return Promise.resolve(env);
  shared ??= startRedisServer().then((h) => {
    process.once("exit", () => {
      try {
        process.kill(h.pid, "SIGKILL");
      } catch { /* gone */ }
    });
    return h.url;
  });
  return shared;
}

/** A key prefix no other test uses. */
export function uniquePrefix(name: string): string {
  return `t:${name}:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}
