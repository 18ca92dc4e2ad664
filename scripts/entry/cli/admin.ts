/**
 * @module cli/admin — `stats`, `pause`, `resume`, `schedules`: the cluster-wide view and
 * controls (pausing is admin's).
 */
import { type Command, opt } from "./command.ts";
import { relative, table, when } from "./format.ts";

export const stats: Command = {
  name: "stats",
  summary: "counts by status, pools, totals and durations",
  help: `usage: skedulr stats [--json]

Tasks by status, each pool's size, running, queued and pause flag (cluster-wide), totals
since the store started, and handler durations by type.`,
  positionals: [0, 0],
  async run(ctx) {
    const s = await ctx.api.request("GET", "/stats");
    if (ctx.json) return ctx.out(JSON.stringify(s));
    const blocks = [
      `tasks   ${Object.entries(s.byStatus).map(([k, n]) => `${k} ${n}`).join(" · ")}`,
      `totals  succeeded ${s.totals.succeeded} · failed attempts ${s.totals.failedAttempts}` +
      ` · dead ${s.totals.dead} · stalled ${s.totals.stalled}` +
      ` · expired ${s.totals.expired ?? 0}`,
      table(
        ["POOL", "SIZE", "RUNNING", "QUEUED", "PAUSED"],
        Object.entries(s.pools as Record<string, any>).map(([name, p]) => [
          name,
          String(p.size),
          String(p.running),
          String(p.queued),
          p.paused ? "yes" : "no",
        ]),
      ),
    ];
    const durations = Object.entries(s.durations as Record<string, any>);
    if (durations.length) {
      blocks.push(table(
        ["TYPE", "RUNS", "MEAN", "MEDIAN", "MIN", "MAX"],
        durations.map(([type, d]) => [
          type,
          String(d.count),
          ms(d.meanMs),
          ms(d.medianMs),
          ms(d.minMs),
          ms(d.maxMs),
        ]),
      ));
    }
    ctx.out(blocks.join("\n\n"));
  },
};

const ms = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}s` : `${Math.round(n)}ms`);

function poolControl(action: "pause" | "resume"): Command {
  return {
    name: action,
    summary: action === "pause"
      ? "stop claiming work in a pool, or in all (admin)"
      : "claim work again in a pool, or in all (admin)",
    help: `usage: skedulr ${action} [--pool <p>] [--json]

${
      action === "pause"
        ? "Every worker stops claiming new tasks from the pool (every pool without --pool);\nrunning tasks finish. Submits are still accepted."
        : "Every worker claims from the pool again (every pool without --pool)."
    }`,
    options: { pool: { type: "string" } },
    positionals: [0, 0],
    async run(ctx) {
      const pool = opt(ctx, "pool");
      const answer = await ctx.api.request("POST", `/${action}`, pool ? { pool } : {});
      if (ctx.json) return ctx.out(JSON.stringify(answer));
      const past = action === "pause" ? "paused" : "resumed";
      ctx.out(answer.pool ? `${past} pool ${answer.pool}` : `${past} every pool`);
    },
  };
}

export const pause = poolControl("pause");
export const resume = poolControl("resume");

export const schedules: Command = {
  name: "schedules",
  summary: "recurring and cron schedules, with their next run",
  help: `usage: skedulr schedules [--json]

Each schedule's id, task type, cron (with its time zone) or interval, next and last run.
\`skedulr cancel <id>\` removes one (admin).`,
  positionals: [0, 0],
  async run(ctx) {
    const { schedules } = await ctx.api.request("GET", "/schedules");
    if (ctx.json) return ctx.out(JSON.stringify({ schedules }));
    if (schedules.length === 0) return ctx.note("no schedules");
    ctx.out(table(
      ["ID", "TYPE", "WHEN", "NEXT RUN", "LAST RUN"],
      schedules.map((s: any) => [
        s.id,
        s.template.type,
        s.kind === "cron"
          ? `cron ${s.cron}${s.timezone ? ` (${s.timezone})` : ""}`
          : `every ${every(s.everyMs)}`,
        when(s.nextRunAt),
        s.lastRunAt === null ? "-" : `${relative(s.lastRunAt)} (${s.lastRunId})`,
      ]),
    ));
  },
};

/** 30000 → `30s`, 5400000 → `90m`: the largest unit that divides evenly. */
function every(ms: number): string {
  for (const [size, unit] of [[86_400_000, "d"], [3_600_000, "h"], [60_000, "m"], [1000, "s"]]) {
    if (ms % (size as number) === 0) return `${ms / (size as number)}${unit}`;
  }
  return `${ms}ms`;
}
