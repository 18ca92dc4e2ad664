/**
 * @module cli/logs — `logs`: a task's `ctx.log` lines over `/skedulr/api/tasks/:id/logs`.
 */
import { type Command, intOpt, opt, query } from "./command.ts";
import { json } from "./format.ts";

export const logs: Command = {
  name: "logs",
  summary: "a task's log lines (ctx.log), oldest first, with their attempts",
  help: `usage: skedulr logs <id> [--attempt <n>] [--limit <n>] [--cursor <c>] [--json]

Prints "<time>  #<attempt>  <message>  <fields>" per line. A task keeps its newest 1,000
lines within 256 KiB; a note on stderr says how many older ones were dropped.

  --attempt <n>    only the lines attempt n logged
  --limit <n>      at most n lines (the API's default page otherwise; at most 1000)
  --cursor <c>     the next page (printed under a full page)`,
  options: { attempt: { type: "string" }, limit: { type: "string" }, cursor: { type: "string" } },
  positionals: [1, 1],
  async run(ctx) {
    const q = query({
      attempt: intOpt(ctx, "attempt"),
      limit: intOpt(ctx, "limit"),
      cursor: opt(ctx, "cursor"),
    });
    const page = await ctx.api.request("GET", `/tasks/${encodeURIComponent(ctx.args[0])}/logs${q}`);
    if (ctx.json) return ctx.out(JSON.stringify(page));
    if (page.dropped > 0) ctx.note(`${page.dropped} older lines were dropped`);
    if (page.logs.length === 0) return ctx.note("no log lines");
    ctx.out(
      page.logs.map((l: { at: number; attempt: number; message: string; fields?: unknown }) =>
        [new Date(l.at).toISOString(), `#${l.attempt}`, l.message, l.fields ? json(l.fields) : ""]
          .join("  ").trimEnd()
      ).join("\n"),
    );
    if (page.next) ctx.note(`more: add --cursor ${page.next}`);
  },
};
