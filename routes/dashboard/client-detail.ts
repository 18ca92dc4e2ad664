/**
 * @module dashboard/client-detail — browser code for one task: summary and timestamps,
 * progress, payload and result as pretty JSON, the last error with its stack, every attempt
 * from history, workflow parents and children, the schedule link, Cancel and Resubmit.
 */

export const CLIENT_DETAIL = String.raw`
function describeBackoff(b) {
  if (!b) return "default";
  if (b.type === "fixed") return "fixed " + dur(b.delayMs);
  return "exponential " + dur(b.baseMs) + " → " + dur(b.maxMs) + (b.jitter ? ", jitter " + b.jitter : "");
}
function kv(dl, label, value) {
  dl.appendChild(h("dt", { text: label }));
  dl.appendChild(h("dd", {}, value instanceof Node ? value : value === null || value === undefined || value === "" ? h("span", { class: "muted", text: "–" }) : String(value)));
}
function stamp(ms) {
  return ms === null || ms === undefined ? null : h("span", { title: rel(ms) }, [clock(ms), h("span", { class: "muted small", text: "  " + rel(ms) })]);
}
function jsonBlock(v, id) { return h("pre", { class: "json", id: id, text: pretty(v) }); }
// A badge beside the status when no live worker lists the task's type in its heartbeat (a
// worker of a version that lists none counts as handling every type).
function typeBadge(head, type) {
  api("GET", "/workers").then(function (r) {
    var w = r.workers;
    if (w.some(function (x) { return !x.types || x.types.indexOf(type) >= 0; })) return;
    var old = $("type-unhandled");
    if (old) old.remove();
    head.insertBefore(h("span", { class: "badge s-retrying", id: "type-unhandled",
      title: w.length ? "Live workers run no handler for " + type + ": one that claims it fails it" : "No worker is running",
      text: w.length ? "no live worker handles " + type : "no live worker" }), head.children[2] || null);
  }, function () {});
}

VIEWS.task = function (el, route) {
  var id = route.arg;
  var task = null, shown = "";
  var head = h("div", { class: "detail-head" });
  var summary = h("dl", { class: "kv" });
  var flow = h("div", { class: "body" }, h("div", { class: "muted", text: "Loading…" }));
  var errorBox = h("div");
  var payload = h("div", { class: "body" });
  var result = h("div", { class: "body" });
  var attempts = h("div", {}, h("div", { class: "loading", text: "Loading…" }));
  el.appendChild(h("div", { class: "small" }, h("a", { href: "#/tasks", text: "← All tasks" })));
  el.appendChild(head);
  el.appendChild(h("div", { class: "grid2" }, [
    panel("Summary", null, h("div", { class: "body" }, summary)),
    h("div", { class: "stack" }, [panel("Payload", null, payload), panel("Result", null, result), panel("Workflow", null, flow)]),
  ]));
  el.appendChild(errorBox);
  el.appendChild(panel("Attempts", "from history, newest first", attempts));

  function render(t) {
    // h2: the page's one h1 is the view title (shell); the id heads this view's content.
    clear(head).appendChild(h("h2", { id: "task-id", text: t.id }));
    head.appendChild(badge(t.status));
    head.appendChild(h("span", { class: "grow" }));
    if (!FINAL[t.status]) typeBadge(head, t.type);
    if (!FINAL[t.status]) append(head, cancelButton(t));
    if (t.status === "dead" || t.status === "cancelled") append(head, resubmitButton(t, "primary"));
    clear(summary);
    kv(summary, "Type", t.type);
    kv(summary, "Pool", t.pool);
    kv(summary, "Priority", t.priority);
    kv(summary, "Attempts", t.attempt + " of " + (t.maxRetries + 1) + " allowed");
    kv(summary, "Progress", t.progress === null ? null : progressCell(t));
    kv(summary, "Created", stamp(t.createdAt));
    kv(summary, "Due", stamp(t.runAt));
    kv(summary, "Started", stamp(t.startedAt));
    kv(summary, "Finished", stamp(t.finishedAt));
    if (t.startedAt && t.finishedAt) kv(summary, "Last run took", dur(t.finishedAt - t.startedAt));
    kv(summary, "Worker", t.workerId);
    kv(summary, "Dedup key", t.key);
    kv(summary, "Timeout", t.timeoutMs === null ? null : dur(t.timeoutMs));
    kv(summary, "Back-off", describeBackoff(t.backoff));
    if (t.cancelReason) kv(summary, "Cancel reason", t.cancelReason);
    kv(summary, "Schedule", t.scheduleId ? h("a", { href: "#/schedules?id=" + encodeURIComponent(t.scheduleId), class: "id", title: t.scheduleId, text: t.scheduleId }) : null);
    clear(errorBox);
    if (t.error) {
      errorBox.appendChild(panel("Last error", null, h("div", { class: "body" }, [
        h("pre", { class: "stack", id: "task-error", text: t.error.message }),
        t.error.stack ? h("details", {}, [h("summary", { text: "Stack trace" }), h("pre", { class: "stack", text: t.error.stack })]) : null,
      ])));
    }
    clear(payload).appendChild(jsonBlock(t.payload, "task-payload"));
    clear(result).appendChild(t.status === "succeeded" || t.result !== null ? jsonBlock(t.result, "task-result") : h("div", { class: "muted", text: "No result yet." }));
  }

  function renderAttempts(list) {
    clear(attempts);
    if (!list.length) { attempts.appendChild(empty("No finished attempts", "History records each attempt when it ends.")); return; }
    list.forEach(function (a) {
      var row = h("div", { class: "attempt", "data-attempt": a.attempt }, h("div", { class: "row" }, [
        h("strong", { text: "Attempt " + a.attempt }), badge(a.status), h("span", { class: "muted", text: clock(a.startedAt) + " · " + dur(a.durationMs) }),
        a.workerId ? h("span", { class: "muted small mono", text: a.workerId }) : null,
      ]));
      if (a.error) {
        row.appendChild(h("pre", { class: "stack", text: a.error.message }));
        if (a.error.stack) row.appendChild(h("details", {}, [h("summary", { text: "Stack trace" }), h("pre", { class: "stack", text: a.error.stack })]));
      }
      attempts.appendChild(row);
    });
  }

  function parentRow(relation, pid) {
    var status = h("span", { class: "muted small", text: "…" });
    api("GET", "/tasks/" + encodeURIComponent(pid)).then(function (p) { clear(status).appendChild(badge(p.status)); }, function (e) {
      status.textContent = e.status === 404 ? "no longer stored" : e.message;
    });
    return h("li", {}, [h("span", { class: "muted", text: relation + " " }), taskLink(pid), " ", status]);
  }

  function loadFlow(t) {
    clear(flow);
    var parents = t.dependsOn.map(function (p) { return ["depends on", p]; });
    if (t.onSuccessOf) parents.push(["on success of", t.onSuccessOf]);
    if (t.onFailureOf) parents.push(["on failure of", t.onFailureOf]);
    flow.appendChild(h("h2", { class: "small muted", text: "Parents" }));
    flow.appendChild(parents.length ? h("ul", { id: "parents" }, parents.map(function (p) { return parentRow(p[0], p[1]); })) : h("p", { class: "muted small", text: "None: this task waits for no other." }));
    var kids = h("div", { id: "children" }, h("p", { class: "muted small", text: "Looking…" }));
    flow.appendChild(h("h2", { class: "small muted", text: "Children" }));
    flow.appendChild(kids);
    return api("GET", "/dashboard/tasks/" + encodeURIComponent(t.id) + "/children").then(function (r) {
      clear(kids);
      if (!r.children.length) kids.appendChild(h("p", { class: "muted small", text: r.complete ? "None: no task waits for this one." : "None among the newest tasks." }));
      else kids.appendChild(h("ul", {}, r.children.map(function (c) {
        return h("li", {}, [h("span", { class: "muted", text: c.via + " → " }), taskLink(c.id), " ", h("span", { class: "muted small", text: c.type + " " }), badge(c.status)]);
      })));
    }, function (e) { clear(kids).appendChild(h("p", { class: "muted small", text: "Could not list children: " + e.message })); });
  }

  function loadAttempts() {
    // History filters by text, not task id: ask for the id, keep exact matches.
    return api("GET", "/history" + qs({ q: id, limit: 200 })).then(function (r) {
      renderAttempts(r.attempts.filter(function (a) { return a.taskId === id; }));
    }, function (e) { clear(attempts).appendChild(empty("Could not read history", e.message)); });
  }

  // A poll reads one thing per tick: the task, or (the tick after it changed) its attempts,
  // keeping the page at one request a second. A user-driven load reads both at once.
  var attemptsDue = false;
  function load(polled) {
    return api("GET", "/tasks/" + encodeURIComponent(id)).then(function (t) {
      var first = !task;
      var changed = !task || task.status !== t.status || task.attempt !== t.attempt;
      task = t;
      var s = JSON.stringify(t);
      if (s !== shown) { shown = s; render(t); }
      if (first) loadFlow(t);
      if (!changed) return;
      if (polled) attemptsDue = true;
      else return loadAttempts();
    });
  }
  return {
    title: "Task " + id,
    load: function () { return load(false); },
    // Only unfinished tasks change on their own; a finished one is re-read after actions.
    poll: function () {
      if (attemptsDue) { attemptsDue = false; return loadAttempts(); }
      return task && FINAL[task.status] ? null : load(true);
    },
    fail: function (e) {
      clear(el).appendChild(h("div", { class: "small" }, h("a", { href: "#/tasks", text: "← All tasks" })));
      el.appendChild(h("section", { class: "panel" }, e.status === 404
        ? empty("Task not found", "No task " + JSON.stringify(id) + " is stored (finished tasks are pruned after the retention period).")
        : empty("Could not load the task", e.message)));
    },
  };
};
`;
