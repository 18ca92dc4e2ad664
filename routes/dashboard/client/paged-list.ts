/**
 * @module dashboard/client/paged-list — a paged task listing under a filter bar: cursors per
 * page, one request per (re)load, and a re-render only when the answer changed.
 */
import { api, qs } from "./api.ts";
import { clear, empty, h, srOnly } from "./dom.ts";
import { type Filter, filterBar } from "./filter-bar.ts";
import { guard } from "./live.ts";
import type { Failure, Stats, TaskPage, TaskRecord } from "./types.ts";

export interface ListConfig {
  /** Names the table (`<id>-table`) and the bar's type suggestions. */
  id: string;
  title: string;
  sub?: Node;
  actions?: Node | null;
  /** A fixed status filter (the dead-letter view); otherwise the chips' choice. */
  status?: string;
  filter: Filter;
  chips: boolean;
  placeholder: string;
  /** Column headers: [label, class]; an empty label is an actions column. */
  head: [string, string?][];
  row: (t: TaskRecord) => HTMLTableRowElement;
  whenEmpty: (f: Filter) => HTMLElement;
  onFilter: () => void;
}

export interface PagedList {
  load: () => Promise<void>;
  poll: () => Promise<void>;
  fail: (e: Failure) => void;
  onStats: (s: Stats) => void;
}

export function pagedList(el: HTMLElement, cfg: ListConfig): PagedList {
  const f = cfg.filter;
  let pages: (string | null)[] = [null], page = 0, sig: string | null = null;
  const body = h("div", { class: "scroll" });
  const info = h("span", { class: "grow" });
  const prev = h("button", { type: "button", class: "btn sm", text: "← Newer" });
  const next = h("button", { type: "button", class: "btn sm", text: "Older →" });
  prev.addEventListener("click", () => {
    if (page > 0) {
      page--;
      guard(load());
    }
  });
  next.addEventListener("click", () => {
    if (pages[page + 1]) {
      page++;
      guard(load());
    }
  });
  const bar = filterBar(f, cfg, () => {
    pages = [null];
    page = 0;
    cfg.onFilter();
    guard(load());
  });
  const head = h("div", { class: "head" }, [
    h("h2", { text: cfg.title }),
    cfg.sub || null,
    h("span", { class: "grow" }),
    cfg.actions || null,
  ]);
  el.appendChild(
    h("section", { class: "panel" }, [
      head,
      bar.el,
      body,
      h("div", { class: "pager" }, [info, prev, next]),
    ]),
  );
  body.appendChild(h("div", { class: "loading", text: "Loading…" }));

  function query(): string {
    const status = cfg.status ? cfg.status : f.status.join(",");
    const cursor = pages[page] || "";
    return qs({ status, type: f.type, pool: f.pool, q: f.q, limit: 25, cursor });
  }

  // Loads can overlap (a poll and a filter change): only the newest one may render.
  let seq = 0;
  async function load(): Promise<void> {
    const mine = ++seq;
    const r = await api<TaskPage>("GET", `/tasks${query()}`);
    if (mine !== seq) return;
    pages[page + 1] = r.next;
    prev.disabled = page === 0;
    next.disabled = !r.next;
    info.textContent = `Page ${page + 1}${r.tasks.length ? ` · ${r.tasks.length} shown` : ""}`;
    const s = JSON.stringify(r);
    if (s === sig) return;
    sig = s;
    clear(body);
    if (!r.tasks.length) {
      body.appendChild(cfg.whenEmpty(f));
      return;
    }
    body.appendChild(h("table", { id: `${cfg.id}-table` }, [
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          cfg.head.map((c) => h("th", { class: c[1] || null }, c[0] || srOnly("Actions"))),
        ),
      ),
      h("tbody", {}, r.tasks.map(cfg.row)),
    ]));
  }

  function fail(e: Failure): void {
    sig = null;
    prev.disabled = next.disabled = true;
    clear(body).appendChild(empty("Could not list tasks", e.message));
  }

  return { load, poll: load, fail, onStats: bar.onStats };
}
