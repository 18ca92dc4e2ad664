/**
 * @module redis/queue — the task transitions ({@link QueueStore}) on Redis, each one Lua
 * script (claims, completions and failures of one tick batched into one call each).
 *
 * Each write delivers to the store's listeners, at once, the events its reply shows the
 * script published (events.ts); where a reply does not say which pools got work
 * (promotions, recoveries, hand-backs), `ready` goes to every pool this store claims from.
 * What only the script knows (a cancelled task was running; children a cascade queued)
 * arrives over pub/sub, as do the events of other instances.
 */
import { NotFoundError } from "../../core/errors.ts";
import type { TaskRecord, TaskStatus } from "../../core/task.ts";
import type * as P from "../params.ts";
import type { QueueStore } from "../storage.ts";
import type { Claimed, ClaimedTask, DedupedTask, Enqueued, Expiry, Recovery } from "../types.ts";
import type { Batcher } from "./batcher.ts";
import { claimBatcher, type ClaimItem } from "./claims.ts";
import { checkReply } from "./codes.ts";
import { decodeTask, encodeTaskInto } from "./codec.ts";
import { countArg, type RedisContext } from "./context.ts";
import { completeBatcher, type CompleteItem, failBatcher, resubmitMatching } from "./endings.ts";
import { enqueuedEvents, type EventHub } from "./events.ts";
import { keys } from "./keys.ts";
import { dueMembers } from "./registry.ts";
import { logsArg } from "./task-logs.ts";
import type { RedisReply } from "./transport.ts";

/** Claimed attempts remembered for their history entries (about 1 KB each). */
const CLAIMED_CACHE_MAX = 10_000;

export class RedisQueue implements QueueStore {
  readonly #ctx: RedisContext;
  readonly #events: EventHub;
  readonly #completes: Batcher<CompleteItem, boolean>;
  readonly #fails: Batcher<P.FailParams, "retrying" | "dead" | null>;
  readonly #claims: Batcher<ClaimItem, Claimed>;
  /** Attempts this store claimed and has not ended, by task id (see complete()). */
  readonly #claimed = new Map<string, ClaimedTask>();
  /** Pools this store claims from: where its promotions, recoveries and releases may land. */
  readonly #claimPools = new Set<string>();

  constructor(ctx: RedisContext, events: EventHub) {
    this.#ctx = ctx;
    this.#events = events;
    this.#completes = completeBatcher(ctx);
    this.#fails = failBatcher(ctx);
    this.#claims = claimBatcher(ctx);
  }

  /** `ready` for every pool this store claims from, when `n` tasks went back to work. */
  #readyIf(n: number): void {
    if (n > 0) this.#events.local([...this.#claimPools].map((pool) => ({ kind: "ready", pool })));
  }

  async enqueue({ tasks, now }: P.EnqueueParams): Promise<Enqueued[]> {
    if (tasks.length === 0) return [];
    const args = [
      String(now),
      this.#ctx.maxUnfinished === undefined ? "" : String(this.#ctx.maxUnfinished),
      String(tasks.length),
    ];
    for (const t of tasks) encodeTaskInto(args, t);
    const d = checkReply(await this.#ctx.run("enqueue", args), "enqueue") as (string | string[])[];
    // Per task: its status alone, or the status, cancel reason (the answer leaves it out), and
    // for a hit the task that answers it and what hit.
    const answers = tasks.map((t, i): Enqueued => {
      const e = d[i];
      if (typeof e === "string") return { id: t.id, status: e as TaskStatus };
      const [status, , id, hit] = e;
      if (hit === "dedupe") {
        return { id, status: status as DedupedTask["status"], deduplicated: true };
      }
      if (hit) return { id, status: "scheduled", runAt: Number(hit), debounced: true };
      return { id: t.id, status: status as TaskStatus };
    });
    this.#events.local(enqueuedEvents(tasks, answers));
    return answers;
  }

  async claim({ pool, max, owner, now }: P.ClaimParams): Promise<Claimed> {
    const n = countArg(max, "loop");
    this.#claimPools.add(pool);
    if (n === 0) return [];
    const tasks = await this.#claims.add({ pool, max: n, owner, now });
    // A cache, never the truth: a miss (lease lost, cancelled, bound reached) only means
    // the complete script builds the history entry itself.
    if (this.#claimed.size + tasks.length > CLAIMED_CACHE_MAX) this.#claimed.clear();
    for (const task of tasks) this.#claimed.set(task.id, task);
    return tasks;
  }

  async releaseClaim({ pool, owner, claimedAt, keep, now }: P.ReleaseClaimParams): Promise<number> {
    const args = [String(now), pool, owner.workerId, String(claimedAt), String(owner.leaseMs)];
    const n = Number(await this.#ctx.run("releaseClaim", [...args, ...keep]));
    if (n > 0) this.#events.local([{ kind: "ready", pool }]);
    return n;
  }

  async renewLeases({ leases, leaseMs, now }: P.RenewParams): Promise<string[]> {
    if (leases.length === 0) return [];
    const args = [String(now), leases[0].workerId, String(leaseMs)];
    for (const lease of leases) args.push(lease.id, lease.token);
    return (await this.#ctx.run("renewLeases", args) as RedisReply[]).map(String);
  }

  complete({ lease, result, now, logs, history }: P.CompleteParams): Promise<boolean> {
    const claimed = this.#claimed.get(lease.id);
    this.#claimed.delete(lease.id);
    return this.#completes.add({
      lease,
      now,
      result,
      logs,
      history,
      claimed: claimed?.token === lease.token ? claimed : undefined,
    });
  }

  async fail(p: P.FailParams): Promise<"retrying" | "dead" | null> {
    // Only a first settle of a claim made here moved the task: a repeated one changes nothing.
    const claimed = this.#claimed.get(p.lease.id);
    const first = claimed?.token === p.lease.token;
    this.#claimed.delete(p.lease.id);
    const status = await this.#fails.add(p);
    if (first && status === "retrying" && p.retryAt !== null) {
      this.#events.local([{ kind: "delayed", id: p.lease.id, runAt: p.retryAt }]);
      // Waiting again, it may expire before its next attempt (fail-task.lua re-indexes it).
      const at = claimed?.expiresAt ?? null;
      if (at !== null) this.#events.local([{ kind: "expiry", id: p.lease.id, at }]);
    }
    return status;
  }

  async release({ leases, now }: P.ReleaseParams): Promise<number> {
    if (leases.length === 0) return 0;
    const args = [String(now), leases[0].workerId];
    for (const lease of leases) {
      this.#claimed.delete(lease.id);
      args.push(lease.id, lease.token, logsArg(lease.logs));
    }
    const n = Number(await this.#ctx.run("release", args));
    this.#readyIf(n);
    return n;
  }

  async setProgress({ lease, progress, now }: P.ProgressParams): Promise<boolean> {
    const clamped = String(Math.max(0, Math.min(100, progress)));
    const args = [lease.id, lease.workerId, lease.token, clamped, String(now)];
    return (await this.#ctx.run("setProgress", args)) === 1;
  }

  async appendLogs({ leases, now }: P.AppendLogsParams): Promise<boolean[]> {
    if (leases.length === 0) return [];
    const args = [String(now)];
    for (const l of leases) args.push(l.id, l.workerId, l.token, logsArg(l.logs));
    return (await this.#ctx.run("appendLogs", args) as number[]).map((n) => Number(n) === 1);
  }

  async cancel({ id, reason, now }: P.CancelParams): Promise<TaskRecord> {
    const args = [String(now), id, reason, ...this.#ctx.retentionArgs()];
    const reply = await this.#ctx.run("cancel", args);
    return decodeTask(checkReply(reply, "cancel", id)[0])!.record;
  }

  async resubmit({ id, now }: P.ResubmitParams): Promise<TaskRecord> {
    const reply = await this.#ctx.run("resubmit", [String(now), id]);
    const row = decodeTask(checkReply(reply, "resubmit", id)[0]);
    if (!row) throw new NotFoundError("Task", id);
    this.#events.local([{ kind: "ready", pool: row.record.pool }]);
    return row.record;
  }

  async resubmitMatching({ filter, now }: P.ResubmitMatchingParams): Promise<number> {
    const n = await resubmitMatching(this.#ctx, filter, now);
    if (n > 0 && filter.pool) this.#events.local([{ kind: "ready", pool: filter.pool }]);
    else this.#readyIf(n);
    return n;
  }

  async dueDelayed({ until, limit }: P.DueParams): Promise<{ id: string; runAt: number }[]> {
    const due = await dueMembers(this.#ctx, keys.delayed(this.#ctx.prefix), until, limit);
    return due.map((d) => ({ id: d.id, runAt: d.at }));
  }

  async promoteDue({ now, limit }: P.StepParams): Promise<number> {
    const n = countArg(limit, "loop");
    if (n === 0) return 0;
    const promoted = Number(await this.#ctx.run("promoteDue", [String(now), String(n)]));
    this.#readyIf(promoted);
    return promoted;
  }

  async dueExpiries({ until, limit }: P.DueParams): Promise<{ id: string; expiresAt: number }[]> {
    // Members of the expiry index are plain ids, without a seq.
    const key = keys.expiries(this.#ctx.prefix);
    const due = await dueMembers(this.#ctx, key, until, limit, (member) => member);
    return due.map((d) => ({ id: d.id, expiresAt: d.at }));
  }

  async expireDue({ now, limit }: P.StepParams): Promise<Expiry> {
    const n = countArg(limit, "loop");
    if (n === 0) return { expired: 0, more: false };
    const args = [String(now), String(n), ...this.#ctx.retentionArgs()];
    const [expired, read] = await this.#ctx.run("expireDue", args) as number[];
    // Children a cascade queued may be in any pool: every pool this store claims from.
    this.#readyIf(Number(expired));
    return { expired: Number(expired), more: Number(read) === n };
  }

  async recoverExpired({ now, limit }: P.StepParams): Promise<Recovery> {
    const n = countArg(limit, "slice");
    const args = [String(now), String(n), ...this.#ctx.retentionArgs()];
    const [recovered, pending] = await this.#ctx.run("recoverExpired", args) as number[];
    // Children a continued cascade queued may be in any pool: every pool this store claims from.
    this.#readyIf(Number(recovered) + Number(pending));
    return { recovered: Number(recovered), cascadesPending: pending === 1 };
  }
}
