/**
 * @module dashboard/client/format — numbers, clock times, relative times and durations as
 * the dashboard shows them. Times are epoch milliseconds; a missing one shows as "–".
 */
import { h } from "./dom.ts";

type Ms = number | null | undefined;

export function num(n: Ms): string {
  return n === null || n === undefined ? "–" : Number(n).toLocaleString("en-US");
}

function pad(n: number): string {
  return (n < 10 ? "0" : "") + n;
}

export function clock(ms: Ms): string {
  if (ms === null || ms === undefined) return "–";
  const d = new Date(ms);
  const t = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (d.toDateString() === new Date().toDateString()) return t;
  return `${d.toLocaleDateString("en-US", { month: "short", day: "numeric" })} ${t}`;
}

export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const hr = Math.floor(m / 60);
  if (hr < 48) return `${hr}h ${m % 60}m`;
  return `${Math.floor(hr / 24)}d ${hr % 24}h`;
}

export function rel(ms: Ms): string {
  if (ms === null || ms === undefined) return "–";
  const d = ms - Date.now();
  return Math.abs(d) < 1000 ? "now" : d > 0 ? `in ${span(d)}` : `${span(d)} ago`;
}

export function dur(ms: Ms): string {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${ms} ms`;
  return ms < 60000 ? `${+(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s` : span(ms);
}

/** A clock time, with the full date and the relative time as its tooltip. */
export function when(ms: Ms): HTMLSpanElement {
  return h("span", {
    title: ms === null || ms === undefined ? null : `${new Date(ms).toLocaleString()} (${rel(ms)})`,
    text: clock(ms),
  });
}

export function pretty(v: unknown): string {
  if (v === undefined) return "undefined";
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}
