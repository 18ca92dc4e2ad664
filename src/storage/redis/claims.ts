/**
 * @module claims — claims of one tick, for any number of pools, become one script call.
 *
 * A worker pumps each of its pools on its own, so a wake-up of every pool (the backstop
 * poll, a control change, start-up) would otherwise cost one EVALSHA per pool. Batched,
 * an idle worker's poll is one command however many pools it serves, and busy pools that
 * free slots in the same tick share a round trip. Claims are applied in call order.
 */
import type { Claimed, ClaimedTask, LeaseOwner } from "../storage.ts";
import { Batcher } from "./batcher.ts";
import { redactedCallback } from "../../core/callback.ts";
import { bodyFields, parseBody, storedPayload } from "./codec.ts";
import type { RedisContext } from "./context.ts";
import type { RedisReply } from "./transport.ts";

export interface ClaimItem {
  pool: string;
  /** At least 1. */
  max: number;
  owner: LeaseOwner;
  now: number;
}

export function claimBatcher(ctx: RedisContext): Batcher<ClaimItem, Claimed> {
  return new Batcher(async (items) => {
    const args = items.flatMap((c) => [
      String(c.now),
      c.pool,
      String(c.max),
      c.owner.workerId,
      String(c.owner.leaseMs),
    ]);
    const reply = await ctx.run("claim", args) as RedisReply[][];
    return reply.map((claimed, i) => decodeClaim(claimed, items[i]));
  });
}

/** One claim's list: the tasks, then `heldUntil` when the rate limit held work back. */
function decodeClaim(claimed: RedisReply[], item: ClaimItem): Claimed {
  const last = claimed[claimed.length - 1];
  const held = last !== undefined && !Array.isArray(last);
  const out: Claimed = (held ? claimed.slice(0, -1) : claimed).map((values) =>
    decodeClaimed(values as Value[], item)
  );
  if (held) out.heldUntil = Number(last);
  return out;
}

/**
 * The task fields lua/claim-1.lua reads (HMGET, a generated fact) and sends back by position,
 * except three slots the claim reuses: `status` carries the id, `attempt` the new attempt and
 * `progress` (cleared by the claim) the claim's token. A queued task has no result,
 * finishedAt or cancelReason, so they are not read: each field costs the claim ~0.4 us.
 * The last {@link CLAIMED_LATER} are written only by an attempt (a task claimed before has
 * an `attempt` field): the claim reads them for such a task alone, so a first attempt's
 * reply may end before them (absent: null).
 */
export const CLAIMED_FIELDS = [
  "status",
  "attempt",
  "type",
  "priority",
  "payload",
  "maxRetries",
  "runAt",
  "key",
  "body",
  "expiresAt",
  "fk",
  // Not decoded: the claim checks its ready list's entry against it (lua/includes/ready.lua).
  "seq",
  "progress",
  "error",
  "stalls",
] as const;

/** How many of CLAIMED_FIELDS, at its end, only a task claimed before can have. */
export const CLAIMED_LATER = 3;

/** Reply position of each field (the claim's reused slots under their own names). */
const AT = Object.fromEntries(CLAIMED_FIELDS.map((f, i) => [f, i])) as Record<
  typeof CLAIMED_FIELDS[number],
  number
>;
const ID = AT.status;
const TOKEN = AT.progress;

type Value = string | null;
// A first attempt's reply ends before the fields only an attempt writes: undefined is absent.
const num = (v: Value | undefined) => (v == null ? null : Number(v));
const parse = (v: Value | undefined) => (v == null ? null : JSON.parse(v));

/**
 * A claimed task from the reply of lua/claim-1.lua (CLAIMED_FIELDS, by position), what the
 * claim itself set, and the fields no queued task has: the same record decodeTask (codec.ts)
 * builds from the stored hash.
 */
function decodeClaimed(v: Value[], claim: ClaimItem): ClaimedTask {
  const body = parseBody(v[AT.body]!);
  const b = bodyFields(body);
  const stalls = v[AT.stalls];
  return {
    token: v[TOKEN]!,
    id: v[ID]!,
    type: v[AT.type]!,
    status: "running",
    pool: claim.pool,
    priority: Number(v[AT.priority] ?? 0),
    // The only read that gets header values (an http task's, a callback's): the handler
    // sends them.
    payload: storedPayload(v[AT.type]!, parse(v[AT.payload]), body, true),
    attempt: Number(v[AT.attempt]),
    maxRetries: Number(v[AT.maxRetries] ?? 0),
    stalls: stalls == null ? 0 : Number(stalls),
    maxStalls: b.maxStalls,
    progress: null,
    result: null,
    error: parse(v[AT.error]),
    createdAt: b.createdAt,
    runAt: num(v[AT.runAt]),
    startedAt: claim.now,
    finishedAt: null,
    scheduleId: b.scheduleId,
    dependsOn: b.dependsOn,
    onSuccessOf: b.onSuccessOf,
    onFailureOf: b.onFailureOf,
    key: v[AT.key] ?? null,
    timeoutMs: b.timeoutMs,
    backoff: b.backoff,
    cancelReason: null,
    workerId: claim.owner.workerId,
    expiresAt: num(v[AT.expiresAt]),
    flowControl: body.flowControl ?? null,
    waitingFor: null,
    traceparent: body.traceparent ?? null,
    callback: body.callback ? redactedCallback(body.callback) : null,
  };
}
