/**
 * @module dashboard/client-core — browser code shared by every view: the DOM builder, the
 * API client, formatting, toasts, confirm buttons, the router and the poller.
 *
 * Client code lives in `String.raw` strings (no build step, no filesystem: it ships inside
 * the module and serves from a Worker too). It uses no backticks and no `${`, so the strings
 * need no escaping. Nothing here ever parses HTML: `h()` turns every string into a text node,
 * which is what keeps task values (payloads, errors, ids) inert.
 */

export const CLIENT_CORE = String.raw`
"use strict";
var BASE = "/skedulr";
var STATUSES = ["queued", "scheduled", "waiting", "running", "succeeded", "retrying", "dead", "cancelled"];
var FINAL = { succeeded: true, dead: true, cancelled: true };
/** One page-wide state: the latest stats, the mounted view's controller, the poll clock. */
var S = { stats: null, ctl: null, route: null, tick: 0, busy: false, armed: null, online: null };

function $(id) { return document.getElementById(id); }
// The visitor's role (the shell's data-role): controls it does not allow are never built.
// The API refuses them anyway; this only keeps the page honest about what works.
var ROLES = ["read", "submit", "admin"];
function can(role) { return ROLES.indexOf(document.body.getAttribute("data-role") || "read") >= ROLES.indexOf(role); }

// Attributes: "class", "text" (textContent), "value", functions as listeners, the rest via
// setAttribute. Names always come from this code; task data only ever arrives as values, and
// a string handler or style attribute is refused outright (the CSP would block it anyway).
function setAttrs(el, attrs) {
  if (!attrs) return;
  Object.keys(attrs).forEach(function (k) {
    var v = attrs[k];
    if (v === null || v === undefined || v === false) return;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (/^(on|style$)/i.test(k)) throw new Error("refusing attribute " + k);
    else if (k === "class") el.setAttribute("class", v);
    else if (k === "text") el.textContent = String(v);
    else if (k === "value") el.value = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  });
}
function append(el, kids) {
  if (kids === null || kids === undefined || kids === false) return;
  if (Array.isArray(kids)) { kids.forEach(function (k) { append(el, k); }); return; }
  el.appendChild(kids instanceof Node ? kids : document.createTextNode(String(kids)));
}
function h(tag, attrs, kids) {
  var el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, kids);
  return el;
}
function sv(tag, attrs, kids) {
  var el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  setAttrs(el, attrs);
  append(el, kids);
  return el;
}
function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

// ---- formatting ---------------------------------------------------------------------------
function num(n) { return n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US"); }
function pad(n) { return (n < 10 ? "0" : "") + n; }
function clock(ms) {
  if (ms === null || ms === undefined) return "–";
  var d = new Date(ms);
  var t = pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  if (d.toDateString() === new Date().toDateString()) return t;
  return d.toLocaleDateString("en-US", { month: "short", day: "numeric" }) + " " + t;
}
function span(ms) {
  var s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return s + "s";
  var m = Math.floor(s / 60);
  if (m < 60) return m + "m " + (s % 60) + "s";
  var hr = Math.floor(m / 60);
  if (hr < 48) return hr + "h " + (m % 60) + "m";
  return Math.floor(hr / 24) + "d " + (hr % 24) + "h";
}
function rel(ms) {
  if (ms === null || ms === undefined) return "–";
  var d = ms - Date.now();
  return Math.abs(d) < 1000 ? "now" : d > 0 ? "in " + span(d) : span(d) + " ago";
}
function dur(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return ms + " ms";
  return ms < 60000 ? String(+(ms / 1000).toFixed(ms < 10000 ? 2 : 1)) + " s" : span(ms);
}
function when(ms) {
  return h("span", { title: ms === null || ms === undefined ? null : new Date(ms).toLocaleString() + " (" + rel(ms) + ")", text: clock(ms) });
}
function pretty(v) {
  if (v === undefined) return "undefined";
  try { return JSON.stringify(v, null, 2); } catch (e) { return String(v); }
}
function statusClass(s) { return STATUSES.indexOf(s) >= 0 || s === "active" || s === "paused" ? "s-" + s : ""; }
function badge(status, label) {
  return h("span", { class: "badge " + statusClass(status), "data-status": status, text: label || status });
}
// Text for screen readers only, e.g. the header of a column of buttons (never an empty <th>).
function srOnly(text) { return h("span", { class: "sr-only", text: text }); }
function taskHref(id) { return "#/tasks/" + encodeURIComponent(id); }
function taskLink(id) { return h("a", { class: "id", href: taskHref(id), title: id, text: id }); }
function empty(title, text, extra) {
  return h("div", { class: "empty" }, [h("strong", { text: title }), text ? h("div", { text: text }) : null, extra || null]);
}

// ---- API ----------------------------------------------------------------------------------
// Same-origin fetch: the browser sends the HttpOnly login cookie plus Origin/Sec-Fetch-Site,
// which is what the API's CSRF check accepts for changes. Errors carry the API's message.
function api(method, path, body) {
  var init = { method: method, headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" };
  if (method !== "GET") {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  return fetch(BASE + "/api" + path, init).then(function (r) {
    return r.text().then(function (t) {
      var data = null;
      try { data = t ? JSON.parse(t) : null; } catch (e) { data = null; }
      if (r.status === 401) { location.assign(BASE); }
      if (!r.ok) {
        var msg = data && data.error && data.error.message ? data.error.message : "HTTP " + r.status + " from " + path;
        var err = new Error(msg);
        err.status = r.status;
        throw err;
      }
      return data;
    });
  });
}
function qs(params) {
  var u = new URLSearchParams();
  Object.keys(params).forEach(function (k) { if (params[k] !== "" && params[k] !== null && params[k] !== undefined) u.set(k, params[k]); });
  var s = u.toString();
  return s ? "?" + s : "";
}

// ---- feedback -----------------------------------------------------------------------------
function toast(msg, bad) {
  var el = h("div", { class: "toast" + (bad ? " bad" : ""), role: bad ? "alert" : null, text: msg });
  $("toasts").appendChild(el);
  setTimeout(function () { el.remove(); }, bad ? 7000 : 3500);
}
function setOnline(ok, err) {
  if (S.online === ok && ok) return;
  S.online = ok;
  $("live").className = "live " + (ok ? "ok" : "down");
  $("live-text").textContent = ok ? "live" : "offline";
  var b = $("banner");
  if (ok) { b.hidden = true; return; }
  b.textContent = "Cannot reach the Skedulr API: " + (err && err.message ? err.message : "no answer") + ". Retrying every second.";
  b.hidden = false;
}
// A network failure or a 5xx is the connection's problem (banner); a 4xx belongs to the view.
function isOutage(e) { return !e || !e.status || e.status >= 500; }

// Runs an action from a button: disabled while pending, the outcome as a toast, then a refresh.
function run(btn, action) {
  btn.disabled = true;
  return Promise.resolve().then(action).then(
    function (msg) { if (msg) toast(msg); },
    function (e) { toast(e.message || String(e), true); },
  ).then(function () { btn.disabled = false; refreshNow(); });
}
function button(label, action, cls, attrs) {
  var btn = h("button", Object.assign({ type: "button", class: "btn sm " + (cls || ""), text: label }, attrs || {}));
  btn.addEventListener("click", function (ev) { ev.stopPropagation(); run(btn, action); });
  return btn;
}
// Destructive actions take two clicks; the armed state survives re-renders (keyed, 4 s).
function confirmButton(key, label, armedLabel, action, attrs) {
  var btn = h("button", Object.assign({ type: "button", class: "btn sm danger" }, attrs || {}));
  function armed() { return S.armed && S.armed.key === key && S.armed.until > Date.now(); }
  function paint() { btn.textContent = armed() ? armedLabel : label; btn.classList.toggle("armed", !!armed()); }
  btn.addEventListener("click", function (ev) {
    ev.stopPropagation();
    if (armed()) { S.armed = null; paint(); run(btn, action); return; }
    S.armed = { key: key, until: Date.now() + 4000 };
    paint();
    setTimeout(paint, 4100);
  });
  paint();
  return btn;
}

// ---- router and poller --------------------------------------------------------------------
var VIEWS = {};
function parseHash() {
  var raw = location.hash.replace(/^#\/?/, "");
  var at = raw.indexOf("?");
  var path = at < 0 ? raw : raw.slice(0, at);
  var parts = path.split("/").filter(Boolean).map(function (p) {
    try { return decodeURIComponent(p); } catch (e) { return p; }
  });
  return { name: parts[0] || "overview", arg: parts[1] || null, params: new URLSearchParams(at < 0 ? "" : raw.slice(at + 1)) };
}
function setHash(path, params) {
  history.replaceState(null, "", "#/" + path + qs(params || {}));
}
function mount() {
  var route = parseHash();
  var name = route.name === "tasks" && route.arg ? "task" : route.name;
  if (!VIEWS[name]) { name = "overview"; route = { name: "overview", arg: null, params: new URLSearchParams() }; }
  S.route = route;
  S.armed = null;
  if (S.ctl && S.ctl.unmount) S.ctl.unmount();
  var tab = name === "task" ? "tasks" : name;
  document.querySelectorAll("#tabs a").forEach(function (a) {
    var on = a.getAttribute("data-tab") === tab;
    a.classList.toggle("on", on);
    if (on) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  });
  var el = clear($("view"));
  S.ctl = VIEWS[name](el, route);
  document.title = (S.ctl.title || "Skedulr") + " · Skedulr";
  // The page's level-one heading names the view (read by screen readers, not drawn).
  $("view-title").textContent = (S.ctl.title || "Skedulr") + " · Skedulr dashboard";
  if (S.stats && S.ctl.onStats) S.ctl.onStats(S.stats);
  if (S.ctl.load) guard(S.ctl.load());
}
function guard(p) {
  return Promise.resolve(p).then(function () { setOnline(true); }, function (e) {
    if (isOutage(e)) setOnline(false, e);
    else if (S.ctl && S.ctl.fail) S.ctl.fail(e);
    else toast(e.message, true);
  });
}
function refreshNow() {
  guard(loadStats());
  if (S.ctl && S.ctl.load) guard(S.ctl.load());
}
// One request per second at most: odd ticks read the stats (counters every 2 s), even ticks
// let the open view refresh itself. A tick is skipped while the previous one is in flight,
// and a hidden tab does not poll at all.
function tick() {
  if (document.hidden || S.busy) return;
  S.tick++;
  var job = S.tick % 2 ? loadStats : S.ctl && S.ctl.poll;
  var pending = job ? job() : null;
  if (!pending) return;
  S.busy = true;
  guard(pending).then(function () { S.busy = false; });
}
`;
