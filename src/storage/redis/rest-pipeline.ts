/**
 * @module rest-pipeline — how commands leave the REST transport: batched, and in order.
 *
 * Two modes over `@upstash/redis`:
 * - `ordered` (default): like one pipelined TCP connection. Commands queue in issue order;
 *   at most one HTTP request is in flight, and everything issued meanwhile leaves together
 *   as the next `POST /pipeline` (up to 1000 commands). Replies are handed out in issue
 *   order, so a caller always learns its own command's reply before any later command's,
 *   as over TCP: without that, a status read can see "running" before the worker has
 *   processed the claim that made it so (two suite tests failed that way before the
 *   harness waited for quiet storage).
 *   A store may name commands that need no order against the others (a resident worker's
 *   claims: {@link OrderedPipeline.sideLane}): they queue in a second lane with its own
 *   request in flight, so a claim travels while the completions before it do. Each lane
 *   keeps its own order, and replies are still handed out in issue order across both.
 * - `client`: the client's own auto-pipelining (a Proxy that batches one tick's commands).
 *   It sends reads and writes as two concurrent requests and overlaps requests, so it gives
 *   no such order; for a pool of 50 draining 10k tasks it also sent about 20% more
 *   requests and was no faster (`scripts/bench/rest.ts`, phase `modes`). Selectable for
 *   comparison.
 * A request whose fetch failed is sent again only when all its commands are reads
 * ({@link resendable}); see rest-transport.ts for why.
 * The commands RedisStorage sends in bulk are mapped to the client's typed methods (the
 * only way into its pipelines); any other command goes alone through its generic `exec`.
 */
import type { Pipeline, Redis } from "@upstash/redis/cloudflare";

/** Which batching the transport uses; see the module comment. */
export type PipelineMode = "ordered" | "client";

/** Most commands per request, as the client's own auto-pipeline caps them. */
const MAX_BATCH = 1000;

/** The typed methods used, on a client or a pipeline (declared loosely: raw string args). */
interface Target {
  functions: { call(fn: string, keys: string[], args: string[]): unknown };
  evalsha(sha: string, keys: string[], args: string[]): unknown;
  eval(script: string, keys: string[], args: string[]): unknown;
  hgetall(key: string): unknown;
  scriptLoad(script: string): unknown;
  ping(): unknown;
  zrange(
    key: string,
    min: string,
    max: string,
    opts?: { byScore: true; withScores: true; offset: number; count: number },
  ): unknown;
}

/**
 * Calls the typed method of `target` (a Redis client or one of its pipelines) that sends
 * exactly `cmd`, or returns false when there is none.
 */
export function typedCall(client: Redis | Pipeline, cmd: string[]): unknown | false {
  const target = client as unknown as Target;
  const name = cmd[0].toUpperCase();
  if (name === "EVALSHA" || name === "EVAL" || name === "FCALL") {
    const n = Number(cmd[2]);
    if (!Number.isInteger(n) || n < 0 || 3 + n > cmd.length) return false;
    const keys = cmd.slice(3, 3 + n);
    const args = cmd.slice(3 + n);
    if (name === "FCALL") return target.functions.call(cmd[1], keys, args);
    return name === "EVALSHA"
      ? target.evalsha(cmd[1], keys, args)
      : target.eval(cmd[1], keys, args);
  }
  if (name === "HGETALL" && cmd.length === 2) return target.hgetall(cmd[1]);
  if (name === "SCRIPT" && cmd.length === 3 && cmd[1].toUpperCase() === "LOAD") {
    return target.scriptLoad(cmd[2]);
  }
  if (name === "PING" && cmd.length === 1) return target.ping();
  if (name === "ZRANGE" && cmd.length === 4) return target.zrange(cmd[1], cmd[2], cmd[3]);
  if (
    name === "ZRANGEBYSCORE" && cmd.length === 8 && cmd[4].toUpperCase() === "WITHSCORES" &&
    cmd[5].toUpperCase() === "LIMIT"
  ) {
    // Same reply as ZRANGE ... BYSCORE LIMIT o c WITHSCORES, the form the client sends.
    return target.zrange(cmd[1], cmd[2], cmd[3], {
      byScore: true,
      withScores: true,
      offset: Number(cmd[6]),
      count: Number(cmd[7]),
    });
  }
  return false;
}

/** One reply or the raw error text the server gave for that command. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Item {
  cmd: string[];
  settle(outcome: Outcome): void;
  /** Set when its request came back; handed to `settle` in issue order. */
  outcome: Outcome | null;
}

/** A FIFO of commands with at most one request in flight. */
interface Lane {
  queue: Item[];
  busy: boolean;
  /** A request of this lane is in flight (busy also covers the wait before it leaves). */
  sending: boolean;
}

/**
 * The `ordered` mode: a FIFO of commands with one request in flight, and an optional
 * second lane for commands that may travel beside it ({@link sideLane}).
 *
 * @example
 * const p = new OrderedPipeline(redis);
 * const [a, b] = await Promise.all([p.send(["PING"]), p.send(["HGETALL", "k"])]); // one request
 */
export class OrderedPipeline {
  readonly #redis: Redis;
  readonly #main: Lane = { queue: [], busy: false, sending: false };
  readonly #side: Lane = { queue: [], busy: false, sending: false };
  #inSide: ((cmd: string[]) => boolean) | null = null;
  /** Commands not yet answered to their callers, in issue order, from `#head` on. */
  #unanswered: Item[] = [];
  #head = 0;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  /**
   * Commands for which `matches` is true go in a lane of their own, with its own request in
   * flight: they may run before or after main-lane commands issued around them. Only for
   * commands whose callers need no such order (null: one lane again).
   */
  sideLane(matches: ((cmd: string[]) => boolean) | null): void {
    this.#inSide = matches;
  }

  send(cmd: string[]): Promise<Outcome> {
    return new Promise((settle) => {
      const item: Item = { cmd, settle, outcome: null };
      this.#unanswered.push(item);
      // A side command joins the main lane's next request unless one is in flight there.
      const lane = this.#main.sending && this.#inSide?.(cmd) ? this.#side : this.#main;
      lane.queue.push(item);
      if (!lane.busy) {
        lane.busy = true;
        // Let the commands of this tick (Promise.all, a batch of script calls) join first.
        queueMicrotask(() => queueMicrotask(() => queueMicrotask(() => this.#drain(lane))));
      }
    });
  }

  async #drain(lane: Lane): Promise<void> {
    let items: Item[] = [];
    let start = 0;
    try {
      while (lane.queue.length > 0) {
        items = lane.queue.splice(0, MAX_BATCH);
        start = 0;
        // Typed runs share one pipeline request; a command with no typed method goes alone,
        // between them, so the order holds across both.
        while (start < items.length) {
          let end = start;
          const pipeline = this.#redis.pipeline();
          while (end < items.length && typedCall(pipeline, items[end].cmd) !== false) end++;
          lane.sending = true;
          if (end - start <= 1) {
            await this.#single(items[start]);
            start++;
          } else {
            await this.#batch(pipeline, items.slice(start, end));
            start = end;
          }
          lane.sending = false;
        }
      }
    } catch (error) {
      // Not a Redis or HTTP failure (those settle their items): fail what is left, loudly.
      for (const item of [...items.slice(start), ...lane.queue.splice(0)]) {
        this.#answer(item, { ok: false, error });
      }
    } finally {
      lane.busy = false;
      lane.sending = false;
    }
  }

  async #single(item: Item): Promise<void> {
    try {
      const value = await this.#redis.exec(item.cmd as [string, ...string[]]);
      this.#answer(item, { ok: true, value });
    } catch (error) {
      this.#answer(item, { ok: false, error });
    }
  }

  async #batch(pipeline: Pipeline, items: Item[]): Promise<void> {
    let replies: { error?: string; result?: unknown }[];
    try {
      replies = await pipeline.exec({ keepErrors: true }) as typeof replies;
    } catch (error) {
      for (const item of items) this.#answer(item, { ok: false, error });
      return;
    }
    items.forEach((item, i) => {
      const r = replies[i];
      this.#answer(item, r?.error ? { ok: false, error: r.error } : { ok: true, value: r?.result });
    });
  }

  /** Records `item`'s outcome, then hands out every outcome now due in issue order. */
  #answer(item: Item, outcome: Outcome): void {
    if (item.outcome !== null) return;
    item.outcome = outcome;
    const list = this.#unanswered;
    while (this.#head < list.length && list[this.#head].outcome !== null) {
      const next = list[this.#head++];
      next.settle(next.outcome!);
    }
    if (this.#head === list.length) {
      this.#unanswered = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > list.length) {
      this.#unanswered = list.slice(this.#head);
      this.#head = 0;
    }
  }
}

/**
 * Commands whose second run changes nothing. SCRIPT LOAD is not a read, but loading the same
 * script twice leaves the same cache; EVAL_RO/EVALSHA_RO scripts cannot write.
 */
const READS = new Set([
  "ping",
  "echo",
  "get",
  "mget",
  "strlen",
  "exists",
  "type",
  "ttl",
  "pttl",
  "hget",
  "hmget",
  "hgetall",
  "hlen",
  "hexists",
  "hkeys",
  "hvals",
  "zscore",
  "zmscore",
  "zcard",
  "zcount",
  "zrange",
  "zrangebyscore",
  "zrevrange",
  "zrank",
  "lrange",
  "llen",
  "lindex",
  "scard",
  "smembers",
  "sismember",
  "scan",
  "hscan",
  "zscan",
  "sscan",
  "dbsize",
  "time",
  "info",
  "config",
  "script",
  "eval_ro",
  "evalsha_ro",
]);

/**
 * True when a request body (one command, or a pipeline's list of them) may be sent again
 * after a failed fetch. CONFIG and SCRIPT count only in their read forms.
 */
export function resendable(body: unknown): boolean {
  if (!Array.isArray(body) || body.length === 0) return false;
  const cmds = Array.isArray(body[0]) ? body as unknown[][] : [body];
  return cmds.every((cmd) => {
    const name = String(cmd[0]).toLowerCase();
    if (!READS.has(name)) return false;
    const sub = String(cmd[1] ?? "").toLowerCase();
    if (name === "config") return sub === "get";
    if (name === "script") return sub === "load" || sub === "exists";
    return true;
  });
}

/** True when the server answered (an HTTP error or a body it could not parse), not the fetch. */
export function answered(error: unknown): boolean {
  return error instanceof Error &&
    (error.name === "UpstashError" || error.name === "UpstashJSONParseError");
}
