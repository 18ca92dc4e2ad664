/**
 * @module dashboard/client/filter-bar — the task lists' filter bar: status chips, type (with
 * suggestions from the stats), pool, free text, and Clear filters. The filter lives in the
 * hash, so a filtered list can be linked and reloaded.
 */
import { clear, h } from "./dom.ts";
import { STATUSES } from "./state.ts";
import type { Stats } from "./types.ts";

export interface Filter {
  status: string[];
  type: string;
  pool: string;
  q: string;
}

export interface FilterBar {
  el: HTMLElement;
  paint: () => void;
  onStats: (s: Stats) => void;
}

// A debounced callback: typing in a filter issues one request, not one per key.
function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(t);
    t = setTimeout(fn, ms);
  };
}

export function readFilter(params: URLSearchParams): Filter {
  const st = (params.get("status") || "").split(",").filter((s) =>
    (STATUSES as readonly string[]).indexOf(s) >= 0
  );
  return {
    status: st,
    type: params.get("type") || "",
    pool: params.get("pool") || "",
    q: params.get("q") || "",
  };
}

/** The bar edits `f` in place and calls `onChange` after every change the user makes. */
export function filterBar(
  f: Filter,
  opts: { id: string; chips: boolean; placeholder: string },
  onChange: () => void,
): FilterBar {
  const bar = h("div", { class: "filters" });
  let chips: HTMLElement | null = null;
  if (opts.chips) {
    chips = h("div", { class: "chips", role: "group", "aria-label": "Status filter" });
    const all = h("button", { type: "button", class: "chip", "data-chip": "all", text: "all" });
    all.addEventListener("click", () => {
      f.status = [];
      paint();
      onChange();
    });
    chips.appendChild(all);
    for (const st of STATUSES) {
      const c = h("button", { type: "button", class: `chip s-${st}`, "data-chip": st, text: st });
      c.addEventListener("click", () => {
        const at = f.status.indexOf(st);
        if (at >= 0) f.status.splice(at, 1);
        else f.status.push(st);
        paint();
        onChange();
      });
      chips.appendChild(c);
    }
    bar.appendChild(chips);
  }
  function paint(): void {
    if (!chips) return;
    chips.querySelectorAll(".chip").forEach((c) => {
      const k = c.getAttribute("data-chip");
      const on = k === "all" ? f.status.length === 0 : f.status.indexOf(k ?? "") >= 0;
      c.classList.toggle("on", on);
      c.setAttribute("aria-pressed", on ? "true" : "false");
    });
  }
  const list = h("datalist", { id: `types-${opts.id}` });
  const type = h("input", {
    class: "field",
    type: "text",
    placeholder: "Type",
    list: `types-${opts.id}`,
    value: f.type,
    "aria-label": "Type",
    name: "type",
    autocomplete: "off",
    spellcheck: "false",
  });
  const pool = h(
    "select",
    { class: "field", "aria-label": "Pool", name: "pool" },
    h("option", { value: "", text: "All pools" }),
  );
  const q = h("input", {
    class: "field search",
    type: "search",
    placeholder: opts.placeholder,
    value: f.q,
    "aria-label": "Search",
    name: "q",
    autocomplete: "off",
    spellcheck: "false",
  });
  const reset = h("button", { type: "button", class: "btn sm", text: "Clear filters" });
  const later = debounce(() => {
    f.type = type.value.trim();
    f.q = q.value.trim();
    onChange();
  }, 350);
  type.addEventListener("input", later);
  q.addEventListener("input", later);
  pool.addEventListener("change", () => {
    f.pool = pool.value;
    onChange();
  });
  reset.addEventListener("click", () => {
    f.status = [];
    f.type = "";
    f.pool = "";
    f.q = "";
    type.value = "";
    q.value = "";
    pool.value = "";
    paint();
    onChange();
  });
  for (const x of [type, list, pool, q, reset]) bar.appendChild(x);
  paint();
  return {
    el: bar,
    paint,
    // Pool options and type suggestions follow the live stats, keeping the current choice.
    onStats(s) {
      const names = Object.keys(s.pools).sort();
      if (f.pool && names.indexOf(f.pool) < 0) names.push(f.pool);
      const want = [""].concat(names).join("\n");
      if (pool.getAttribute("data-names") !== want) {
        clear(pool).appendChild(h("option", { value: "", text: "All pools" }));
        for (const n of names) pool.appendChild(h("option", { value: n, text: n }));
        pool.setAttribute("data-names", want);
      }
      pool.value = f.pool;
      const types = Object.keys(s.durations).sort();
      if (list.getAttribute("data-types") !== types.join("\n")) {
        clear(list);
        for (const t of types) list.appendChild(h("option", { value: t }));
        list.setAttribute("data-types", types.join("\n"));
      }
    },
  };
}
