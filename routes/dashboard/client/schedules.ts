/**
 * @module dashboard/client/schedules — the schedules view: what, when, next run, last run,
 * overlap policy, and Remove (admins). `#/schedules?id=…` highlights one.
 */
import { api } from "./api.ts";
import { can, clear, empty, h, srOnly, taskLink } from "./dom.ts";
import { clock, num, rel } from "./format.ts";
import { confirmButton } from "./live.ts";
import type { ScheduleRecord, View } from "./types.ts";

/** An interval in the largest unit that divides it: "5m", not "300s". */
function every(ms: number): string {
  const units: [number, string][] = [[86400000, "d"], [3600000, "h"], [60000, "m"], [1000, "s"]];
  for (const [size, unit] of units) if (ms % size === 0) return ms / size + unit;
  return `${ms}ms`;
}

function row(s: ScheduleRecord, focus: string | null): HTMLTableRowElement {
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
    h("td", {}, [clock(s.nextRunAt), h("div", { class: "muted small", text: rel(s.nextRunAt) })]),
    h(
      "td",
      { class: "hide-sm" },
      s.lastRunId
        ? [taskLink(s.lastRunId), h("div", { class: "muted small", text: rel(s.lastRunAt) })]
        : h("span", { class: "muted", text: "not yet" }),
    ),
    h("td", { class: "hide-sm", text: s.skipIfRunning ? "skip" : "allow" }),
    h(
      "td",
      {},
      !can("admin") ? null : confirmButton(`rm:${s.id}`, "Remove", "Confirm remove", async () => {
        await api("DELETE", `/schedules/${encodeURIComponent(s.id)}`);
        return `Removed schedule ${s.id}`;
      }, { "data-remove": s.id }),
    ),
  ]);
}

export const schedules: View = (el, route) => {
  let focus = route.params.get("id");
  const body = h("div", { class: "scroll" }, h("div", { class: "loading", text: "Loading…" }));
  const sub = h("span", { class: "sub" });
  el.appendChild(h("section", { class: "panel" }, [
    h("div", { class: "head" }, [h("h2", { text: "Schedules" }), sub]),
    body,
  ]));
  let n = 0, sig: string | null = null;
  async function load(): Promise<void> {
    const r = await api<{ schedules: ScheduleRecord[] }>("GET", "/schedules");
    const list = r.schedules.slice().sort((a, b) => a.nextRunAt - b.nextRunAt);
    sub.textContent = list.length ? `${num(list.length)} active, soonest first` : "";
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
      h("tbody", {}, list.map((s) => row(s, focus))),
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
