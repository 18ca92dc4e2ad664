/**
 * @module dashboard/client/schedules — the schedules view: what, when, next run, last run,
 * overlap policy; Pause/Resume, Edit and Remove (admins), Run now (submitters).
 * `#/schedules?id=…` highlights one.
 */
import { api } from "./api.ts";
import { can, clear, empty, h, srOnly, taskLink } from "./dom.ts";
import { clock, num, rel } from "./format.ts";
import { button, confirmButton, run } from "./live.ts";
import type { ScheduleRecord, View } from "./types.ts";

/** An interval in the largest unit that divides it: "5m", not "300s". */
function every(ms: number): string {
  const units: [number, string][] = [[86400000, "d"], [3600000, "h"], [60000, "m"], [1000, "s"]];
  for (const [size, unit] of units) if (ms % size === 0) return ms / size + unit;
  return `${ms}ms`;
}

/** The spec that PUT /schedules/:id takes back: the editor starts from it. */
function specOf(s: ScheduleRecord): Record<string, unknown> {
  const t = s.template;
  const when = s.kind === "cron"
    ? { cron: s.cron, ...(s.timezone ? { timezone: s.timezone } : {}) }
    : { every: s.everyMs };
  return {
    type: t.type,
    payload: t.payload,
    pool: t.pool,
    priority: t.priority,
    maxRetries: t.maxRetries,
    ...when,
    catchUp: s.catchUp,
    skipIfRunning: s.skipIfRunning,
  };
}

const path = (s: ScheduleRecord, action = "") =>
  `/schedules/${encodeURIComponent(s.id)}${action && `/${action}`}`;

/** The row's controls, each as the role allows. */
function actions(s: ScheduleRecord, edit: (s: ScheduleRecord) => void): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (can("admin")) {
    out.push(button(
      s.paused ? "Resume" : "Pause",
      async () => {
        await api("POST", path(s, s.paused ? "resume" : "pause"));
        return `${s.paused ? "Resumed" : "Paused"} schedule ${s.id}`;
      },
      "",
      { "data-toggle": s.id },
    ));
    out.push(button("Edit", () => edit(s), "", { "data-edit": s.id }));
  }
  if (can("submit")) {
    out.push(button(
      "Run now",
      async () => {
        const r = await api<{ id: string }>("POST", path(s, "trigger"));
        return `Started run ${r.id} of ${s.id}`;
      },
      "",
      { "data-trigger": s.id },
    ));
  }
  if (can("admin")) {
    out.push(confirmButton(`rm:${s.id}`, "Remove", "Confirm remove", async () => {
      await api("DELETE", path(s));
      return `Removed schedule ${s.id}`;
    }, { "data-remove": s.id }));
  }
  return out;
}

function row(
  s: ScheduleRecord,
  focus: string | null,
  edit: (s: ScheduleRecord) => void,
): HTMLTableRowElement {
  const spec = s.kind === "cron"
    ? h("span", {}, [
      h("code", { text: s.cron }),
      s.timezone ? h("span", { class: "muted small", text: ` ${s.timezone}` }) : null,
    ])
    : h("span", { text: `every ${every(s.everyMs ?? 0)}` });
  return h("tr", { "data-schedule": s.id, class: s.id === focus ? "hl" : null }, [
    h("td", {}, h("span", { class: "id", title: s.id, text: s.id })),
    h("td", {}, spec),
    h(
      "td",
      {},
      h("a", {
        href: `#/tasks?type=${encodeURIComponent(s.template.type)}`,
        text: s.template.type,
      }),
    ),
    h("td", { class: "hide-sm", text: s.template.pool }),
    h(
      "td",
      {},
      s.paused
        ? h("span", { class: "badge", "data-paused": s.id, text: "paused" })
        : [clock(s.nextRunAt), h("div", { class: "muted small", text: rel(s.nextRunAt) })],
    ),
    h(
      "td",
      { class: "hide-sm" },
      s.lastRunId
        ? [taskLink(s.lastRunId), h("div", { class: "muted small", text: rel(s.lastRunAt) })]
        : h("span", { class: "muted", text: "not yet" }),
    ),
    h("td", { class: "hide-sm", text: s.skipIfRunning ? "skip" : "allow" }),
    h("td", { class: "actions" }, actions(s, edit)),
  ]);
}

/** The editor of one schedule's spec (JSON), saved with PUT /schedules/:id. */
function editor(s: ScheduleRecord, done: () => void): HTMLElement {
  const area = h("textarea", {
    id: "schedule-spec",
    rows: 12,
    spellcheck: false,
    "aria-label": `Spec of schedule ${s.id}`,
  });
  area.value = JSON.stringify(specOf(s), null, 2);
  const save = h("button", { type: "button", class: "btn sm", text: "Save", "data-save": s.id });
  save.addEventListener("click", () =>
    run(save, async () => {
      let spec: unknown;
      try {
        spec = JSON.parse(area.value);
      } catch {
        throw new Error("The spec is not valid JSON");
      }
      await api("PUT", path(s), spec);
      done();
      return `Saved schedule ${s.id}`;
    }));
  const cancel = h("button", { type: "button", class: "btn sm", text: "Cancel" });
  cancel.addEventListener("click", done);
  return h("div", { class: "editor", "data-editing": s.id }, [
    h("h3", { text: `Edit ${s.id}` }),
    area,
    h("div", { class: "row" }, [save, cancel]),
  ]);
}

export const schedules: View = (el, route) => {
  let focus = route.params.get("id");
  const body = h("div", { class: "scroll" }, h("div", { class: "loading", text: "Loading…" }));
  const sub = h("span", { class: "sub" });
  // The editor sits outside the table, which re-renders on every read.
  const editing = h("div", {});
  el.appendChild(h("section", { class: "panel" }, [
    h("div", { class: "head" }, [h("h2", { text: "Schedules" }), sub]),
    editing,
    body,
  ]));
  let n = 0, sig: string | null = null;
  const edit = (s: ScheduleRecord): void => {
    clear(editing).appendChild(editor(s, () => clear(editing)));
    editing.querySelector("textarea")?.focus();
  };
  async function load(): Promise<void> {
    const r = await api<{ schedules: ScheduleRecord[] }>("GET", "/schedules");
    const list = r.schedules.slice().sort((a, b) => a.nextRunAt - b.nextRunAt);
    const paused = list.filter((s) => s.paused).length;
    sub.textContent = list.length
      ? `${num(list.length - paused)} active${
        paused ? `, ${num(paused)} paused` : ""
      }, soonest first`
      : "";
    // Relative times move every second, so the table re-renders on each read; the
    // confirm state of Remove lives in S.armed and survives that.
    const s = JSON.stringify(list) + Math.floor(Date.now() / 1000);
    if (s === sig) return;
    sig = s;
    clear(body);
    if (!list.length) {
      body.appendChild(empty(
        "No schedules",
        'Submit a task with every or cron (e.g. { "type": "report", "cron": "0 * * * *" }) to create one.',
      ));
      return;
    }
    body.appendChild(h("table", { id: "schedules-table" }, [
      h(
        "thead",
        {},
        h("tr", {}, [
          h("th", { text: "Id" }),
          h("th", { text: "When" }),
          h("th", { text: "Type" }),
          h("th", { class: "hide-sm", text: "Pool" }),
          h("th", { text: "Next run" }),
          h("th", { class: "hide-sm", text: "Last run" }),
          h("th", { class: "hide-sm", text: "Overlap" }),
          h("th", {}, srOnly("Actions")),
        ]),
      ),
      h("tbody", {}, list.map((s) => row(s, focus, edit))),
    ]));
    const hl = body.querySelector("tr.hl");
    if (hl && focus) {
      hl.scrollIntoView({ block: "center" });
      focus = null;
    }
  }
  return {
    title: "Schedules",
    load,
    poll: () => ++n % 5 === 0 ? load() : null,
    fail(e) {
      sig = null;
      clear(body).appendChild(empty("Could not list schedules", e.message));
    },
  };
};
