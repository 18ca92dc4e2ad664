/**
 * @module dashboard/client/router — mounts the view the hash names: unmounts the previous
 * one, marks its tab, titles the page, and starts its first load.
 */
import { clear, must } from "./dom.ts";
import { guard } from "./live.ts";
import { overview } from "./overview.ts";
import { parseHash } from "./route.ts";
import { schedules } from "./schedules.ts";
import { S } from "./state.ts";
import { task } from "./task-detail.ts";
import { dead, tasks } from "./tasks.ts";
import type { View } from "./types.ts";
import { workers } from "./workers.ts";

const VIEWS = new Map<string, View>([
  ["overview", overview],
  ["tasks", tasks],
  ["task", task],
  ["dead", dead],
  ["schedules", schedules],
  ["workers", workers],
]);

export function mount(): void {
  let route = parseHash();
  let name = route.name === "tasks" && route.arg ? "task" : route.name;
  let view = VIEWS.get(name);
  if (!view) {
    name = "overview";
    view = overview;
    route = { name: "overview", arg: null, params: new URLSearchParams() };
  }
  S.route = route;
  S.armed = null;
  if (S.ctl && S.ctl.unmount) S.ctl.unmount();
  const tab = name === "task" ? "tasks" : name;
  document.querySelectorAll("#tabs a").forEach((a) => {
    const on = a.getAttribute("data-tab") === tab;
    a.classList.toggle("on", on);
    if (on) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
  const ctl = view(clear(must("view")), route);
  S.ctl = ctl;
  document.title = `${ctl.title || "Skedulr"} · Skedulr`;
  // The page's level-one heading names the view (read by screen readers, not drawn).
  must("view-title").textContent = `${ctl.title || "Skedulr"} · Skedulr dashboard`;
  if (S.stats && ctl.onStats) ctl.onStats(S.stats);
  if (ctl.load) guard(ctl.load());
}
