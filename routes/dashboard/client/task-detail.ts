/**
 * @module dashboard/client/task-detail — one task: summary and timestamps, progress, payload
 * and result as pretty JSON, the last error with its stack, every attempt from history,
 * workflow parents and children, its log lines per attempt, the schedule link, Cancel and
 * Resubmit.
 */
import { api } from "./api.ts";
import { append, badge, clear, empty, h, panel } from "./dom.ts";
import { clock, dur, pretty, rel } from "./format.ts";
import { FINAL, RESUBMITTABLE } from "./state.ts";
import { cancelButton, progressCell, resubmitButton, waitingLabel } from "./task-cells.ts";
import { loadAttempts, loadFlow, typeBadge } from "./task-flow.ts";
import { loadLog } from "./task-log.ts";
import type { Backoff, TaskRecord, View } from "./types.ts";

function describeBackoff(b: Backoff | null): string {
  if (!b) return "default";
  if (b.type === "fixed") return `fixed ${dur(b.delayMs)}`;
  return `exponential ${dur(b.baseMs)} → ${dur(b.maxMs)}${b.jitter ? `, jitter ${b.jitter}` : ""}`;
}

function kv(dl: HTMLElement, label: string, value: Node | string | number | null): void {
  dl.appendChild(h("dt", { text: label }));
  dl.appendChild(h(
    "dd",
    {},
    value instanceof Node
      ? value
      : value === null || value === undefined || value === ""
      ? h("span", { class: "muted", text: "–" })
      : String(value),
  ));
}

function stamp(ms: number | null): HTMLSpanElement | null {
  return ms === null || ms === undefined ? null : h("span", { title: rel(ms) }, [
    clock(ms),
    h("span", { class: "muted small", text: `  ${rel(ms)}` }),
  ]);
}

function jsonBlock(v: unknown, id: string): HTMLPreElement {
  return h("pre", { class: "json", id, text: pretty(v) });
}

function renderSummary(summary: HTMLElement, t: TaskRecord): void {
  clear(summary);
  kv(summary, "Type", t.type);
  kv(summary, "Pool", t.pool);
  if (t.waitingFor) {
    const text = waitingLabel(t.waitingFor);
    kv(summary, "Waiting for", h("span", { "data-waiting": t.waitingFor, text }));
  }
  kv(summary, "Priority", t.priority);
  kv(summary, "Attempts", `${t.attempt} of ${t.maxRetries + 1} allowed`);
  kv(summary, "Progress", t.progress === null ? null : progressCell(t));
  kv(summary, "Created", stamp(t.createdAt));
  kv(summary, "Due", stamp(t.runAt));
  if (t.expiresAt !== null) kv(summary, "Expires", stamp(t.expiresAt));
  kv(summary, "Started", stamp(t.startedAt));
  kv(summary, "Finished", stamp(t.finishedAt));
  if (t.startedAt && t.finishedAt) kv(summary, "Last run took", dur(t.finishedAt - t.startedAt));
  kv(summary, "Worker", t.workerId);
  kv(summary, "Dedup key", t.key);
  kv(summary, "Timeout", t.timeoutMs === null ? null : dur(t.timeoutMs));
  kv(summary, "Back-off", describeBackoff(t.backoff));
  if (t.cancelReason) kv(summary, "Cancel reason", t.cancelReason);
  kv(
    summary,
    "Schedule",
    t.scheduleId
      ? h("a", {
        href: `#/schedules?id=${encodeURIComponent(t.scheduleId)}`,
        class: "id",
        title: t.scheduleId,
        text: t.scheduleId,
      })
      : null,
  );
}

export const task: View = (el, route) => {
  const id = route.arg ?? "";
  let current: TaskRecord | null = null, shown = "";
  const head = h("div", { class: "detail-head" });
  const summary = h("dl", { class: "kv" });
  const flow = h("div", { class: "body" }, h("div", { class: "muted", text: "Loading…" }));
  const errorBox = h("div");
  const payload = h("div", { class: "body" });
  const result = h("div", { class: "body" });
  const attempts = h("div", {}, h("div", { class: "loading", text: "Loading…" }));
  const log = h(
    "div",
    { class: "body", id: "task-log" },
    h("div", { class: "loading", text: "Loading…" }),
  );
  el.appendChild(h("div", { class: "small" }, h("a", { href: "#/tasks", text: "← All tasks" })));
  el.appendChild(head);
  el.appendChild(h("div", { class: "grid2" }, [
    panel("Summary", null, h("div", { class: "body" }, summary)),
    h("div", { class: "stack" }, [
      panel("Payload", null, payload),
      panel("Result", null, result),
      panel("Workflow", null, flow),
    ]),
  ]));
  el.appendChild(errorBox);
  el.appendChild(panel("Log", "ctx.log lines, oldest first", log));
  el.appendChild(panel("Attempts", "from history, newest first", attempts));

  function render(t: TaskRecord): void {
    // h2: the page's one h1 is the view title (shell); the id heads this view's content.
    clear(head).appendChild(h("h2", { id: "task-id", text: t.id }));
    head.appendChild(badge(t.status));
    head.appendChild(h("span", { class: "grow" }));
    if (!FINAL.has(t.status)) typeBadge(head, t.type);
    if (!FINAL.has(t.status)) append(head, cancelButton(t));
    if (RESUBMITTABLE.has(t.status)) {
      append(head, resubmitButton(t, "primary"));
    }
    renderSummary(summary, t);
    clear(errorBox);
    if (t.error) {
      errorBox.appendChild(panel(
        "Last error",
        null,
        h("div", { class: "body" }, [
          h("pre", { class: "stack", id: "task-error", text: t.error.message }),
          t.error.stack
            ? h("details", {}, [
              h("summary", { text: "Stack trace" }),
              h("pre", { class: "stack", text: t.error.stack }),
            ])
            : null,
        ]),
      ));
    }
    clear(payload).appendChild(jsonBlock(t.payload, "task-payload"));
    clear(result).appendChild(
      t.status === "succeeded" || t.result !== null
        ? jsonBlock(t.result, "task-result")
        : h("div", { class: "muted", text: "No result yet." }),
    );
  }

  // A poll reads one thing per tick: the task, or (the ticks after it changed) its attempts
  // and its log, keeping the page at one request a second; a running task's log every 5th
  // tick too (a worker writes it every 5 s). A user-driven load reads all at once.
  let attemptsDue = false, logDue = false, ticks = 0;
  async function load(polled: boolean): Promise<void> {
    const t = await api<TaskRecord>("GET", `/tasks/${encodeURIComponent(id)}`);
    const first = !current;
    const changed = !current || current.status !== t.status || current.attempt !== t.attempt;
    current = t;
    const s = JSON.stringify(t);
    if (s !== shown) {
      shown = s;
      render(t);
    }
    if (first) loadFlow(flow, t);
    if (!changed) return;
    if (polled) attemptsDue = true;
    else await Promise.all([loadAttempts(attempts, id), loadLog(log, id)]);
  }
  return {
    title: `Task ${id}`,
    load: () => load(false),
    // Only unfinished tasks change on their own; a finished one is re-read after actions.
    poll() {
      if (attemptsDue) {
        attemptsDue = false;
        logDue = true;
        return loadAttempts(attempts, id);
      }
      if (logDue || (current?.status === "running" && ++ticks % 5 === 0)) {
        logDue = false;
        return loadLog(log, id);
      }
      return current && FINAL.has(current.status) ? null : load(true);
    },
    more: () => attemptsDue,
    fail(e) {
      clear(el).appendChild(
        h("div", { class: "small" }, h("a", { href: "#/tasks", text: "← All tasks" })),
      );
      el.appendChild(h(
        "section",
        { class: "panel" },
        e.status === 404
          ? empty(
            "Task not found",
            `No task ${
              JSON.stringify(id)
            } is stored (finished tasks are pruned after the retention period).`,
          )
          : empty("Could not load the task", e.message),
      ));
    },
  };
};
