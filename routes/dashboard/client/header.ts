/**
 * @module dashboard/client/header — the header's buttons: log out, and (admins only) pause
 * and resume every pool at once.
 */
import { api } from "./api.ts";
import { $, can, must } from "./dom.ts";
import { run, toast } from "./live.ts";
import { BASE } from "./state.ts";

export function initHeader(): void {
  // Log out with fetch, then come back here: the dashboard's own login form shows.
  const logout = $("logout-form");
  if (logout) {
    logout.addEventListener("submit", (ev) => {
      ev.preventDefault();
      fetch(`${BASE}/logout`, {
        method: "POST",
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      }).then(
        () => location.assign(BASE),
        (e: Error) => toast(`Log out failed: ${e.message}`, true),
      );
    });
  }
  if (!can("admin")) return;
  const pauseAll = must<HTMLButtonElement>("pause-all");
  pauseAll.addEventListener("click", () => {
    run(pauseAll, async () => {
      await api("POST", "/pause", {});
      return "All pools paused: running tasks finish, nothing new starts";
    });
  });
  const resumeAll = must<HTMLButtonElement>("resume-all");
  resumeAll.addEventListener("click", () => {
    run(resumeAll, async () => {
      await api("POST", "/resume", {});
      return "All pools resumed";
    });
  });
}
