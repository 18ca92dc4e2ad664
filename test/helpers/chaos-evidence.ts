/**
 * @module chaos-evidence — what the chaos suite knows after a fault: the handler runs the
 * fixture logged to files (test/chaos/fixtures/chaos-jobs.ts), the task records in the store,
 * and the one-line summary each test prints:
 *
 *   chaos kill -9: submitted 3000 / succeeded 3000 / dead 0 / never finished 0 / run more than once 12
 *
 * A run is a handler execution; a task "ran more than once" when the logs hold more than one
 * `start` for it (the store cannot say: a lost lease may not count as an attempt).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { eventually } from "../../scripts/tools/wait.ts";

/** One handler execution, from its log lines; `end`/`abort` are null while it never got one. */
export interface Run {
  taskId: string;
  attempt: number;
  pid: number;
  start: number;
  end: number | null;
  abort: number | null;
  /** The abort reason's message. */
  reason: string | null;
}

/** task id → its runs in start order, from every `<pid>.log` in `dir`. */
export function readRuns(dir: string): Map<string, Run[]> {
  const runs = new Map<string, Run[]>();
  const open = new Map<string, Run[]>(); // "<task> <attempt> <pid>" → runs without an end yet
  // Lines pair up within one process, whose file is in write order (a sort by time could
  // swap a start and an end written in the same millisecond).
  const lines = readdirSync(dir).filter((f) => f.endsWith(".log"))
    .flatMap((f) => readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean))
    .map((line) => line.split(" "));
  for (const [kind, taskId, attempt, pid, at, ...reason] of lines) {
    const key = `${taskId} ${attempt} ${pid}`;
    if (kind === "start") {
      const run: Run = {
        taskId,
        attempt: Number(attempt),
        pid: Number(pid),
        start: Number(at),
        end: null,
        abort: null,
        reason: null,
      };
      runs.set(taskId, [...(runs.get(taskId) ?? []), run]);
      open.set(key, [...(open.get(key) ?? []), run]);
    } else {
      // The first unfinished run of that key; an abort after the end (a shutdown) adds nothing.
      const run = open.get(key)?.shift();
      if (!run) continue;
      if (kind === "end") run.end = Number(at);
      else {
        run.abort = Number(at);
        run.reason = reason.join(" ");
      }
    }
  }
  for (const list of runs.values()) list.sort((a, b) => a.start - b.start);
  return runs;
}

/** When a run stopped (its end, else its abort), or null: still running, or killed. */
export function finishOf(run: Run): number | null {
  return run.end ?? run.abort;
}

/** What the store says of one task; `status` null means no record (lost). */
export interface TaskState {
  status: string | null;
  attempt: number;
  result: string | null;
  error: string | null;
}

const FINAL = new Set(["succeeded", "dead", "cancelled"]);

/** Reads `status`, `attempt`, `result` and `error` of each task, pipelined 1000 at a time. */
export async function readTasks(
  redis: RedisTransport,
  prefix: string,
  ids: string[],
): Promise<Map<string, TaskState>> {
  const out = new Map<string, TaskState>();
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    const key = (id: string) => `${prefix}:{default}:task:${id}`;
    const replies = await redis.pipeline(
      chunk.map((id) => ["HMGET", key(id), "status", "attempt", "result", "error"]),
    );
    replies.forEach((r, j) => {
      if (r instanceof Error) throw r;
      const [status, attempt, result, error] = r as (string | null)[];
      out.set(chunk[j], { status, attempt: Number(attempt ?? 0), result, error });
    });
  }
  return out;
}

/**
 * Waits until every task is final (succeeded, dead or cancelled) or `timeoutMs` passed, and
 * returns the records either way: the summary line is printed before any assertion fails.
 */
export async function waitUntilFinal(
  redis: RedisTransport,
  prefix: string,
  ids: string[],
  timeoutMs: number,
): Promise<Map<string, TaskState>> {
  let last = new Map<string, TaskState>();
  let reads = 0;
  await eventually(
    async () => {
      // A poll interval (reading thousands of rows competes with the workers for the CPU).
      if (reads++ > 0) await new Promise((r) => setTimeout(r, 250));
      last = await readTasks(redis, prefix, ids);
      return [...last.values()].every((t) => t.status !== null && FINAL.has(t.status));
    },
    `${ids.length} tasks to finish`,
    timeoutMs,
  ).catch(() => {});
  return last;
}

/** The figures of one fault. */
export interface Tally {
  submitted: number;
  succeeded: number;
  dead: number;
  /** Not final at the end (or no record at all: lost). */
  neverFinished: number;
  /** Ids whose handler started more than once. */
  ranTwice: string[];
}

/** The figures from the store's records (status) and the logs (runs) of `ids`. */
export function tally(
  ids: string[],
  tasks: Map<string, TaskState>,
  runs: Map<string, Run[]>,
): Tally {
  const states = ids.map((id) => tasks.get(id)?.status ?? null);
  return {
    submitted: ids.length,
    succeeded: states.filter((s) => s === "succeeded").length,
    dead: states.filter((s) => s === "dead").length,
    neverFinished: states.filter((s) => s === null || !FINAL.has(s)).length,
    ranTwice: ids.filter((id) => (runs.get(id)?.length ?? 0) > 1),
  };
}

/** Prints and returns the one summary line of a fault. */
export function report(fault: string, t: Tally): string {
  const line =
    `chaos ${fault}: submitted ${t.submitted} / succeeded ${t.succeeded} / dead ${t.dead}` +
    ` / never finished ${t.neverFinished} / run more than once ${t.ranTwice.length}`;
  console.log(line);
  return line;
}

/**
 * How far a run's life reaches past its logged handler: the claim that precedes the start
 * and the settle that follows the end are calls to the store too. A settle batched just
 * before a fault is cut by it; a claim sent during a Redis stall is answered after it, with
 * a lease dated from when it was sent.
 */
export const SETTLE_SLACK_MS = 1_000;

/**
 * A predicate for "this run was touched by the fault": it overlapped [faultStart, faultEnd],
 * widened by `slackMs` on each side (see {@link SETTLE_SLACK_MS}).
 */
export function overlapped(
  faultStart: number,
  faultEnd: number,
  slackMs = SETTLE_SLACK_MS,
): (run: Run) => boolean {
  return (run) => {
    const finished = finishOf(run);
    return run.start <= faultEnd + slackMs &&
      (finished === null || finished >= faultStart - slackMs);
  };
}

/**
 * For `kill -9` at `killedAt`: a run on the killed process that never ended, or ended so
 * shortly before the kill that its completion may not have reached the store.
 */
export function killedOn(
  pid: number,
  killedAt: number,
  slackMs = SETTLE_SLACK_MS,
): (run: Run) => boolean {
  return (run) => {
    const finished = finishOf(run);
    return run.pid === pid && (finished === null || finished >= killedAt - slackMs);
  };
}

/**
 * Tasks that ran more than once although none of their runs was touched by the fault, each
 * with its runs, for an assertion message that shows the evidence.
 */
export function unexplainedReruns(
  t: Tally,
  runs: Map<string, Run[]>,
  touched: (run: Run) => boolean,
): string[] {
  return t.ranTwice
    .filter((id) => !runs.get(id)!.some(touched))
    .map((id) => `${id}: ${JSON.stringify(runs.get(id))}`);
}
