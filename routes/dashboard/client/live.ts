/**
 * @module dashboard/client/live — feedback and the poll loop: toasts, the offline banner,
 * action buttons (with two-click confirmation for destructive ones), and the one-request-a-
 * second ticker that refreshes the stats and the open view (while the event stream is open,
 * only when a task changed: stream.ts).
 */
import { loadStats } from "./counters.ts";
import { type Attrs, h, must } from "./dom.ts";
import { S } from "./state.ts";
import { STATS_BACKSTOP_MS, VIEW_BACKSTOP_MS } from "./stream.ts";
import type { Failure } from "./types.ts";

/** What a button does: its message becomes a toast, a throw or rejection a red one. */
export type Action = () => string | void | Promise<string | void>;

export function toast(msg: string, bad?: boolean): void {
  const el = h("div", {
    class: `toast${bad ? " bad" : ""}`,
    role: bad ? "alert" : null,
    text: msg,
  });
  must("toasts").appendChild(el);
  setTimeout(() => el.remove(), bad ? 7000 : 3500);
}

function setOnline(ok: boolean, err?: Failure): void {
  if (S.online === ok && ok) return;
  S.online = ok;
  must("live").className = `live ${ok ? "ok" : "down"}`;
  must("live-text").textContent = ok ? "live" : "offline";
  const b = must("banner");
  if (ok) {
    b.hidden = true;
    return;
  }
  b.textContent = `Cannot reach the Skedulr API: ${
    err && err.message ? err.message : "no answer"
  }. Retrying every second.`;
  b.hidden = false;
}

// A network failure or a 5xx is the connection's problem (banner); a 4xx belongs to the view.
function isOutage(e: Failure | undefined): boolean {
  return !e || !e.status || e.status >= 500;
}

/** Settles a request: online on success; a failure goes to the banner, the view, or a toast. */
export function guard(p: unknown): Promise<void> {
  return Promise.resolve(p).then(() => setOnline(true), (e: Failure) => {
    if (isOutage(e)) setOnline(false, e);
    else if (S.ctl && S.ctl.fail) S.ctl.fail(e);
    else toast(e.message, true);
  });
}

export function refreshNow(): void {
  guard(loadStats());
  if (S.ctl && S.ctl.load) guard(S.ctl.load());
}

// Runs an action from a button: disabled while pending, the outcome as a toast, then a refresh.
export function run(btn: HTMLButtonElement, action: Action): Promise<void> {
  btn.disabled = true;
  return Promise.resolve().then(action).then(
    (msg) => {
      if (msg) toast(msg);
    },
    (e: Failure) => toast(e.message || String(e), true),
  ).then(() => {
    btn.disabled = false;
    refreshNow();
  });
}

export function button(
  label: string,
  action: Action,
  cls?: string,
  attrs?: Attrs,
): HTMLButtonElement {
  const btn = h("button", { type: "button", class: `btn sm ${cls || ""}`, text: label, ...attrs });
  btn.addEventListener("click", (ev) => {
    ev.stopPropagation();
    run(btn, action);
  });
  return btn;
}

// Destructive actions take two clicks; the armed state survives re-renders (keyed, 4 s).
export function confirmButton(
  key: string,
  label: string,
  armedLabel: string,
  action: Action,
  attrs?: Attrs,
): HTMLButtonElement {
  const btn = h("button", { type: "button", class: "btn sm danger", ...attrs });
  const armed = (): boolean => !!S.armed && S.armed.key === key && S.armed.until > Date.now();
  const paint = (): void => {
    btn.textContent = armed() ? armedLabel : label;
    btn.classList.toggle("armed", armed());
  };
  btn.addEventListener("click", (ev) => {
    ev.stopPropagation();
    if (armed()) {
      S.armed = null;
      paint();
      run(btn, action);
      return;
    }
    S.armed = { key, until: Date.now() + 4000 };
    paint();
    setTimeout(paint, 4100);
  });
  paint();
  return btn;
}

// One request per second at most: odd ticks read the stats (counters every 2 s), even ticks
// let the open view refresh itself. A tick is skipped while the previous one is in flight,
// and a hidden tab does not poll at all. While the event stream is open, a tick reads only
// what a task event made stale, or what the backstop says is old.
export function tick(): void {
  if (document.hidden || S.busy) return;
  S.tick++;
  const now = Date.now();
  let stats = S.tick % 2 === 1;
  if (S.streaming) {
    const statsDue = S.statsDue || now - S.statsAt >= STATS_BACKSTOP_MS;
    const viewDue = S.viewDue || now - S.viewAt >= VIEW_BACKSTOP_MS;
    if (!statsDue && !viewDue) return;
    stats = statsDue && (stats || !viewDue);
  }
  const job = stats ? loadStats : S.ctl && S.ctl.poll;
  const pending = job ? job() : null;
  // A view that skipped this tick (it reads on its own rhythm) stays due for the next.
  if (!pending) return;
  if (stats) (S.statsDue = false, S.statsAt = now);
  else (S.viewDue = false, S.viewAt = now);
  S.busy = true;
  guard(pending).then(() => {
    S.busy = false;
    if (!stats && S.ctl?.more?.()) S.viewDue = true;
  });
}
