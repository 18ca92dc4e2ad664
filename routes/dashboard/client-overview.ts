/**
 * @module dashboard/client-overview — browser code for the live counters (on every view), the
 * global pause/resume buttons, and the overview: throughput chart, totals, per-type
 * durations and the pools table with pause/resume and concurrency controls.
 */

export const CLIENT_OVERVIEW = String.raw`
var counterEls = {};
function loadStats() {
  return api("GET", "/stats").then(function (s) {
    S.stats = s;
    renderCounters(s);
    if (S.ctl && S.ctl.onStats) S.ctl.onStats(s);
  });
}
function renderCounters(s) {
  var box = $("counters");
  STATUSES.forEach(function (st) {
    var n = s.byStatus[st] || 0;
    var c = counterEls[st];
    if (!c) {
      var value = h("div", { class: "value", text: num(n) });
      var href = st === "dead" ? "#/dead" : "#/tasks?status=" + st;
      c = counterEls[st] = { n: n, value: value, el: h("a", { class: "counter s-" + st, href: href, "data-counter": st, title: "Tasks " + st + " — open the list" }, [h("div", { class: "label", text: st }), value]) };
      box.appendChild(c.el);
    } else if (c.n !== n) {
      c.n = n;
      c.value.textContent = num(n);
      // Restart the flash animation on change, so movement is visible at a glance.
      c.el.classList.remove("flash");
      void c.el.offsetWidth;
      c.el.classList.add("flash");
    }
  });
  var dead = $("dead-badge");
  dead.textContent = num(s.byStatus.dead || 0);
  dead.hidden = !s.byStatus.dead;
  var pools = Object.keys(s.pools).map(function (k) { return s.pools[k]; });
  var paused = pools.filter(function (p) { return p.paused; }).length;
  if (!can("admin")) return;
  $("pause-all").disabled = pools.length > 0 && paused === pools.length;
  $("resume-all").disabled = paused === 0;
}
function initHeader() {
  // Log out with fetch, then come back here: the dashboard's own login form shows.
  var logout = $("logout-form");
  if (logout) logout.addEventListener("submit", function (ev) {
    ev.preventDefault();
    fetch(BASE + "/logout", { method: "POST", credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function () { location.assign(BASE); }, function (e) { toast("Log out failed: " + e.message, true); });
  });
  if (!can("admin")) return;
  $("pause-all").addEventListener("click", function () {
    run(this, function () { return api("POST", "/pause", {}).then(function () { return "All pools paused: running tasks finish, nothing new starts"; }); });
  });
  $("resume-all").addEventListener("click", function () {
    run(this, function () { return api("POST", "/resume", {}).then(function () { return "All pools resumed"; }); });
  });
}

// ---- throughput chart: inline SVG, sized to its box ------------------------------------------
function drawChart(box, data) {
  clear(box);
  // The box stretches to its row (the SVG is absolutely placed, so it never sets the height).
  var W = Math.max(280, box.clientWidth || 600), H = Math.max(180, box.clientHeight || 236), L = 40, R = 8, T = 10, B = 22;
  var n = data.buckets.length;
  var max = 0;
  data.buckets.forEach(function (b) { max = Math.max(max, b.succeeded + b.failed); });
  // Gridlines at round numbers: a step of 1, 2 or 5 times a power of ten.
  var raw = Math.max(1, max / 4), pow = Math.pow(10, Math.floor(Math.log10(raw)));
  var step = [1, 2, 2.5, 5, 10].map(function (m) { return m * pow; }).filter(function (x) { return x >= raw; })[0];
  var lines = Math.max(1, Math.ceil(max / step)), top = lines * step;
  var y = function (v) { return T + (H - T - B) * (1 - v / top); };
  var slot = (W - L - R) / n, bw = Math.max(2, slot - Math.max(1, slot * 0.22));
  var g = [];
  for (var i = 0; i <= lines; i++) {
    var v = step * i;
    g.push(sv("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    g.push(sv("text", { class: "axis", x: L - 6, y: y(v) + 3.5, "text-anchor": "end", text: num(Math.round(v)) }));
  }
  // Where retention already dropped history, shade the gap instead of drawing false zeros.
  if (data.since && data.since > data.from) {
    var gapW = Math.min(W - L - R, ((data.since - data.from) / (n * data.bucketMs)) * (W - L - R));
    g.push(sv("rect", { class: "gap", x: L, y: T, width: gapW, height: H - T - B }, sv("title", { text: "History retention already dropped these attempts" })));
    if (gapW > 90) g.push(sv("text", { class: "axis", x: L + gapW / 2, y: T + (H - T - B) / 2, "text-anchor": "middle", text: "beyond history retention" }));
  }
  data.buckets.forEach(function (b, i) {
    var x = L + i * slot + (slot - bw) / 2;
    var label = clock(b.at) + " – " + clock(b.at + data.bucketMs) + ": " + b.succeeded + " succeeded, " + b.failed + " failed";
    var parts = [sv("title", { text: label })];
    if (b.succeeded) parts.push(sv("rect", { class: "ok", x: x, width: bw, y: y(b.succeeded), height: y(0) - y(b.succeeded), rx: 1.5 }));
    if (b.failed) parts.push(sv("rect", { class: "bad", x: x, width: bw, y: y(b.succeeded + b.failed), height: y(b.succeeded) - y(b.succeeded + b.failed), rx: 1.5 }));
    // An invisible full-height target so every interval shows its tooltip, even empty ones.
    parts.push(sv("rect", { x: L + i * slot, width: slot, y: T, height: H - T - B, fill: "transparent" }));
    g.push(sv("g", { "data-at": b.at }, parts));
  });
  var span = data.buckets.length * data.bucketMs / 60000;
  [0, 1 / 3, 2 / 3, 1].forEach(function (f) {
    var x = L + (W - L - R) * f;
    var m = Math.round(span * (1 - f));
    g.push(sv("text", { class: "axis", x: x, y: H - 6, "text-anchor": f === 0 ? "start" : f === 1 ? "end" : "middle", text: m ? "−" + m + " min" : "now" }));
  });
  box.appendChild(sv("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "Succeeded and failed attempts per " + (data.bucketMs / 1000) + " s over the last " + span + " minutes" }, g));
  if (!max) box.appendChild(h("div", { class: "none", text: "No attempts finished in the last " + span + " minutes" }));
}

// ---- pools: keyed rows, so a poll never clobbers a size being typed ------------------------
function poolsTable() {
  var tbody = h("tbody");
  var rows = {};
  var note = h("div", { class: "empty", hidden: true }, [h("strong", { text: "No pools yet" }), h("div", { text: "Pools appear once a worker starts or a task names one." })]);
  function makeRow(name) {
    var state = h("td", { class: "hide-sm" });
    var mini = h("span", { class: "show-sm" });
    var running = h("td", { class: "num", "data-label": " running" });
    var bar = h("i");
    var queued = h("td", { class: "num", "data-label": " queued" });
    var input = h("input", { class: "field size", type: "number", min: 0, max: 10000, step: 1, "aria-label": "Concurrency of pool " + name, "data-size": name });
    var r = { input: input, dirty: false, paused: false };
    input.addEventListener("input", function () { r.dirty = true; });
    var setBtn = button("Set", function () {
      var n = Number(input.value);
      if (!Number.isInteger(n) || n < 0 || n > 10000) throw new Error("Concurrency must be a whole number 0..10000, got " + JSON.stringify(input.value));
      return api("POST", "/pools/" + encodeURIComponent(name), { concurrency: n }).then(function () { r.dirty = false; return "Pool " + name + ": concurrency " + n; });
    }, "", { "data-set": name });
    input.addEventListener("keydown", function (ev) { if (ev.key === "Enter") setBtn.click(); });
    var toggle = button("Pause", function () {
      var action = r.paused ? "resume" : "pause";
      return api("POST", "/" + action, { pool: name }).then(function () {
        if (action === "pause") return "Pool " + name + " paused";
        return api("GET", "/stats").then(function (s) {
          var p = s.pools[name];
          return p && p.paused ? "Pool " + name + " resumed, but Pause all is still on: use Resume all" : "Pool " + name + " resumed";
        });
      });
    }, "", { "data-toggle": name });
    r.update = function (p) {
      r.paused = p.paused;
      clear(state).appendChild(badge(p.paused ? "paused" : "active", p.paused ? "paused" : "active"));
      clear(mini).appendChild(badge(p.paused ? "paused" : "active", p.paused ? "paused" : "active"));
      running.textContent = num(p.running) + " / " + num(p.size);
      bar.style.width = (p.size ? Math.min(100, (100 * p.running) / p.size) : 0) + "%";
      queued.textContent = num(p.queued);
      toggle.textContent = p.paused ? "Resume" : "Pause";
      if (!r.dirty && document.activeElement !== input) input.value = String(p.size);
    };
    r.el = h("tr", { "data-pool": name }, [
      h("td", { class: "poolname" }, [name, mini]), state, running,
      h("td", { class: "hide-sm" }, h("div", { class: "bar" }, bar)), queued,
      h("td", { class: "controls" }, can("admin") ? h("div", { class: "inline" }, [input, setBtn, h("span", { class: "sep" }), toggle]) : null),
    ]);
    return r;
  }
  var table = h("table", { id: "pools" }, [h("thead", {}, h("tr", {}, [
    h("th", { text: "Pool" }), h("th", { class: "hide-sm", text: "State" }), h("th", { class: "num", text: "Running / size" }),
    h("th", { class: "hide-sm", text: "Load" }), h("th", { class: "num", text: "Queued" }), h("th", {}, can("admin") ? "Concurrency" : srOnly("Controls")),
  ])), tbody]);
  return {
    el: h("div", {}, [h("div", { class: "scroll" }, table), note]),
    update: function (s) {
      var names = Object.keys(s.pools).sort();
      note.hidden = names.length > 0;
      table.hidden = names.length === 0;
      Object.keys(rows).forEach(function (n) { if (!s.pools[n]) { rows[n].el.remove(); delete rows[n]; } });
      names.forEach(function (n, i) {
        var r = rows[n] || (rows[n] = makeRow(n));
        r.update(s.pools[n]);
        // Move a row only when out of place: moving a row takes the focus from its input.
        if (tbody.children[i] !== r.el) tbody.insertBefore(r.el, tbody.children[i] || null);
      });
    },
  };
}

function panel(title, sub, body, extra) {
  return h("section", { class: "panel" }, [
    h("div", { class: "head" }, [h("h2", { text: title }), sub ? h("span", { class: "sub", text: sub }) : null, h("span", { class: "grow" }), extra || null]),
    body,
  ]);
}

VIEWS.overview = function (el) {
  var chartBox = h("div", { class: "chart", id: "chart" }, h("div", { class: "loading", text: "Loading…" }));
  var legend = h("div", { class: "legend" });
  var totals = h("div", { class: "tiles", id: "totals" });
  var types = h("tbody");
  var pools = poolsTable();
  var last = null, n = 0, drawn = "", shownStats = "";
  el.appendChild(h("div", { class: "grid2" }, [
    panel("Throughput", "last 15 minutes, per 30 s", h("div", { class: "body" }, chartBox), legend),
    panel("Totals", "since the store started", h("div", { class: "body" }, [totals, h("div", { class: "scroll" }, h("table", { id: "types" }, [h("thead", {}, h("tr", {}, [h("th", { text: "Type" }), h("th", { class: "num", text: "Samples" }), h("th", { class: "num", text: "Median" }), h("th", { class: "num", text: "p95 / max" })])), types]))])),
  ]));
  el.appendChild(panel("Pools", "live across every worker", pools.el));
  function loadChart() {
    return api("GET", "/dashboard/throughput").then(function (d) {
      last = d;
      var ok = 0, bad = 0;
      d.buckets.forEach(function (b) { ok += b.succeeded; bad += b.failed; });
      clear(legend).appendChild(h("span", {}, [h("i", { class: "ok" }), num(ok) + " succeeded"]));
      legend.appendChild(h("span", {}, [h("i", { class: "bad" }), num(bad) + " failed"]));
      if (d.truncated || d.since) legend.appendChild(h("span", { title: "History keeps a bounded number of attempts", text: d.since ? "history from " + clock(d.since) : "partial" }));
      drawChart(chartBox, d);
    });
  }
  // Redraw when the box changes size: the window, or the Totals panel beside it growing.
  var width = 0, height = 0;
  var sizer = new ResizeObserver(function () {
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
    poll: function () {
      var t = S.stats && S.stats.totals;
      var mark = t ? t.succeeded + "/" + t.failedAttempts : "";
      n++;
      if (n % 5 !== 0 && (n % 2 !== 0 || mark === drawn)) return null;
      drawn = mark;
      return loadChart();
    },
    unmount: function () { sizer.disconnect(); },
    onStats: function (s) {
      pools.update(s);
      var sig = JSON.stringify([s.totals, s.byStatus, s.durations]);
      if (sig === shownStats) return;
      shownStats = sig;
      var t = s.totals;
      var b = s.byStatus;
      clear(totals);
      [["Succeeded attempts", t.succeeded], ["Failed attempts", t.failedAttempts], ["Dead tasks, all time", t.dead], ["Unfinished now", b.queued + b.running + b.scheduled + b.waiting + b.retrying]].forEach(function (kv) {
        totals.appendChild(h("div", { class: "tile" }, [h("div", { class: "label", text: kv[0] }), h("div", { class: "value", text: num(kv[1]) })]));
      });
      clear(types);
      var names = Object.keys(s.durations).sort();
      if (!names.length) types.appendChild(h("tr", {}, h("td", { colspan: 4, class: "muted small", text: "Durations appear after the first finished attempt." })));
      names.forEach(function (k) {
        var d = s.durations[k];
        types.appendChild(h("tr", {}, [h("td", {}, h("a", { href: "#/tasks?type=" + encodeURIComponent(k), text: k })), h("td", { class: "num", text: num(d.count) }), h("td", { class: "num", text: dur(Math.round(d.medianMs)) }), h("td", { class: "num", text: dur(Math.round(d.p95Ms === undefined ? d.maxMs : d.p95Ms)) })]));
      });
    },
  };
};
`;
