/**
 * @module dashboard/client/task-log — a task's `ctx.log` lines (`GET /tasks/:id/logs`), oldest
 * first, under a heading per attempt; messages and fields as text (h() never parses HTML).
 */
import { api } from "./api.ts";
import { clear, empty, h } from "./dom.ts";
import { clock } from "./format.ts";
import type { Failure, LogLine, TaskLog } from "./types.ts";

/** One attempt's run of lines (a resubmitted task counts from 1 again: a new run). */
function runs(lines: LogLine[]): LogLine[][] {
  const out: LogLine[][] = [];
  for (const line of lines) {
    const last = out[out.length - 1];
    if (last && last[0].attempt === line.attempt) last.push(line);
    else out.push([line]);
  }
  return out;
}

function lineRow(line: LogLine): HTMLLIElement {
  return h("li", { class: "log-line" }, [
    h("span", {
      class: "muted mono",
      title: new Date(line.at).toISOString(),
      text: clock(line.at),
    }),
    h("span", { class: "log-message", text: line.message }),
    line.fields ? h("code", { class: "log-fields", text: JSON.stringify(line.fields) }) : null,
  ]);
}

function render(box: HTMLElement, page: TaskLog): void {
  clear(box);
  if (page.dropped > 0) {
    box.appendChild(h("p", {
      class: "muted small log-note",
      text: `${page.dropped} older line${page.dropped === 1 ? " was" : "s were"} dropped: ` +
        "a task keeps its newest 1,000 lines within 256 KiB.",
    }));
  }
  if (!page.logs.length) {
    box.appendChild(empty("No log lines", "Lines a handler logs with ctx.log show here."));
    return;
  }
  for (const run of runs(page.logs)) {
    box.appendChild(h("div", { class: "log-attempt", "data-attempt": run[0].attempt }, [
      h("h3", { class: "small", text: `Attempt ${run[0].attempt}` }),
      h("ol", { class: "log" }, run.map(lineRow)),
    ]));
  }
  if (page.next) {
    box.appendChild(h("p", { class: "muted small", text: "More lines follow (the API pages)." }));
  }
}

/** Fills `box` with the task's log lines (a task keeps at most 1,000: one page). */
export function loadLog(box: HTMLElement, id: string): Promise<void> {
  return api<TaskLog>("GET", `/tasks/${encodeURIComponent(id)}/logs?limit=1000`).then(
    (page) => render(box, page),
    (e: Failure) => {
      clear(box).appendChild(empty("Could not read the log", e.message));
    },
  );
}
