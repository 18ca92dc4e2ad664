/**
 * @module dashboard/client/task-cells — pieces of a task shared by the lists and the detail
 * view: clickable rows, Cancel and Resubmit (only for roles that may), attempts, progress,
 * and the finished-or-due time.
 */
import { api } from "./api.ts";
import { badge, can, h, taskHref } from "./dom.ts";
import { clock, when } from "./format.ts";
import { button, confirmButton } from "./live.ts";
import { FINAL } from "./state.ts";
import type { TaskRecord } from "./types.ts";

/** The whole row opens the task, except clicks on its own links and controls. */
export function rowLink(tr: HTMLTableRowElement, id: string): HTMLTableRowElement {
  tr.classList.add("click");
  tr.addEventListener("click", (ev) => {
    if (ev.target instanceof Element && ev.target.closest("a,button,input,select")) return;
    location.hash = taskHref(id);
  });
  return tr;
}

export function cancelButton(t: TaskRecord): HTMLButtonElement | null {
  if (!can("submit")) return null;
  return confirmButton(`cancel:${t.id}`, "Cancel", "Confirm cancel", async () => {
    await api("POST", `/tasks/${encodeURIComponent(t.id)}/cancel`, {
      reason: "cancelled from the dashboard",
    });
    return `Cancelled ${t.id}`;
  }, { "data-cancel": t.id });
}

export function resubmitButton(t: TaskRecord, cls?: string): HTMLButtonElement | null {
  if (!can("submit")) return null;
  return button(
    "Resubmit",
    async () => {
      await api("POST", `/tasks/${encodeURIComponent(t.id)}/resubmit`, {});
      return `Resubmitted ${t.id}`;
    },
    cls || "",
    { "data-resubmit": t.id },
  );
}

export function attemptsText(t: TaskRecord): string {
  return `${t.attempt} / ${t.maxRetries + 1}`;
}

export function progressCell(t: TaskRecord): HTMLElement {
  if (t.progress === null || t.progress === undefined) {
    return h("span", { class: "muted", text: "–" });
  }
  const i = h("i");
  i.style.width = `${Math.max(0, Math.min(100, t.progress))}%`;
  return h("div", { class: "progress", title: `${t.progress}%` }, [
    h("div", { class: "bar" }, i),
    h("span", { class: "small", text: `${Math.round(t.progress)}%` }),
  ]);
}

/** Why a queued task is not running, in words (GET /tasks' `waitingFor`). */
const WAITING_TEXT: Record<string, string> = {
  parallelism: "its flow key's parallelism",
  rate: "a rate limit",
  pool_limit: "its pool's global limit",
  paused: "its pool, paused",
};

export function waitingLabel(why: string): string {
  return WAITING_TEXT[why] ?? why;
}

/** The status badge, with why a queued task waits under it. */
export function statusCell(t: TaskRecord): HTMLElement[] {
  if (!t.waitingFor) return [badge(t.status)];
  const text = `waiting for ${waitingLabel(t.waitingFor)}`;
  return [badge(t.status), h("div", { class: "muted small", "data-waiting": t.waitingFor, text })];
}

export function laterCell(t: TaskRecord): HTMLElement {
  if (FINAL.has(t.status)) return when(t.finishedAt);
  if (t.status === "running") {
    return h("span", {
      class: "muted",
      title: `started ${new Date(t.startedAt ?? 0).toLocaleString()}`,
      text: `started ${clock(t.startedAt)}`,
    });
  }
  if (t.runAt) {
    return h("span", {
      class: "muted",
      title: new Date(t.runAt).toLocaleString(),
      text: `due ${clock(t.runAt)}`,
    });
  }
  return h("span", { class: "muted", text: "–" });
}
