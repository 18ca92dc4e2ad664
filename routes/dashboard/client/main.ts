/**
 * @module dashboard/client/main — the entry point of the dashboard's browser script
 * (bundled by scripts/tools/gen-dashboard.ts into one IIFE): the login form on the login
 * page; otherwise the header, the router, the event stream and the one-second ticker.
 */
import { loadStats } from "./counters.ts";
import { $ } from "./dom.ts";
import { initHeader } from "./header.ts";
import { guard, refreshNow, tick } from "./live.ts";
import { initLogin } from "./login.ts";
import { mount } from "./router.ts";
import { openStream } from "./stream.ts";

function start(): void {
  const login = $("login-form");
  if (login) {
    initLogin(login as HTMLFormElement);
    return;
  }
  initHeader();
  addEventListener("hashchange", mount);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refreshNow();
  });
  guard(loadStats());
  mount();
  openStream();
  setInterval(tick, 1000);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
