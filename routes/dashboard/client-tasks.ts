/**
 * @module dashboard/client-tasks — browser code for the paged task lists: the filter bar
 * (status chips, type, pool, free text), the cursor pager, the tasks table with Cancel, and
 * the dead-letter view with Resubmit one / Resubmit all matching.
 */

export const CLIENT_TASKS = String.raw`
// A debounced callback: typing in a filter issues one request, not one per key.
function debounce(fn, ms) {
  var t = null;
  return function () { clearTimeout(t); t = setTimeout(fn, ms); };
}

// The filter bar; calls onChange(filter) whenever the user changes something.
function filterBar(f, opts, onChange) {
  var bar = h("div", { class: "filters" });
  var chips = null;
  if (opts.chips) {
    chips = h("div", { class: "chips", role: "group", "aria-label": "Status filter" });
    var all = h("button", { type: "button", class: "chip", "data-chip": "all", text: "all" });
    all.addEventListener("click", function () { f.status = []; paint(); onChange(); });
    chips.appendChild(all);
    STATUSES.forEach(function (st) {
      var c = h("button", { type: "button", class: "chip s-" + st, "data-chip": st, text: st });
      c.addEventListener("click", function () {
        var at = f.status.indexOf(st);
        if (at >= 0) f.status.splice(at, 1); else f.status.push(st);
        paint();
        onChange();
      });
      chips.appendChild(c);
    });
    bar.appendChild(chips);
  }
  function paint() {
    if (!chips) return;
    chips.querySelectorAll(".chip").forEach(function (c) {
      var k = c.getAttribute("data-chip");
      var on = k === "all" ? f.status.length === 0 : f.status.indexOf(k) >= 0;
      c.classList.toggle("on", on);
      c.setAttribute("aria-pressed", on ? "true" : "false");
    });
  }
  var list = h("datalist", { id: "types-" + opts.id });
  var type = h("input", { class: "field", type: "text", placeholder: "Type", list: "types-" + opts.id, value: f.type, "aria-label": "Type", name: "type", autocomplete: "off", spellcheck: "false" });
  var pool = h("select", { class: "field", "aria-label": "Pool", name: "pool" }, h("option", { value: "", text: "All pools" }));
  var q = h("input", { class: "field search", type: "search", placeholder: opts.placeholder, value: f.q, "aria-label": "Search", name: "q", autocomplete: "off", spellcheck: "false" });
  var reset = h("button", { type: "button", class: "btn sm", text: "Clear filters" });
  var later = debounce(function () { f.type = type.value.trim(); f.q = q.value.trim(); onChange(); }, 350);
  type.addEventListener("input", later);
  q.addEventListener("input", later);
  pool.addEventListener("change", function () { f.pool = pool.value; onChange(); });
  reset.addEventListener("click", function () {
    f.status = []; f.type = ""; f.pool = ""; f.q = "";
    type.value = ""; q.value = ""; pool.value = "";
    paint();
    onChange();
  });
  [type, list, pool, q, reset].forEach(function (x) { bar.appendChild(x); });
  paint();
  return {
    el: bar,
    paint: paint,
    // Pool options and type suggestions follow the live stats, keeping the current choice.
    onStats: function (s) {
      var names = Object.keys(s.pools).sort();
      if (f.pool && names.indexOf(f.pool) < 0) names.push(f.pool);
      var want = [""].concat(names).join("\n");
      if (pool.getAttribute("data-names") !== want) {
        clear(pool).appendChild(h("option", { value: "", text: "All pools" }));
        names.forEach(function (n) { pool.appendChild(h("option", { value: n, text: n })); });
        pool.setAttribute("data-names", want);
      }
      pool.value = f.pool;
      var types = Object.keys(s.durations).sort();
      if (list.getAttribute("data-types") !== types.join("\n")) {
        clear(list);
        types.forEach(function (t) { list.appendChild(h("option", { value: t })); });
        list.setAttribute("data-types", types.join("\n"));
      }
    },
  };
}

function readFilter(params) {
  var st = (params.get("status") || "").split(",").filter(function (s) { return STATUSES.indexOf(s) >= 0; });
  return { status: st, type: params.get("type") || "", pool: params.get("pool") || "", q: params.get("q") || "" };
}

// A paged listing: cursors per page, one request per (re)load, re-rendered only on change.
function pagedList(el, cfg) {
  var f = cfg.filter;
  var pages = [null], page = 0, sig = null;
  var body = h("div", { class: "scroll" });
  var info = h("span", { class: "grow" });
  var prev = h("button", { type: "button", class: "btn sm", text: "← Newer" });
  var next = h("button", { type: "button", class: "btn sm", text: "Older →" });
  prev.addEventListener("click", function () { if (page > 0) { page--; guard(load()); } });
  next.addEventListener("click", function () { if (pages[page + 1]) { page++; guard(load()); } });
  var bar = filterBar(f, cfg, function () { pages = [null]; page = 0; cfg.onFilter(); guard(load()); });
  var head = h("div", { class: "head" }, [h("h2", { text: cfg.title }), cfg.sub || null, h("span", { class: "grow" }), cfg.actions || null]);
  el.appendChild(h("section", { class: "panel" }, [head, bar.el, body, h("div", { class: "pager" }, [info, prev, next])]));
  body.appendChild(h("div", { class: "loading", text: "Loading…" }));
  function query() {
    return qs({ status: cfg.status ? cfg.status : f.status.join(","), type: f.type, pool: f.pool, q: f.q, limit: 25, cursor: pages[page] || "" });
  }
  // Loads can overlap (a poll and a filter change): only the newest one may render.
  var seq = 0;
  function load() {
    var mine = ++seq;
    return api("GET", "/tasks" + query()).then(function (r) {
      if (mine !== seq) return;
      pages[page + 1] = r.next;
      prev.disabled = page === 0;
      next.disabled = !r.next;
      info.textContent = "Page " + (page + 1) + (r.tasks.length ? " · " + r.tasks.length + " shown" : "");
      var s = JSON.stringify(r);
      if (s === sig) return;
      sig = s;
      clear(body);
      if (!r.tasks.length) { body.appendChild(cfg.empty(f)); return; }
      body.appendChild(h("table", { id: cfg.id + "-table" }, [h("thead", {}, h("tr", {}, cfg.head.map(function (c) { return h("th", { class: c[1] || null }, c[0] || srOnly("Actions")); }))), h("tbody", {}, r.tasks.map(cfg.row))]));
    });
  }
  function fail(e) {
    sig = null;
    prev.disabled = next.disabled = true;
    clear(body).appendChild(empty("Could not list tasks", e.message));
  }
  return { load: load, poll: load, fail: fail, onStats: bar.onStats };
}

function rowLink(tr, id) {
  tr.classList.add("click");
  tr.addEventListener("click", function (ev) {
    if (ev.target.closest("a,button,input,select")) return;
    location.hash = taskHref(id);
  });
  return tr;
}
function cancelButton(t) {
  if (!can("submit")) return null;
  return confirmButton("cancel:" + t.id, "Cancel", "Confirm cancel", function () {
    return api("POST", "/tasks/" + encodeURIComponent(t.id) + "/cancel", { reason: "cancelled from the dashboard" }).then(function () { return "Cancelled " + t.id; });
  }, { "data-cancel": t.id });
}
function resubmitButton(t, cls) {
  if (!can("submit")) return null;
  return button("Resubmit", function () {
    return api("POST", "/tasks/" + encodeURIComponent(t.id) + "/resubmit", {}).then(function () { return "Resubmitted " + t.id; });
  }, cls || "", { "data-resubmit": t.id });
}
function attemptsText(t) { return t.attempt + " / " + (t.maxRetries + 1); }
function progressCell(t) {
  if (t.progress === null || t.progress === undefined) return h("span", { class: "muted", text: "–" });
  var i = h("i");
  i.style.width = Math.max(0, Math.min(100, t.progress)) + "%";
  return h("div", { class: "progress", title: t.progress + "%" }, [h("div", { class: "bar" }, i), h("span", { class: "small", text: Math.round(t.progress) + "%" })]);
}
function laterCell(t) {
  if (FINAL[t.status]) return when(t.finishedAt);
  if (t.status === "running") return h("span", { class: "muted", title: "started " + new Date(t.startedAt).toLocaleString(), text: "started " + clock(t.startedAt) });
  if (t.runAt) return h("span", { class: "muted", title: new Date(t.runAt).toLocaleString(), text: "due " + clock(t.runAt) });
  return h("span", { class: "muted", text: "–" });
}

VIEWS.tasks = function (el, route) {
  var f = readFilter(route.params);
  var list = pagedList(el, {
    id: "tasks", title: "Tasks", filter: f, chips: true, placeholder: "Search id, type, key, payload, error…",
    onFilter: function () { setHash("tasks", { status: f.status.join(","), type: f.type, pool: f.pool, q: f.q }); },
    head: [["Id"], ["Type"], ["Pool", "hide-sm"], ["Status"], ["Attempts", "num hide-sm"], ["Progress", "hide-sm"], ["Created", "hide-sm"], ["Finished / due", "hide-sm"], [""]],
    row: function (t) {
      return rowLink(h("tr", { "data-id": t.id }, [
        h("td", {}, taskLink(t.id)), h("td", { text: t.type }), h("td", { class: "hide-sm", text: t.pool }),
        h("td", {}, badge(t.status)), h("td", { class: "num hide-sm", text: attemptsText(t) }),
        h("td", { class: "hide-sm" }, progressCell(t)), h("td", { class: "hide-sm" }, when(t.createdAt)),
        h("td", { class: "hide-sm" }, laterCell(t)),
        h("td", {}, FINAL[t.status] ? (t.status === "succeeded" ? null : resubmitButton(t)) : cancelButton(t)),
      ]), t.id);
    },
    empty: function (f) {
      var any = f.status.length || f.type || f.pool || f.q;
      return any ? empty("No tasks match these filters", "Widen the status chips or clear the search.") : empty("No tasks yet", "POST a task to /skedulr/api/tasks and it shows up here.");
    },
  });
  return { title: "Tasks", load: list.load, poll: list.poll, fail: list.fail, onStats: list.onStats };
};

VIEWS.dead = function (el, route) {
  var f = readFilter(route.params);
  f.status = [];
  var count = h("span", { class: "sub" });
  var bulk = !can("admin") ? null : confirmButton("bulk", "Resubmit all matching", "Confirm: resubmit all", function () {
    var body = { status: "dead" };
    if (f.type) body.type = f.type;
    if (f.pool) body.pool = f.pool;
    return api("POST", "/tasks/resubmit", body).then(function (r) { return "Resubmitted " + num(r.resubmitted) + " dead task" + (r.resubmitted === 1 ? "" : "s"); });
  }, { id: "resubmit-all" });
  // The bulk endpoint filters by type and pool only: with a text search it would resubmit
  // more than is shown, so it is disabled until the search is cleared.
  function paintBulk() {
    if (!bulk) return;
    bulk.disabled = !!f.q;
    bulk.title = f.q ? "Bulk resubmit matches type and pool only: clear the search first" : "Queue every dead task matching the type and pool filters again";
  }
  var list = pagedList(el, {
    id: "dead", title: "Dead letters", sub: count, status: "dead", filter: f, chips: false, actions: bulk,
    placeholder: "Search id, type, payload, error…",
    onFilter: function () { paintBulk(); setHash("dead", { type: f.type, pool: f.pool, q: f.q }); },
    head: [["Id"], ["Type"], ["Pool", "hide-sm"], ["Attempts", "num hide-sm"], ["Died", "hide-sm"], ["Last error"], [""]],
    row: function (t) {
      var msg = t.error ? t.error.message : "(no error recorded)";
      return rowLink(h("tr", { "data-id": t.id }, [
        h("td", {}, taskLink(t.id)), h("td", { text: t.type }), h("td", { class: "hide-sm", text: t.pool }),
        h("td", { class: "num hide-sm", text: attemptsText(t) }), h("td", { class: "hide-sm" }, when(t.finishedAt)),
        h("td", {}, h("div", { class: "err", title: msg, text: msg })), h("td", {}, resubmitButton(t)),
      ]), t.id);
    },
    empty: function (f) {
      return f.type || f.pool || f.q ? empty("No dead tasks match these filters", null) : empty("No dead letters", "Tasks land here after their last retry fails; none has.");
    },
  });
  paintBulk();
  return {
    title: "Dead letters", load: list.load, poll: list.poll, fail: list.fail,
    onStats: function (s) { list.onStats(s); count.textContent = num(s.byStatus.dead) + " in the dead-letter list"; },
  };
};
`;
