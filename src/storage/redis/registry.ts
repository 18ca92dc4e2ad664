/**
 * @module registry — schedules, pool controls and live instances over Redis.
 */
import type { NewTask, ScheduleRecord } from "../../core/task.ts";
import type {
  FireParams,
  PauseScheduleParams,
  PoolLimitsParams,
  PoolStartsParams,
  PutScheduleParams,
  TriggerParams,
} from "../params.ts";
import type { RateLimit } from "../../core/pool-limits.ts";
import type {
  FireResult,
  InstanceInfo,
  PoolControl,
  PutScheduleResult,
  StorageEvent,
} from "../types.ts";
import { checkReply } from "./codes.ts";
import { decodeSchedule, encodeTask } from "./codec.ts";
import { countArg, type RedisContext } from "./context.ts";
import { storageError } from "./faults.ts";
import { keys, memberId } from "./keys.ts";
import { pairsToObject, type RedisReply } from "./transport.ts";

export async function putSchedule(
  ctx: RedisContext,
  { schedule: s, replace }: PutScheduleParams,
): Promise<PutScheduleResult & { paused: boolean }> {
  // The hash keeps the mutable fields (lua/putSchedule-1.lua); the JSON the rest.
  const { lastRunId: _i, lastRunAt: _a, lastFiredAt: _f, paused: _p, ...fixed } = s;
  const reply = await ctx.run("putSchedule", [
    s.id,
    JSON.stringify(fixed),
    String(s.nextRunAt),
    s.skipIfRunning ? "1" : "0",
    replace ? "1" : "0",
    String(s.createdAt),
  ]);
  const [outcome, detail, paused] = checkReply(reply, "putSchedule", s.id).map(String);
  if (outcome === "stale") return { outcome, lastFiredAt: Number(detail), paused: false };
  return { outcome: outcome as "created" | "replaced", paused: paused === "1" };
}

export async function setSchedulePaused(
  ctx: RedisContext,
  { id, paused }: PauseScheduleParams,
): Promise<ScheduleRecord | null> {
  const reply = await ctx.run("setSchedulePaused", [id, paused ? "1" : "0"]) as RedisReply[];
  return reply.length ? decodeSchedule(reply) : null;
}

export async function triggerSchedule(ctx: RedisContext, p: TriggerParams): Promise<boolean> {
  return (await ctx.run("triggerSchedule", [String(p.now), p.id, ...encodeTask(p.run)])) === 1;
}

export async function getSchedules(ctx: RedisContext, ids: string[]): Promise<ScheduleRecord[]> {
  const reply = await ctx.run("getSchedules", ids) as RedisReply[];
  return reply.map(decodeSchedule);
}

/** Schedules one script call reads when listing them all. */
export const SCHEDULES_PAGE = 500;

/** Every schedule in creation order, a page per script call (lua/getSchedules-1.lua). */
export async function listSchedules(ctx: RedisContext): Promise<ScheduleRecord[]> {
  const all: ScheduleRecord[] = [];
  for (let from = "-inf";;) {
    const reply = await ctx.run("getSchedules", ["", from, String(SCHEDULES_PAGE)]) as RedisReply[];
    const next = reply.pop();
    for (const entry of reply) all.push(decodeSchedule(entry));
    if (!next) return all;
    from = `(${next}`;
  }
}

export async function removeSchedule(ctx: RedisContext, id: string): Promise<boolean> {
  return (await ctx.run("removeSchedule", [id])) === 1;
}

/**
 * `[{id, at}]` of a zset scored by time, due by `until`, earliest first; `idOf` reads the id
 * from a member (default: a `<seq><id>` member).
 */
export async function dueMembers(
  ctx: RedisContext,
  key: string,
  until: number,
  limit: number,
  idOf: (member: string) => string = memberId,
): Promise<{ id: string; at: number }[]> {
  const n = countArg(limit, "slice");
  if (n === 0) return [];
  const reply = await ctx.transport.send([
    "ZRANGEBYSCORE",
    key,
    "-inf",
    String(until),
    "WITHSCORES",
    "LIMIT",
    "0",
    String(n),
  ]) as string[];
  const out: { id: string; at: number }[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    out.push({ id: idOf(String(reply[i])), at: Number(reply[i + 1]) });
  }
  return out;
}

export async function fireSchedule(ctx: RedisContext, p: FireParams): Promise<FireResult> {
  const reply = await ctx.run("fireSchedule", [
    String(p.now),
    p.id,
    String(p.occurrenceAt),
    String(p.nextRunAt),
    String(p.firedAt),
    ...(p.run ? encodeTask(p.run) : []),
  ]) as RedisReply[];
  if (reply[0] !== 1) return { fired: false, taskId: null };
  return { fired: true, taskId: reply[1] === undefined ? null : String(reply[1]) };
}

/** What lua/fireSchedule-1.lua published for a firing: the schedule moved, its run filed. */
export function firedEvents(p: FireParams, result: FireResult): StorageEvent[] {
  const events: StorageEvent[] = [{ kind: "schedule", id: p.id, nextRunAt: p.nextRunAt }];
  if (result.taskId === null || !p.run) return events;
  return [...events, ...runEvents(p.run, p.now)];
}

/** What inserting a schedule's run published: it has no parents, so it is due or delayed. */
export function runEvents(run: NewTask, now: number): StorageEvent[] {
  const events: StorageEvent[] = [];
  const { runAt } = run;
  if (runAt !== null && runAt > now) events.push({ kind: "delayed", id: run.id, runAt });
  else events.push({ kind: "ready", pool: run.pool });
  const at = run.expiresAt ?? null;
  if (at !== null) events.push({ kind: "expiry", id: run.id, at });
  return events;
}

export async function poolControls(ctx: RedisContext): Promise<PoolControl[]> {
  const [pools, control] = await ctx.transport.pipeline([
    ["ZRANGE", keys.controlPools(ctx.prefix), "0", "-1"],
    ["HGETALL", keys.control(ctx.prefix)],
  ]);
  if (pools instanceof Error) throw storageError(pools);
  if (control instanceof Error) throw storageError(control);
  const c = pairsToObject(control);
  return (pools as string[]).map((pool) => ({
    pool,
    size: c[`size:${pool}`] === undefined ? null : Number(c[`size:${pool}`]),
    paused: c[`paused:${pool}`] === "1",
    globalConcurrency: c[`global:${pool}`] === undefined ? null : Number(c[`global:${pool}`]),
    rateLimit: decodeRate(c[`rate:${pool}`]),
  }));
}

/** `rate:<pool>` of the control hash: "<max>/<perMs>" (lua/setPoolLimits-1.lua). */
function decodeRate(value: string | undefined): RateLimit | null {
  if (value === undefined) return null;
  const [max, perMs] = value.split("/").map(Number);
  return { max, perMs };
}

export async function setPoolLimits(ctx: RedisContext, p: PoolLimitsParams): Promise<void> {
  const { globalConcurrency: g, rateLimit: r } = p.limits;
  await ctx.run("setPoolLimits", [
    p.pool,
    p.ifAbsent ? "1" : "0",
    g === undefined ? "" : g === null ? "-" : String(g),
    r === undefined ? "" : r === null ? "-" : `${r.max}/${r.perMs}`,
  ]);
}

/** Starts of a rate-limited pool inside `(now - perMs, now]` (its starts:<pool> log). */
export async function poolStarts(ctx: RedisContext, p: PoolStartsParams): Promise<number> {
  const reply = await ctx.transport.send([
    "ZCOUNT",
    keys.starts(ctx.prefix, p.pool),
    `(${p.now - p.perMs}`,
    String(p.now),
  ]);
  return Number(reply);
}

/** Running tasks of `pool` across the cluster (the `running` hash claims count in). */
export async function poolRunning(ctx: RedisContext, pool: string): Promise<number> {
  return Number(await ctx.transport.send(["HGET", `${ctx.prefix}running`, pool]) ?? 0);
}

export async function heartbeat(
  ctx: RedisContext,
  info: InstanceInfo,
  ttlMs: number,
  now: number,
): Promise<void> {
  await ctx.run("heartbeat", [
    info.id,
    String(now + ttlMs),
    JSON.stringify({ ...info, lastSeen: now }),
  ]);
}

export async function listInstances(ctx: RedisContext, now: number): Promise<InstanceInfo[]> {
  const reply = await ctx.run("listInstances", [String(now)]) as string[];
  return reply.map((text) => JSON.parse(text) as InstanceInfo);
}
