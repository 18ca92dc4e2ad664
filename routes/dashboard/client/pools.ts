/**
 * @module dashboard/client/pools — the overview's pools table: state, load, queue and
 * cluster-wide limits (with their usage) per pool, with pause/resume and concurrency
 * controls for admins. Rows are keyed by pool, so a
 * poll never clobbers a size being typed.
 */
import { api } from "./api.ts";
import { badge, can, clear, h, srOnly } from "./dom.ts";
import { dur, num } from "./format.ts";
import { button } from "./live.ts";
import type { PoolStats, Stats } from "./types.ts";

interface Row {
  el: HTMLTableRowElement;
  update: (p: PoolStats) => void;
}

/** "global 3/3 · rate 4/5 per 500 ms", or "–" for a pool without cluster-wide limits. */
function limitsText(p: PoolStats): string {
  const parts: string[] = [];
  if (p.globalConcurrency !== null) {
    parts.push(`global ${num(p.running)}/${num(p.globalConcurrency)}`);
  }
  if (p.rateLimit) {
    parts.push(
      `rate ${num(p.startsInWindow)}/${num(p.rateLimit.max)} per ${dur(p.rateLimit.perMs)}`,
    );
  }
  return parts.length ? parts.join(" · ") : "–";
}

function makeRow(name: string): Row {
  const state = h("td", { class: "hide-sm" });
  const limits = h("td", { class: "hide-sm", "data-limits": name });
  const mini = h("span", { class: "show-sm" });
  const running = h("td", { class: "num", "data-label": " running" });
  const bar = h("i");
  const queued = h("td", { class: "num", "data-label": " queued" });
  const input = h("input", {
    class: "field size",
    type: "number",
    min: 0,
    max: 10000,
    step: 1,
    "aria-label": `Concurrency of pool ${name}`,
    "data-size": name,
  });
  // Typed but not yet set: polls leave the field alone until Set succeeds.
  let dirty = false;
  let paused = false;
  input.addEventListener("input", () => {
    dirty = true;
  });
  const setBtn = button(
    "Set",
    async () => {
      const n = Number(input.value);
      if (!Number.isInteger(n) || n < 0 || n > 10000) {
        throw new Error(
          `Concurrency must be a whole number 0..10000, got ${JSON.stringify(input.value)}`,
        );
      }
      await api("POST", `/pools/${encodeURIComponent(name)}`, { concurrency: n });
      dirty = false;
      return `Pool ${name}: concurrency ${n}`;
    },
    "",
    { "data-set": name },
  );
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") setBtn.click();
  });
  const toggle = button(
    "Pause",
    async () => {
      const action = paused ? "resume" : "pause";
      await api("POST", `/${action}`, { pool: name });
      // Flip at once: a second click before the next poll must not repeat the action.
      paused = action === "pause";
      toggle.textContent = paused ? "Resume" : "Pause";
      if (action === "pause") return `Pool ${name} paused`;
      const s = await api<Stats>("GET", "/stats");
      const p = s.pools[name];
      return p && p.paused
        ? `Pool ${name} resumed, but Pause all is still on: use Resume all`
        : `Pool ${name} resumed`;
    },
    "",
    { "data-toggle": name },
  );
  const update = (p: PoolStats): void => {
    paused = p.paused;
    clear(state).appendChild(badge(p.paused ? "paused" : "active", p.paused ? "paused" : "active"));
    clear(mini).appendChild(badge(p.paused ? "paused" : "active", p.paused ? "paused" : "active"));
    running.textContent = `${num(p.running)} / ${num(p.size)}`;
    bar.style.width = `${p.size ? Math.min(100, (100 * p.running) / p.size) : 0}%`;
    queued.textContent = p.parked ? `${num(p.queued)} (${num(p.parked)} parked)` : num(p.queued);
    queued.title = p.parked ? "Parked: held back by their flow key's limit" : "";
    limits.textContent = limitsText(p);
    toggle.textContent = p.paused ? "Resume" : "Pause";
    if (!dirty && document.activeElement !== input) input.value = String(p.size);
  };
  const el = h("tr", { "data-pool": name }, [
    h("td", { class: "poolname" }, [name, mini]),
    state,
    running,
    h("td", { class: "hide-sm" }, h("div", { class: "bar" }, bar)),
    queued,
    limits,
    h(
      "td",
      { class: "controls" },
      can("admin")
        ? h("div", { class: "inline" }, [input, setBtn, h("span", { class: "sep" }), toggle])
        : null,
    ),
  ]);
  return { el, update };
}

export function poolsTable(): { el: HTMLElement; update: (s: Stats) => void } {
  const tbody = h("tbody");
  const rows = new Map<string, Row>();
  const note = h("div", { class: "empty", hidden: true }, [
    h("strong", { text: "No pools yet" }),
    h("div", { text: "Pools appear once a worker starts or a task names one." }),
  ]);
  const table = h("table", { id: "pools" }, [
    h(
      "thead",
      {},
      h("tr", {}, [
        h("th", { text: "Pool" }),
        h("th", { class: "hide-sm", text: "State" }),
        h("th", { class: "num", text: "Running / size" }),
        h("th", { class: "hide-sm", text: "Load" }),
        h("th", { class: "num", text: "Queued" }),
        h("th", { class: "hide-sm", text: "Cluster limits" }),
        h("th", {}, can("admin") ? "Concurrency" : srOnly("Controls")),
      ]),
    ),
    tbody,
  ]);
  return {
    el: h("div", {}, [h("div", { class: "scroll" }, table), note]),
    update(s) {
      const names = Object.keys(s.pools).sort();
      note.hidden = names.length > 0;
      table.hidden = names.length === 0;
      for (const [n, r] of rows) {
        if (!s.pools[n]) {
          r.el.remove();
          rows.delete(n);
        }
      }
      names.forEach((n, i) => {
        let r = rows.get(n);
        if (!r) rows.set(n, r = makeRow(n));
        r.update(s.pools[n]);
        // Move a row only when out of place: moving a row takes the focus from its input.
        if (tbody.children[i] !== r.el) tbody.insertBefore(r.el, tbody.children[i] || null);
      });
    },
  };
}
