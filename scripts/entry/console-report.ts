/**
 * @module console-report — what a worker prints while it runs: one line per failed attempt
 * and per dead task of every type (rate-limited: at most 20 in a 10 s window, then one
 * summary line for the rest), and the status line, printed only when a figure in it changed.
 */
import type { AttemptRecord, Scheduler } from "../../src/mod.ts";
import {
  type ConsoleLog,
  firstLine,
  LineBudget,
  type LogLevel,
} from "../../src/worker/console-log.ts";

/** Lines per window before the rest are summed up. */
const PER_WINDOW = 20;
const WINDOW_MS = 10_000;

const KIND_TEXT: Record<string, [string, string]> = {
  failed: ["failed attempt", "failed attempts"],
  dead: ["dead task", "dead tasks"],
  succeeded: ["success", "successes"],
};

/**
 * Prints one line per attempt this instance ends in failure (`retrying`) or death (`dead`),
 * and at debug level per success. Returns the function that stops it.
 */
export function reportAttempts(scheduler: Scheduler, log: ConsoleLog): () => void {
  const budget = new LineBudget(PER_WINDOW, WINDOW_MS, Date.now);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const summarise = () => {
    timer = null;
    const held = budget.flush();
    const total = [...held.values()].reduce((a, b) => a + b, 0);
    if (total === 0) return;
    const parts = [...held].map(([kind, n]) => `${n} ${KIND_TEXT[kind][n === 1 ? 0 : 1]}`);
    log.line(
      "warn",
      `… and ${total} more in the last ${WINDOW_MS / 1000} s (${parts.join(", ")})`,
      {
        event: "attempts_summary",
        more: total,
        ...Object.fromEntries(held),
      },
    );
  };
  // Decided once, for this level: at info a success builds no record at all.
  const levels = { retrying: "warn", dead: "error", succeeded: "debug" } as const;
  const statuses = (Object.keys(levels) as (keyof typeof levels)[])
    .filter((status) => log.enabled(levels[status]));
  const unsubscribe = scheduler.onResult((r: AttemptRecord) => {
    const line = attemptLine(r);
    if (!line) return;
    if (budget.take(line.kind)) log.line(line.level, line.text, line.fields);
    else if (!timer) {
      timer = setTimeout(summarise, budget.msLeft());
      (timer as { unref?: () => void }).unref?.();
    }
  }, { statuses });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
    summarise();
  };
}

/** The console line of one finished attempt, or null for one that says nothing new. */
export function attemptLine(
  r: AttemptRecord,
): { kind: string; level: LogLevel; text: string; fields: Record<string, unknown> } | null {
  const fields = { type: r.type, id: r.taskId, attempt: r.attempt, pool: r.pool };
  const error = firstLine(r.error?.message);
  if (r.status === "retrying") {
    return {
      kind: "failed",
      level: "warn",
      text: `failed ${r.type} ${r.taskId} attempt ${r.attempt} (will retry): ${error}`,
      fields: { event: "attempt_failed", ...fields, error },
    };
  }
  if (r.status === "dead") {
    return {
      kind: "dead",
      level: "error",
      text: `dead ${r.type} ${r.taskId} attempt ${r.attempt}: ${error}`,
      fields: { event: "task_dead", ...fields, error },
    };
  }
  if (r.status === "succeeded") {
    return {
      kind: "succeeded",
      level: "debug",
      text: `succeeded ${r.type} ${r.taskId} attempt ${r.attempt} (${r.durationMs} ms)`,
      fields: { event: "attempt_succeeded", ...fields, durationMs: r.durationMs },
    };
  }
  return null;
}

/**
 * Every `everyMs`: the status line (running, queued, scheduled, done, dead), printed only
 * when a figure changed since the last one printed, so an idle worker stays quiet. A store
 * that cannot answer is said once, and again only when the reason changes. Returns the
 * function that stops it.
 *
 * The figures are read (stats: a script call per partition, and the pool controls) only
 * while the deployment has unfinished work, or when this node heard of new work (an event)
 * since the last read: an idle deployment's workers read nothing, since none of its figures
 * can change without an event. An attempt this node runs needs no hook of its own: its task
 * was announced by an event, or was unfinished at the last read.
 */
export function reportStatus(scheduler: Scheduler, log: ConsoleLog, everyMs: number): () => void {
  let last: string | null = null;
  let lastDone: number | null = null;
  let busy = false;
  let heard = true;
  let idle = false;
  const offEvents = scheduler.storage.subscribe(() => (heard = true));
  const tick = async () => {
    if (busy) return;
    // Nothing unfinished and nothing heard since: no figure can have changed, unread.
    if (idle && !heard) return log.debug("status: unchanged");
    busy = true;
    heard = false;
    try {
      const stats = await scheduler.stats();
      const b = stats.byStatus;
      idle = b.running + b.queued + b.scheduled + b.retrying + b.waiting === 0;
      const done = stats.totals.succeeded + stats.totals.dead;
      const figures = {
        running: b.running,
        queued: b.queued,
        scheduled: b.scheduled + b.retrying,
        done,
        dead: b.dead,
      };
      const key = JSON.stringify(figures);
      if (key === last) return log.debug("status: unchanged");
      const since = lastDone === null ? "" : ` (+${done - lastDone})`;
      last = key;
      lastDone = done;
      log.line(
        "info",
        `status: running ${b.running}, queued ${b.queued}, scheduled ${figures.scheduled}, ` +
          `done ${done}${since}, dead ${b.dead}`,
        { event: "status", ...figures },
      );
    } catch (error) {
      idle = false;
      const reason = firstLine((error as Error)?.message);
      if (reason === last) return log.debug("status: unchanged");
      last = reason;
      log.line("warn", `status: storage unreachable: ${reason}`, {
        event: "status",
        error: reason,
      });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(tick, everyMs);
  (timer as { unref?: () => void }).unref?.();
  return () => {
    clearInterval(timer);
    offEvents();
  };
}
