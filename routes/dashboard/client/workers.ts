/**
 * @module dashboard/client/workers — the workers view: every live instance with its host,
 * pools, running count, uptime and heartbeat age (amber when older than 15 s).
 */
import { api } from "./api.ts";
import { clear, empty, h } from "./dom.ts";
import { num, span } from "./format.ts";
import type { InstanceInfo, View, Workers } from "./types.ts";

function row(w: InstanceInfo): HTMLTableRowElement {
  const age = Date.now() - w.lastSeen;
  const pools = Object.keys(w.pools).sort().map((p) =>
    h("span", { class: "badge", text: `${p} × ${w.pools[p]}` })
  );
  return h("tr", { "data-worker": w.id }, [
    h("td", {}, h("span", { class: "id", title: w.id, text: w.id })),
    h("td", { text: w.host }),
    h("td", { class: "hide-sm num", text: w.pid }),
    h("td", {}, h("div", { class: "inline wrap" }, pools)),
    h("td", { class: "num", text: num(w.running) }),
    h("td", { class: "hide-sm", text: span(Date.now() - w.startedAt) }),
    h(
      "td",
      {},
      h("span", {
        class: age > 15000 ? "badge s-retrying" : "badge s-succeeded",
        title: new Date(w.lastSeen).toLocaleString(),
        text: `${span(age)} ago`,
      }),
    ),
  ]);
}

export const workers: View = (el) => {
  const body = h("div", { class: "scroll" }, h("div", { class: "loading", text: "Loading…" }));
  const sub = h("span", { class: "sub" });
  el.appendChild(h("section", { class: "panel" }, [
    h("div", { class: "head" }, [h("h2", { text: "Workers" }), sub]),
    body,
  ]));
  async function load(): Promise<void> {
    const r = await api<Workers>("GET", "/workers");
    const list = r.workers.slice().sort((a, b) => a.startedAt - b.startedAt);
    sub.textContent = list.length
      ? `${num(list.length)} live instance${list.length === 1 ? "" : "s"}`
      : "";
    clear(body);
    if (!list.length) {
      body.appendChild(empty(
        "No live workers",
        "Start one with bun run worker; it appears here within one heartbeat.",
      ));
      return;
    }
    body.appendChild(h("table", { id: "workers-table" }, [
      h(
        "thead",
        {},
        h("tr", {}, [
          h("th", { text: "Id" }),
          h("th", { text: "Host" }),
          h("th", { class: "hide-sm num", text: "Pid" }),
          h("th", { text: "Pools" }),
          h("th", { class: "num", text: "Running" }),
          h("th", { class: "hide-sm", text: "Up for" }),
          h("th", { text: "Heartbeat" }),
        ]),
      ),
      h("tbody", {}, list.map(row)),
    ]));
  }
  return {
    title: "Workers",
    load,
    poll: load,
    fail(e) {
      clear(body).appendChild(empty("Could not list workers", e.message));
    },
  };
};
