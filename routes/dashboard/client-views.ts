/**
 * @module dashboard/client-views — browser code for the schedules view (next run, last run,
 * remove), the workers view (id, host, pools, running, heartbeat age) and start-up.
 */

export const CLIENT_VIEWS = String.raw`
function every(ms) {
  var units = [[86400000, "d"], [3600000, "h"], [60000, "m"], [1000, "s"]];
  for (var i = 0; i < units.length; i++) if (ms % units[i][0] === 0) return ms / units[i][0] + units[i][1];
  return ms + "ms";
}

VIEWS.schedules = function (el, route) {
  var focus = route.params.get("id");
  var body = h("div", { class: "scroll" }, h("div", { class: "loading", text: "Loading…" }));
  var sub = h("span", { class: "sub" });
  el.appendChild(h("section", { class: "panel" }, [h("div", { class: "head" }, [h("h2", { text: "Schedules" }), sub]), body]));
  var n = 0, sig = null;
  function row(s) {
    var spec = s.kind === "cron" ? h("span", {}, [h("code", { text: s.cron }), s.timezone ? h("span", { class: "muted small", text: " " + s.timezone }) : null]) : h("span", { text: "every " + every(s.everyMs) });
    var tr = h("tr", { "data-schedule": s.id, class: s.id === focus ? "hl" : null }, [
      h("td", {}, h("span", { class: "id", title: s.id, text: s.id })),
      h("td", {}, spec),
      h("td", {}, h("a", { href: "#/tasks?type=" + encodeURIComponent(s.template.type), text: s.template.type })),
      h("td", { class: "hide-sm", text: s.template.pool }),
      h("td", {}, [clock(s.nextRunAt), h("div", { class: "muted small", text: rel(s.nextRunAt) })]),
      h("td", { class: "hide-sm" }, s.lastRunId ? [taskLink(s.lastRunId), h("div", { class: "muted small", text: rel(s.lastRunAt) })] : h("span", { class: "muted", text: "not yet" })),
      h("td", { class: "hide-sm", text: s.skipIfRunning ? "skip" : "allow" }),
      h("td", {}, !can("admin") ? null : confirmButton("rm:" + s.id, "Remove", "Confirm remove", function () {
        return api("DELETE", "/schedules/" + encodeURIComponent(s.id)).then(function () { return "Removed schedule " + s.id; });
      }, { "data-remove": s.id })),
    ]);
    return tr;
  }
  function load() {
    return api("GET", "/schedules").then(function (r) {
      var list = r.schedules.slice().sort(function (a, b) { return a.nextRunAt - b.nextRunAt; });
      sub.textContent = list.length ? num(list.length) + " active, soonest first" : "";
      // Relative times move every second, so the table re-renders on each read; the
      // confirm state of Remove lives in S.armed and survives that.
      var s = JSON.stringify(list) + Math.floor(Date.now() / 1000);
      if (s === sig) return;
      sig = s;
      clear(body);
      if (!list.length) { body.appendChild(empty("No schedules", "Submit a task with every or cron (e.g. { \"type\": \"report\", \"cron\": \"0 * * * *\" }) to create one.")); return; }
      body.appendChild(h("table", { id: "schedules-table" }, [h("thead", {}, h("tr", {}, [
        h("th", { text: "Id" }), h("th", { text: "When" }), h("th", { text: "Type" }), h("th", { class: "hide-sm", text: "Pool" }),
        h("th", { text: "Next run" }), h("th", { class: "hide-sm", text: "Last run" }), h("th", { class: "hide-sm", text: "Overlap" }), h("th", {}, srOnly("Actions")),
      ])), h("tbody", {}, list.map(row))]));
      var hl = body.querySelector("tr.hl");
      if (hl && focus) { hl.scrollIntoView({ block: "center" }); focus = null; }
    });
  }
  return {
    title: "Schedules", load: load,
    poll: function () { return ++n % 5 === 0 ? load() : null; },
    fail: function (e) { sig = null; clear(body).appendChild(empty("Could not list schedules", e.message)); },
  };
};

VIEWS.workers = function (el) {
  var body = h("div", { class: "scroll" }, h("div", { class: "loading", text: "Loading…" }));
  var sub = h("span", { class: "sub" });
  el.appendChild(h("section", { class: "panel" }, [h("div", { class: "head" }, [h("h2", { text: "Workers" }), sub]), body]));
  function load() {
    return api("GET", "/workers").then(function (r) {
      var list = r.workers.slice().sort(function (a, b) { return a.startedAt - b.startedAt; });
      sub.textContent = list.length ? num(list.length) + " live instance" + (list.length === 1 ? "" : "s") : "";
      clear(body);
      if (!list.length) { body.appendChild(empty("No live workers", "Start one with bun run worker; it appears here within one heartbeat.")); return; }
      body.appendChild(h("table", { id: "workers-table" }, [h("thead", {}, h("tr", {}, [
        h("th", { text: "Id" }), h("th", { text: "Host" }), h("th", { class: "hide-sm num", text: "Pid" }), h("th", { text: "Pools" }),
        h("th", { class: "num", text: "Running" }), h("th", { class: "hide-sm", text: "Up for" }), h("th", { text: "Heartbeat" }),
      ])), h("tbody", {}, list.map(function (w) {
        var age = Date.now() - w.lastSeen;
        var pools = Object.keys(w.pools).sort().map(function (p) { return h("span", { class: "badge", text: p + " × " + w.pools[p] }); });
        return h("tr", { "data-worker": w.id }, [
          h("td", {}, h("span", { class: "id", title: w.id, text: w.id })), h("td", { text: w.host }),
          h("td", { class: "hide-sm num", text: w.pid }), h("td", {}, h("div", { class: "inline wrap" }, pools)),
          h("td", { class: "num", text: num(w.running) }), h("td", { class: "hide-sm", text: span(Date.now() - w.startedAt) }),
          h("td", {}, h("span", { class: age > 15000 ? "badge s-retrying" : "badge s-succeeded", title: new Date(w.lastSeen).toLocaleString(), text: span(age) + " ago" })),
        ]);
      }))]));
    });
  }
  return { title: "Workers", load: load, poll: load, fail: function (e) { clear(body).appendChild(empty("Could not list workers", e.message)); } };
};

// The login page: post JSON so a wrong token is shown inline (the form also works without JS).
function initLogin(form) {
  var msg = $("login-msg");
  var btn = form.querySelector("button");
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    btn.disabled = true;
    msg.hidden = true;
    function show(text) { msg.textContent = text; msg.hidden = false; btn.disabled = false; form.token.select(); }
    fetch(BASE + "/login", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ token: form.token.value }),
    }).then(function (r) {
      if (r.ok) { location.reload(); return; }
      return r.json().catch(function () { return null; }).then(function (d) {
        show(r.status === 401 ? "Wrong token or key." : d && d.error ? d.error.message : "Login failed: HTTP " + r.status);
      });
    }, function (e) { show("Cannot reach the server: " + e.message); });
  });
}

function start() {
  var login = $("login-form");
  if (login) { initLogin(login); return; }
  initHeader();
  window.addEventListener("hashchange", mount);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) refreshNow(); });
  guard(loadStats());
  mount();
  setInterval(tick, 1000);
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
`;
