/**
 * @module cluster-monitor — counts the commands clients send to a Redis server, by watching
 * its MONITOR stream (on a throwaway server only: MONITOR sees every client).
 *
 * `INFO commandstats` would also count the commands scripts run inside Redis; MONITOR marks
 * those `[<db> lua]`, so only what crosses the network is counted here, which is what an
 * idle worker costs. EVALSHA calls are named after the script they run.
 */
import { connect } from "node:net";
import { scriptSha, shardedPublish } from "../../src/storage/redis/script-runner.ts";
import { SCRIPTS } from "../../src/storage/redis/scripts.generated.ts";

export interface CommandCount {
  /** Commands sent by clients during the window (the monitoring connection excluded). */
  total: number;
  seconds: number;
  /** Per command, a script's call (EVALSHA or FCALL) as `script:<script name>`, most frequent first. */
  byCommand: [string, number][];
}

/**
 * Watches `port` (every port of `port`: a Redis Cluster's masters, counted together) and
 * counts client commands until `enough` says so (checked on every command and every 20 ms:
 * a condition, not a fixed window) or `timeoutMs` passes, which fails.
 */
export async function countCommandsUntil(
  port: number | number[],
  enough: (seen: CommandCount) => boolean,
  timeoutMs: number,
): Promise<CommandCount> {
  let stop!: () => void;
  const done = new Promise<void>((resolve) => (stop = resolve));
  const timer = setTimeout(stop, timeoutMs);
  let latest: (() => CommandCount) | null = null;
  const poll = setInterval(() => {
    if (latest && enough(latest())) stop();
  }, 20);
  const seen = await watch(port, done, (now) => {
    if (enough(now)) stop();
  }, (snapshot) => (latest = snapshot));
  clearTimeout(timer);
  clearInterval(poll);
  if (!enough(seen)) {
    throw new Error(`countCommandsUntil: condition not met within ${timeoutMs} ms`);
  }
  return seen;
}

async function watch(
  port: number | number[],
  until: Promise<unknown>,
  onCommand: (seen: CommandCount) => void,
  expose: (snapshot: () => CommandCount) => void,
): Promise<CommandCount> {
  const names = new Map<string, string>();
  for (const s of Object.values(SCRIPTS)) {
    names.set(await scriptSha(s.source), s.name);
    if (s.fn) names.set(s.fn, s.name);
    // A cluster transport sends the scripts with SPUBLISH: the same script by another SHA.
    names.set(await scriptSha(shardedPublish(s.source)), s.name);
  }
  const counts = new Map<string, number>();
  let total = 0;
  const socks = await Promise.all(
    [port].flat().map(async (p) => {
      const sock = connect(p, "127.0.0.1");
      await new Promise<void>((resolve, reject) => {
        sock.once("error", reject);
        sock.once("connect", () => {
          sock.write("MONITOR\r\n");
          resolve();
        });
      });
      return sock;
    }),
  );
  for (const sock of socks) listen(sock);
  function listen(sock: ReturnType<typeof connect>): void {
    let buffer = "";
    sock.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let end: number;
      while ((end = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        // +<time> [<db> <client addr | lua>] "<command>" "<arg>" ...
        const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"(?: "([^"]*)")?/.exec(line);
        if (!m || m[1] === "lua") continue;
        let name = m[2].toLowerCase();
        if (name === "evalsha" || name === "fcall") {
          name = `script:${names.get(m[3] ?? "") ?? "?"}`;
        }
        counts.set(name, (counts.get(name) ?? 0) + 1);
        total++;
        onCommand(snapshot());
      }
    });
  }
  const started = performance.now();
  const snapshot = (): CommandCount => ({
    total,
    seconds: (performance.now() - started) / 1000,
    byCommand: [...counts].sort((a, b) => b[1] - a[1]),
  });
  expose(snapshot);
  await until;
  for (const sock of socks) sock.destroy();
  return snapshot();
}
