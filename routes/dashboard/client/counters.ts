/**
 * @module dashboard/client/counters — the stats read behind every view: the live counters
 * (one per status, linking to its list), the dead-letter badge on the tab, and the enabled
 * state of the global Pause all / Resume all buttons.
 */
import { api } from "./api.ts";
import { can, h, must } from "./dom.ts";
import { num } from "./format.ts";
import { S, STATUSES } from "./state.ts";
import type { Stats } from "./types.ts";

interface Counter {
  n: number;
  value: HTMLElement;
  el: HTMLElement;
}
const counterEls = new Map<string, Counter>();

export async function loadStats(): Promise<void> {
  const s = await api<Stats>("GET", "/stats");
  S.stats = s;
  renderCounters(s);
  if (S.ctl && S.ctl.onStats) S.ctl.onStats(s);
}

function renderCounters(s: Stats): void {
  const box = must("counters");
  for (const st of STATUSES) {
    const n = s.byStatus[st] || 0;
    const c = counterEls.get(st);
    if (!c) {
      const value = h("div", { class: "value", text: num(n) });
      const href = st === "dead" ? "#/dead" : `#/tasks?status=${st}`;
      const el = h("a", {
        class: `counter s-${st}`,
        href,
        "data-counter": st,
        title: `Tasks ${st} — open the list`,
      }, [h("div", { class: "label", text: st }), value]);
      counterEls.set(st, { n, value, el });
      box.appendChild(el);
    } else if (c.n !== n) {
      c.n = n;
      c.value.textContent = num(n);
      // Restart the flash animation on change, so movement is visible at a glance.
      c.el.classList.remove("flash");
      void c.el.offsetWidth;
      c.el.classList.add("flash");
    }
  }
  const dead = must("dead-badge");
  dead.textContent = num(s.byStatus.dead || 0);
  dead.hidden = !s.byStatus.dead;
  const pools = Object.keys(s.pools).map((k) => s.pools[k]);
  const paused = pools.filter((p) => p.paused).length;
  if (!can("admin")) return;
  must<HTMLButtonElement>("pause-all").disabled = pools.length > 0 && paused === pools.length;
  must<HTMLButtonElement>("resume-all").disabled = paused === 0;
}
