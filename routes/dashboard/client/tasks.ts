/**
 * @module dashboard/client/tasks — the Tasks view (every task, status chips, Cancel) and the
 * dead-letter view (last errors, Resubmit one / Resubmit all matching).
 */
import { api } from "./api.ts";
import { can, empty, h, taskLink } from "./dom.ts";
import { readFilter } from "./filter-bar.ts";
import { num, when } from "./format.ts";
import { confirmButton } from "./live.ts";
import { pagedList } from "./paged-list.ts";
import { setHash } from "./route.ts";
import { FINAL } from "./state.ts";
import {
  attemptsText,
  cancelButton,
  laterCell,
  progressCell,
  resubmitButton,
  rowLink,
  statusCell,
} from "./task-cells.ts";
import type { View } from "./types.ts";

export const tasks: View = (el, route) => {
  const f = readFilter(route.params);
  const list = pagedList(el, {
    id: "tasks",
    title: "Tasks",
    filter: f,
    chips: true,
    placeholder: "Search id, type, key, payload, error…",
    onFilter() {
      setHash("tasks", { status: f.status.join(","), type: f.type, pool: f.pool, q: f.q });
    },
    head: [
      ["Id"],
      ["Type"],
      ["Pool", "hide-sm"],
      ["Status"],
      ["Attempts", "num hide-sm"],
      ["Progress", "hide-sm"],
      ["Created", "hide-sm"],
      ["Finished / due", "hide-sm"],
      [""],
    ],
    row: (t) =>
      rowLink(
        h("tr", { "data-id": t.id }, [
          h("td", {}, taskLink(t.id)),
          h("td", { text: t.type }),
          h("td", { class: "hide-sm", text: t.pool }),
          h("td", {}, statusCell(t)),
          h("td", { class: "num hide-sm", text: attemptsText(t) }),
          h("td", { class: "hide-sm" }, progressCell(t)),
          h("td", { class: "hide-sm" }, when(t.createdAt)),
          h("td", { class: "hide-sm" }, laterCell(t)),
          h(
            "td",
            {},
            FINAL.has(t.status)
              ? (t.status === "succeeded" ? null : resubmitButton(t))
              : cancelButton(t),
          ),
        ]),
        t.id,
      ),
    whenEmpty(f) {
      const any = f.status.length || f.type || f.pool || f.q;
      return any
        ? empty("No tasks match these filters", "Widen the status chips or clear the search.")
        : empty("No tasks yet", "POST a task to /skedulr/api/tasks and it shows up here.");
    },
  });
  return {
    title: "Tasks",
    load: list.load,
    poll: list.poll,
    fail: list.fail,
    onStats: list.onStats,
  };
};

export const dead: View = (el, route) => {
  const f = readFilter(route.params);
  f.status = [];
  const count = h("span", { class: "sub" });
  const bulk = !can("admin")
    ? null
    : confirmButton("bulk", "Resubmit all matching", "Confirm: resubmit all", async () => {
      const body: { status: string; type?: string; pool?: string } = { status: "dead" };
      if (f.type) body.type = f.type;
      if (f.pool) body.pool = f.pool;
      const r = await api<{ resubmitted: number }>("POST", "/tasks/resubmit", body);
      return `Resubmitted ${num(r.resubmitted)} dead task${r.resubmitted === 1 ? "" : "s"}`;
    }, { id: "resubmit-all" });
  // The bulk endpoint filters by type and pool only: with a text search it would resubmit
  // more than is shown, so it is disabled until the search is cleared.
  function paintBulk(): void {
    if (!bulk) return;
    bulk.disabled = !!f.q;
    bulk.title = f.q
      ? "Bulk resubmit matches type and pool only: clear the search first"
      : "Queue every dead task matching the type and pool filters again";
  }
  const list = pagedList(el, {
    id: "dead",
    title: "Dead letters",
    sub: count,
    status: "dead",
    filter: f,
    chips: false,
    actions: bulk,
    placeholder: "Search id, type, payload, error…",
    onFilter() {
      paintBulk();
      setHash("dead", { type: f.type, pool: f.pool, q: f.q });
    },
    head: [
      ["Id"],
      ["Type"],
      ["Pool", "hide-sm"],
      ["Attempts", "num hide-sm"],
      ["Died", "hide-sm"],
      ["Last error"],
      [""],
    ],
    row(t) {
      const msg = t.error ? t.error.message : "(no error recorded)";
      return rowLink(
        h("tr", { "data-id": t.id }, [
          h("td", {}, taskLink(t.id)),
          h("td", { text: t.type }),
          h("td", { class: "hide-sm", text: t.pool }),
          h("td", { class: "num hide-sm", text: attemptsText(t) }),
          h("td", { class: "hide-sm" }, when(t.finishedAt)),
          h("td", {}, h("div", { class: "err", title: msg, text: msg })),
          h("td", {}, resubmitButton(t)),
        ]),
        t.id,
      );
    },
    whenEmpty(f) {
      return f.type || f.pool || f.q
        ? empty("No dead tasks match these filters", null)
        : empty("No dead letters", "Tasks land here after their last retry fails; none has.");
    },
  });
  paintBulk();
  return {
    title: "Dead letters",
    load: list.load,
    poll: list.poll,
    fail: list.fail,
    onStats(s) {
      list.onStats(s);
      count.textContent = `${num(s.byStatus.dead)} in the dead-letter list`;
    },
  };
};
