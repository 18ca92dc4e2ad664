/**
 * @module dashboard/client/busy-keys — the overview's "Busy keys" table: flow keys with
 * work running or parked (GET /stats' `flowKeys`, bounded), their limits and usage.
 */
import { clear, h } from "./dom.ts";
import { dur, num } from "./format.ts";
import type { Stats } from "./types.ts";

type FlowKey = Stats["flowKeys"][number];

function keyRow(k: FlowKey): HTMLTableRowElement {
  return h("tr", { "data-flow-key": k.key }, [
    h("td", { class: "poolname", text: k.key }),
    h("td", {
      class: "num",
      text: k.parallelism === null ? num(k.running) : `${num(k.running)} / ${num(k.parallelism)}`,
    }),
    h("td", { class: "num", text: num(k.parked) }),
    h("td", {
      class: "hide-sm",
      text: k.rate === null ? "–" : `${num(k.rate)} per ${dur(k.periodMs ?? 0)}`,
    }),
  ]);
}

export function busyKeysTable(): { el: HTMLElement; update: (s: Stats) => void } {
  const tbody = h("tbody");
  const note = h("div", { class: "empty" }, [
    h("strong", { text: "No busy keys" }),
    h("div", { text: "Flow keys with tasks running or held back appear here." }),
  ]);
  const table = h("table", { id: "flow-keys", hidden: true }, [
    h(
      "thead",
      {},
      h("tr", {}, [
        h("th", { text: "Key" }),
        h("th", { class: "num", text: "Running / parallelism" }),
        h("th", { class: "num", text: "Parked" }),
        h("th", { class: "hide-sm", text: "Rate limit" }),
      ]),
    ),
    tbody,
  ]);
  let shown = "";
  return {
    el: h("div", {}, [h("div", { class: "scroll" }, table), note]),
    update(s) {
      // Rebuilt only when the figures change (no inputs to keep).
      const sig = JSON.stringify(s.flowKeys);
      if (sig === shown) return;
      shown = sig;
      note.hidden = s.flowKeys.length > 0;
      table.hidden = s.flowKeys.length === 0;
      clear(tbody);
      for (const k of s.flowKeys) tbody.appendChild(keyRow(k));
    },
  };
}
