/**
 * @module redis/task-logs — task logs on Redis: a batch of lines as the one script argument
 * lua/includes/task-logs.lua reads, and a page read back by lua/taskLogs-1.lua.
 */
import { logLineJson } from "../../core/task-log.ts";
import { logCursor, pageLimit } from "../filter.ts";
import type { LogBatch, LogFilter, LogPage } from "../types.ts";
import type { RedisContext } from "./context.ts";

/**
 * `"<from>\n<line JSON>\n<line JSON>…"`, or "" for no lines. JSON text never holds a raw
 * newline (JSON.stringify escapes it), so the script splits on them.
 */
export function logsArg(batch: LogBatch | undefined): string {
  if (!batch || batch.lines.length === 0) return "";
  return `${batch.from}\n${batch.lines.map(logLineJson).join("\n")}`;
}

/** A page of task `id`'s log, or null for an unknown task. */
export async function readTaskLogs(
  ctx: RedisContext,
  id: string,
  filter: LogFilter,
): Promise<LogPage | null> {
  const reply = await ctx.run("taskLogs", [
    id,
    String(logCursor(filter.cursor)),
    String(pageLimit(filter)),
    filter.attempt === undefined ? "" : String(filter.attempt),
  ]) as (string | number)[];
  if (Number(reply[0]) !== 1) return null;
  return {
    items: reply.slice(3).map((line) => JSON.parse(String(line))),
    next: reply[2] === "" ? null : String(reply[2]),
    dropped: Number(reply[1]),
  };
}
