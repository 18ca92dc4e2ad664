/**
 * @module dashboard/client/task-flow — around one task: its workflow parents (each with its
 * current status) and children, its attempts from history, and a warning when no live
 * worker handles its type.
 */
import { api } from "./api.ts";
import { $, badge, clear, empty, h, taskLink } from "./dom.ts";
import { clock, dur } from "./format.ts";
import type {
  AttemptRecord,
  ChildRef,
  Children,
  Failure,
  TaskDetail,
  TaskRecord,
  Workers,
} from "./types.ts";
import { workflowGraph } from "./task-graph.ts";

// A badge beside the status when no live worker lists the task's type in its heartbeat (a
// worker of a version that lists none counts as handling every type).
export function typeBadge(head: HTMLElement, type: string): void {
  api<Workers>("GET", "/workers").then((r) => {
    const w = r.workers;
    if (w.some((x) => !x.types || x.types.indexOf(type) >= 0)) return;
    const old = $("type-unhandled");
    if (old) old.remove();
    head.insertBefore(
      h("span", {
        class: "badge s-retrying",
        id: "type-unhandled",
        title: w.length
          ? `Live workers run no handler for ${type}: one that claims it fails it`
          : "No worker is running",
        text: w.length ? `no live worker handles ${type}` : "no live worker",
      }),
      head.children[2] || null,
    );
  }, () => {});
}

function parentRow(relation: string, pid: string): HTMLLIElement {
  const status = h("span", { class: "muted small", text: "…" });
  api<TaskRecord>("GET", `/tasks/${encodeURIComponent(pid)}`).then(
    (p) => {
      clear(status).appendChild(badge(p.status));
    },
    (e: Failure) => {
      status.textContent = e.status === 404 ? "no longer stored" : e.message;
    },
  );
  return h("li", {}, [
    h("span", { class: "muted", text: `${relation} ` }),
    taskLink(pid),
    " ",
    status,
  ]);
}

/** Fills `flow` with the task's parents now and its children once they are listed. */
export function loadFlow(flow: HTMLElement, t: TaskRecord): Promise<void> {
  clear(flow);
  // The graph: parents with statuses from the record (GET /tasks/:id), children once listed.
  const graph = h("div", { class: "graph" });
  const parentNodes = ((t as TaskDetail).parents ?? []).map((p) => ({
    id: p.id,
    status: p.status,
    label: p.relation,
  }));
  const draw = (kids: ChildRef[]) =>
    clear(graph).appendChild(workflowGraph(
      t,
      parentNodes,
      kids.map((c) => ({ id: c.id, status: c.status, label: c.via })),
    ));
  if (parentNodes.length) draw([]);
  flow.appendChild(graph);
  const parents: [string, string][] = t.dependsOn.map((p) => ["depends on", p]);
  if (t.onSuccessOf) parents.push(["on success of", t.onSuccessOf]);
  if (t.onFailureOf) parents.push(["on failure of", t.onFailureOf]);
  flow.appendChild(h("h2", { class: "small muted", text: "Parents" }));
  flow.appendChild(
    parents.length
      ? h("ul", { id: "parents" }, parents.map((p) => parentRow(p[0], p[1])))
      : h("p", { class: "muted small", text: "None: this task waits for no other." }),
  );
  const kids = h("div", { id: "children" }, h("p", { class: "muted small", text: "Looking…" }));
  flow.appendChild(h("h2", { class: "small muted", text: "Children" }));
  flow.appendChild(kids);
  return api<Children>("GET", `/dashboard/tasks/${encodeURIComponent(t.id)}/children`).then(
    (r) => {
      clear(kids);
      if (parentNodes.length || r.children.length) draw(r.children);
      if (!r.children.length) {
        kids.appendChild(h("p", {
          class: "muted small",
          text: r.complete ? "None: no task waits for this one." : "None among the newest tasks.",
        }));
      } else {
        kids.appendChild(h(
          "ul",
          {},
          r.children.map((c) =>
            h("li", {}, [
              h("span", { class: "muted", text: `${c.via} → ` }),
              taskLink(c.id),
              " ",
              h("span", { class: "muted small", text: `${c.type} ` }),
              badge(c.status),
            ])
          ),
        ));
      }
    },
    (e: Failure) => {
      clear(kids).appendChild(
        h("p", { class: "muted small", text: `Could not list children: ${e.message}` }),
      );
    },
  );
}

function renderAttempts(box: HTMLElement, list: AttemptRecord[]): void {
  clear(box);
  if (!list.length) {
    box.appendChild(empty("No finished attempts", "History records each attempt when it ends."));
    return;
  }
  for (const a of list) {
    const row = h(
      "div",
      { class: "attempt", "data-attempt": a.attempt },
      h("div", { class: "row" }, [
        h("strong", { text: `Attempt ${a.attempt}` }),
        badge(a.status),
        h("span", { class: "muted", text: `${clock(a.startedAt)} · ${dur(a.durationMs)}` }),
        a.workerId ? h("span", { class: "muted small mono", text: a.workerId }) : null,
      ]),
    );
    if (a.error) {
      row.appendChild(h("pre", { class: "stack", text: a.error.message }));
      if (a.error.stack) {
        row.appendChild(h("details", {}, [
          h("summary", { text: "Stack trace" }),
          h("pre", { class: "stack", text: a.error.stack }),
        ]));
      }
    }
    box.appendChild(row);
  }
}

/** Fills `box` with the task's attempts, newest first. */
export function loadAttempts(box: HTMLElement, id: string): Promise<void> {
  // The store's own range query: history back to the task's creation, this task only.
  return api<{ attempts: AttemptRecord[] }>(
    "GET",
    `/dashboard/tasks/${encodeURIComponent(id)}/attempts`,
  ).then(
    (r) => renderAttempts(box, r.attempts),
    (e: Failure) => {
      clear(box).appendChild(empty("Could not read history", e.message));
    },
  );
}
