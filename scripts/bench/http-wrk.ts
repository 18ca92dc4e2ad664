/**
 * @module http-wrk — drives one HTTP POST with `wrk` (a C load generator: Node's fetch is too
 * slow here to load a server, and a Bun client would share the server's runtime quirks) and
 * reads its report.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface WrkResult {
  requests: number;
  seconds: number;
  perSecond: number;
  /** Answers outside 2xx, and socket errors (connect, read, write, timeout). */
  non2xx: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

/** Fails with the install command when wrk is missing. */
export function requireWrk(): void {
  if (spawnSync("wrk", ["--version"]).error) {
    throw new Error("wrk was not found on PATH: install it with `apt-get install -y wrk`");
  }
}

const dir = mkdtempSync(join(tmpdir(), "skedulr-wrk-"));
let scripts = 0;

/** A wrk Lua script that POSTs `body` as JSON on every request. */
function postScript(body: string): string {
  const file = join(dir, `post-${++scripts}.lua`);
  // A Lua long string takes the JSON as it is; the level of `=` only has to be unused in it.
  let eq = "=";
  while (body.includes(`]${eq}]`)) eq += "=";
  writeFileSync(
    file,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n` +
      `wrk.body = [${eq}[${body}]${eq}]\n`,
  );
  return file;
}

/** Time in wrk's units (`1.23ms`, `850.00us`, `2.1s`) as ms. */
function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) return NaN;
  const scale = { us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[m[2] as "us" | "ms" | "s" | "m"];
  return Number(m[1]) * scale;
}

/** Parses wrk's report (`--latency`). */
export function parseWrk(out: string): WrkResult {
  const total = /(\d+) requests in ([\d.]+)(ms|s|m)/.exec(out);
  if (!total) throw new Error(`wrk: no request count in its report:\n${out}`);
  const seconds = Number(total[2]) * ({ ms: 1e-3, s: 1, m: 60 }[total[3] as "ms" | "s" | "m"]);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const pct = (p: string) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "");
  return {
    requests: Number(total[1]),
    seconds,
    perSecond: Number(total[1]) / seconds,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: sock ? sock.slice(1).reduce((n, x) => n + Number(x), 0) : 0,
    p50Ms: pct("50"),
    p99Ms: pct("99"),
  };
}

/** Runs wrk against `url` for `seconds`, POSTing `body` over `connections` connections. */
export function wrk(
  url: string,
  body: string,
  o: { seconds: number; connections: number; threads: number },
): Promise<WrkResult> {
  const args = [
    `-t${o.threads}`,
    `-c${o.connections}`,
    `-d${o.seconds}s`,
    "--latency",
    "-s",
    postScript(body),
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`wrk exited ${code}:\n${out}`));
      else {
        try {
          resolve(parseWrk(out));
        } catch (error) {
          reject(error);
        }
      }
    });
  });
}
