/**
 * @module cloudflare-deliverer — the edge deliverer: a Durable Object (class `Deliverer`,
 * bound as `DELIVERER` in wrangler.toml) that delivers the `http` tasks and callbacks of the
 * pools in SKEDULR_EDGE_POOLS with no resident worker, over the same Redis (REST) and the
 * same Lua scripts.
 *
 * Its one alarm is armed for the earliest due time it knows: what the store's `nextDue` read
 * says (delayed work, leases, schedules, expiries) at the end of each run, what the Worker
 * tells it (`wake`: a write through the Worker), and now for the cron trigger's `tick` and
 * for `start` (see cloudflare-edge.ts). The alarm handler is its own invocation: it builds its
 * own REST client and store, runs src/worker/edge-run.ts, and arms the next alarm. Before it
 * claims, it arms a fallback alarm past the lease, so an invocation that dies mid-delivery is
 * followed by a run that recovers its leases. A run the store failed is retried with back-off
 * (1 s doubling to 1 min); a misconfigured deployment arms nothing and logs why.
 */
import {
  callbackTaskHandler,
  DEFAULT_CALLBACK_TIMEOUT_MS,
  type HttpFetcher,
  httpTaskHandler,
  outboundPolicy,
  systemClock,
  webFetch,
} from "../../src/mod.ts";
import { parseEdgeConfig } from "../../src/worker/edge-config.ts";
import { edgeRun, type EdgeRunResult } from "../../src/worker/edge-run.ts";
import type { HandlerEntry } from "../../src/worker/pool.ts";
import { consoleLogger } from "../../src/worker/middleware.ts";
import { checkEnv, type Env, storeFor } from "./cloudflare-handler.ts";
import type { DurableObjectStateLike } from "./cloudflare-edge.ts";

/** The deliverer's id among the workers (`GET /workers`), the owner of its leases. */
export const DELIVERER_ID = "edge-deliverer";
/** Registered at most this often; listed for HEARTBEAT_TTL_MS (the cron runs every minute). */
const HEARTBEAT_MS = 30_000;
const HEARTBEAT_TTL_MS = 150_000;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/**
 * The alarm fires this much before the work it is armed for, and the run starts that work at
 * its time: an alarm's dispatch and the run's set-up then make no delivery late.
 */
export const ALARM_LEAD_MS = 50;

export class Deliverer {
  readonly #state: DurableObjectStateLike;
  readonly #env: Env;
  readonly #startedAt = Date.now();
  /** No run yet since this object was (re)created. */
  #fresh = true;
  #running = false;
  /** The earliest wake asked for while a run was in progress (it arms it when it ends). */
  #woken = Infinity;
  #beatAt = 0;
  #retryMs = 0;
  /** What the alarm set now is for (it fires ALARM_LEAD_MS before); null: unknown. */
  #armedFor: number | null = null;

  constructor(state: DurableObjectStateLike, env: Env) {
    this.#state = state;
    this.#env = env;
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const now = Date.now();
    if (url.pathname === "/wake") {
      const at = Number(url.searchParams.get("at"));
      if (!Number.isSafeInteger(at) || at < 0) {
        return new Response("wake: expected ?at=<epoch ms>", { status: 400 });
      }
      await this.#arm(Math.max(at, now));
    } else if (url.pathname === "/tick") {
      await this.#arm(now);
    } else if (url.pathname === "/start") {
      // Alarms may not survive a restart: a deliverer new since then, with no alarm, runs now.
      if (this.#fresh && !this.#running && (await this.#state.storage.getAlarm()) === null) {
        await this.#set(now);
      }
    } else return new Response("not found", { status: 404 });
    return new Response(null, { status: 204 });
  }

  /** Moves the alarm up to `at` (a run in progress arms it when it ends). */
  async #arm(at: number): Promise<void> {
    if (this.#running) this.#woken = Math.min(this.#woken, at);
    const current = await this.#state.storage.getAlarm();
    if (current === null || at < (this.#armedFor ?? current)) await this.#set(at);
  }

  /** Sets the alarm for work due at `at`, ALARM_LEAD_MS ahead of it (never in the past). */
  async #set(at: number): Promise<void> {
    this.#armedFor = at;
    await this.#state.storage.setAlarm(Math.max(Date.now(), at - ALARM_LEAD_MS));
  }

  async alarm(): Promise<void> {
    this.#fresh = false;
    const problem = checkEnv(this.#env);
    const { config } = parseEdgeConfig(this.#env);
    if (problem || !config) {
      console.error(
        `skedulr: the edge deliverer is idle: ${problem ?? "SKEDULR_EDGE_POOLS is unset"}`,
      );
      return;
    }
    const { storage: alarms } = this.#state;
    const firstAt = this.#armedFor ?? undefined;
    this.#running = true;
    this.#woken = Infinity;
    // Should this invocation die mid-delivery, this alarm recovers its leases once they lapse.
    await this.#set(Date.now() + config.leaseMs + 1_000);
    const env = this.#env;
    const { transport, storage } = storeFor(env);
    let deliveries = 0;
    const fetcher: HttpFetcher = (r) => (deliveries++, webFetch(r));
    const sending = {
      signingKey: env.SKEDULR_SIGNING_KEY?.trim() || null,
      policy: outboundPolicy(env.SKEDULR_HTTP_ALLOW ?? null),
      fetcher,
    };
    const handlers = new Map<string, HandlerEntry>([
      ["http", { handler: httpTaskHandler(sending) }],
      ["callback", {
        handler: callbackTaskHandler({
          ...sending,
          timeoutMs: Math.min(DEFAULT_CALLBACK_TIMEOUT_MS, config.timeoutMs),
        }),
      }],
    ]);
    const now = Date.now();
    const beat = now - this.#beatAt >= HEARTBEAT_MS;
    let result: EdgeRunResult;
    try {
      await storage.prepare();
      result = await edgeRun({
        storage,
        clock: systemClock,
        logger: consoleLogger(),
        workerId: DELIVERER_ID,
        host: "cloudflare-edge",
        config,
        handlers,
        spent: () => transport.requests + deliveries,
        reloads: () => storage.scriptReloads(),
        heartbeatTtlMs: beat ? HEARTBEAT_TTL_MS : null,
        startedAt: this.#startedAt,
        firstAt,
      });
    } catch (error) {
      console.error("skedulr: the edge deliverer's run failed:", error);
      result = { claimed: 0, next: null, failed: true };
    } finally {
      await transport.close();
      this.#running = false;
    }
    if (beat && !result.failed) this.#beatAt = now;
    this.#retryMs = result.failed
      ? Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, this.#retryMs * 2))
      : 0;
    const end = Date.now();
    const next = Math.min(
      result.failed ? end + this.#retryMs : result.next ?? Infinity,
      this.#woken,
    );
    if (Number.isFinite(next)) await this.#set(Math.max(next, end));
    else {
      this.#armedFor = null;
      await alarms.deleteAlarm();
    }
  }
}
