/**
 * Starts a detached throwaway redis-server for a whole test run and prints
 * "<url> <pid>" so scripts/test.sh can export REDIS_URL and kill it afterwards.
 */
import { spawn, spawnSync } from "node:child_process";
import { connect, createServer } from "node:net";

if (spawnSync("redis-server", ["--version"]).error) {
  console.error(
    "redis-server was not found on PATH. Install it first: `apt-get install -y redis-server` (Debian/Ubuntu) or `brew install redis` (macOS).",
  );
  process.exit(1);
}
const port: number = await new Promise((resolve) => {
  const srv = createServer().listen(0, "127.0.0.1", () => {
    const p = (srv.address() as { port: number }).port;
    srv.close(() => resolve(p));
  });
});
const child = spawn("redis-server", [
  "--port",
  String(port),
  "--bind",
  "127.0.0.1",
  "--save",
  "",
  "--appendonly",
  "no",
  "--maxmemory-policy",
  "noeviction",
], { stdio: "ignore", detached: true });
child.unref();
const deadline = Date.now() + 10_000;
for (;;) {
  const ok = await new Promise<boolean>((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("error", () => resolve(false));
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
  });
  if (ok) break;
  if (Date.now() > deadline) {
    console.error(`redis-server did not start on port ${port}`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 20));
}
console.log(`redis://127.0.0.1:${port} ${child.pid}`);
process.exit(0);
