/**
 * @module start-up — the parts of a node's start that meet the outside world: where storage
 * is (named without its password), connecting to it with retries while the HTTP server
 * already answers (`/skedulr/healthz` 503 meanwhile), and a port someone else holds.
 */
import { isStorageFault, type WorkerConfig } from "../../src/mod.ts";
import type { ConsoleLog } from "../../src/worker/console-log.ts";
import type { ConnInfo, RunningServer } from "../../src/adapters/serve.ts";
import { exit } from "../../src/adapters/runtime.ts";

/** The first wait after a failed connection; it doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/** `redis://host:port[/db]` or the REST endpoint, without credentials; null for the embedded store. */
export function storageTarget(config: WorkerConfig): string | null {
  if (config.clusterNodes) {
    const nodes = config.clusterNodes.split(",").map((n) => n.trim().replace(/^.*@/, ""));
    return `the Redis Cluster at ${nodes.join(",")}`;
  }
  const raw = config.redisUrl ?? config.rest?.url ?? null;
  if (raw === null) return null;
  try {
    const u = new URL(raw);
    const path = u.pathname === "/" ? "" : u.pathname;
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return raw.replace(/\/\/[^@/]*@/, "//");
  }
}

/**
 * Says `connecting to <target>` (a null target, the embedded store, says nothing), then runs
 * `connect` until it succeeds. A storage fault (unreachable, loading, no answer in time) is
 * one line naming `target`, then a wait that doubles from 1 s up to 30 s; any other error
 * (e.g. Redis's eviction policy is wrong) is not cured by waiting and is thrown. Returns
 * false when `signal` aborted first.
 */
export async function connectWithRetry(
  connect: () => Promise<void>,
  store: string | null,
  log: ConsoleLog,
  signal: AbortSignal,
): Promise<boolean> {
  if (store) log.notice("info", `connecting to ${store}`, { event: "connecting", target: store });
  const target = store ?? "the store";
  let waitMs = FIRST_RETRY_MS;
  for (let attempt = 1;; attempt++) {
    if (signal.aborted) return false;
    try {
      await connect();
      if (attempt > 1) {
        log.notice("info", `storage: connected to ${target} (attempt ${attempt})`, {
          event: "storage_connected",
          target,
          attempt,
        });
      }
      return true;
    } catch (error) {
      if (signal.aborted) return false;
      if (!isStorageFault(error)) throw error;
      const reason = error.message.replace(/^Storage unavailable: /, "");
      log.notice(
        "error",
        `storage: cannot reach ${target}: ${reason}; retrying in ${waitMs / 1000} s ` +
          `(attempt ${attempt}; /skedulr/healthz answers 503 meanwhile)`,
        { event: "storage_unreachable", target, attempt, retryInMs: waitMs, error: reason },
      );
      await sleep(waitMs, signal);
      waitMs = Math.min(MAX_RETRY_MS, waitMs * 2);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** Starts the HTTP server; a port someone else holds is one line and exit 1. */
export async function listenOrExit(
  start: () => Promise<RunningServer>,
  hostname: string,
  port: number,
  log: ConsoleLog,
): Promise<RunningServer> {
  try {
    return await start();
  } catch (error) {
    if (!isPortInUse(error)) throw error;
    log.notice("error", portInUseLine(hostname, port), { event: "port_in_use" });
    return exit(1);
  }
}

/** True for the error a server start gives when the port is taken (Bun, Deno or Node). */
export function isPortInUse(error: unknown): boolean {
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | null;
  return e?.code === "EADDRINUSE" || e?.name === "AddrInUse" ||
    (typeof e?.message === "string" && /address already in use|EADDRINUSE/i.test(e.message));
}

/** The one line for a port someone else holds. */
export function portInUseLine(hostname: string, port: number): string {
  return `skedulr: cannot listen on ${hostname}:${port}: the port is in use (another process ` +
    "holds it); stop that process or set PORT to a free port";
}

type Fetch = (request: Request, conn?: ConnInfo) => Response | Promise<Response>;

/**
 * Wraps the app so `/skedulr/healthz` answers 503 until `open()`: a probe must not send work
 * to a node still connecting to storage (or whose pools are not running yet). Every other
 * route answers as the store lets it.
 */
export function healthzUntilStarted(app: Fetch, storage: string): { fetch: Fetch; open(): void } {
  let open = false;
  const starting = () =>
    Response.json({ ok: false, storage, error: "starting: connecting to storage" }, {
      status: 503,
      headers: { "Cache-Control": "no-store", "Retry-After": "1" },
    });
  return {
    fetch: (request, conn) =>
      open || new URL(request.url).pathname !== "/skedulr/healthz"
        ? app(request, conn)
        : starting(),
    open: () => {
      open = true;
    },
  };
}
