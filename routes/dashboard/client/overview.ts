/**
 * @module dashboard/client/overview — the overview: throughput chart, totals, per-type
 * durations, the pools table and the busy flow keys beside it.
 */
import { api } from "./api.ts";
import { clear, h, panel } from "./dom.ts";
import { clock, dur, num } from "./format.ts";
import { drawChart } from "./chart.ts";
import { poolsTable } from "./pools.ts";
import { busyKeysTable } from "./busy-keys.ts";
import { S } from "./state.ts";
import type { Throughput, View } from "./types.ts";

export const overview: View = (el) => {
  const chartBox = h(
    "div",
    { class: "chart", id: "chart" },
    h("div", { class: "loading", text: "Loading…" }),
  );
  const legend = h("div", { class: "legend" });
  const totals = h("div", { class: "tiles", id: "totals" });
  const types = h("tbody");
  const pools = poolsTable();
  const busyKeys = busyKeysTable();
  let last: Throughput | null = null, n = 0, drawn = "", shownStats = "";
  const typesTable = h("table", { id: "types" }, [
    h(
      "thead",
      {},
      h("tr", {}, [
        h("th", { text: "Type" }),
        h("th", { class: "num", text: "Samples" }),
        h("th", { class: "num", text: "Median" }),
        h("th", { class: "num", text: "p95 / max" }),
      ]),
    ),
    types,
  ]);
  el.appendChild(h("div", { class: "grid2" }, [
    panel("Throughput", "last 15 minutes, per 30 s", h("div", { class: "body" }, chartBox), legend),
    panel(
      "Totals",
      "since the store started",
      h("div", { class: "body" }, [totals, h("div", { class: "scroll" }, typesTable)]),
    ),
  ]));
  el.appendChild(h("div", { class: "grid2" }, [
    panel("Pools", "live across every worker", pools.el),
    panel("Busy keys", "flow keys running or held back (50 newest)", busyKeys.el),
  ]));

  async function loadChart(): Promise<void> {
    const d = await api<Throughput>("GET", "/dashboard/throughput");
    last = d;
    let ok = 0, bad = 0;
    for (const b of d.buckets) {
      ok += b.succeeded;
      bad += b.failed;
    }
    clear(legend).appendChild(h("span", {}, [h("i", { class: "ok" }), `${num(ok)} succeeded`]));
    legend.appendChild(h("span", {}, [h("i", { class: "bad" }), `${num(bad)} failed`]));
    if (d.truncated || d.since) {
      legend.appendChild(h("span", {
        title: "History keeps a bounded number of attempts",
        text: d.since ? `history from ${clock(d.since)}` : "partial",
      }));
    }
    drawChart(chartBox, d);
  }

  // Redraw when the box changes size: the window, or the Totals panel beside it growing.
  let width = 0, height = 0;
  const sizer = new ResizeObserver(() => {
    if (!last || (chartBox.clientWidth === width && chartBox.clientHeight === height)) return;
    width = chartBox.clientWidth;
    height = chartBox.clientHeight;
    drawChart(chartBox, last);
  });
  sizer.observe(chartBox);

  return {
    title: "Overview",
    load: loadChart,
    // Even ticks: the chart every 4 s while attempts finish, every 10 s when idle (so the
    // window still slides), otherwise nothing: the pools come with the stats. Reading the
    // series walks history, so it is not worth doing on every tick.
    poll() {
      const t = S.stats && S.stats.totals;
      const mark = t ? `${t.succeeded}/${t.failedAttempts}` : "";
      n++;
      if (n % 5 !== 0 && (n % 2 !== 0 || mark === drawn)) return null;
      drawn = mark;
      return loadChart();
    },
    unmount() {
      sizer.disconnect();
    },
    onStats(s) {
      pools.update(s);
      busyKeys.update(s);
      const sig = JSON.stringify([s.totals, s.byStatus, s.durations]);
      if (sig === shownStats) return;
      shownStats = sig;
      const t = s.totals;
      const b = s.byStatus;
      clear(totals);
      const tiles: [string, number][] = [
        ["Succeeded attempts", t.succeeded],
        ["Failed attempts", t.failedAttempts],
        ["Dead tasks, all time", t.dead],
        ["Expired tasks, all time", t.expired],
        ["Unfinished now", b.queued + b.running + b.scheduled + b.waiting + b.retrying],
      ];
      for (const [label, value] of tiles) {
        totals.appendChild(h("div", { class: "tile" }, [
          h("div", { class: "label", text: label }),
          h("div", { class: "value", text: num(value) }),
        ]));
      }
      clear(types);
      const names = Object.keys(s.durations).sort();
      if (!names.length) {
        types.appendChild(h(
          "tr",
          {},
          h("td", {
            colspan: 4,
            class: "muted small",
            text: "Durations appear after the first finished attempt.",
          }),
        ));
      }
      for (const k of names) {
        const d = s.durations[k];
        types.appendChild(h("tr", {}, [
          h("td", {}, h("a", { href: `#/tasks?type=${encodeURIComponent(k)}`, text: k })),
          h("td", { class: "num", text: num(d.count) }),
          h("td", { class: "num", text: dur(Math.round(d.medianMs)) }),
          h("td", {
            class: "num",
            text: dur(Math.round(d.p95Ms === undefined ? d.maxMs : d.p95Ms)),
          }),
        ]));
      }
    },
  };
};
