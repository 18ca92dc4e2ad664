/**
 * @module dashboard/client/chart — the throughput chart: succeeded and failed attempts per
 * bucket as inline SVG, sized to its box, with a tooltip per interval.
 */
import { clear, h, sv } from "./dom.ts";
import { clock, num } from "./format.ts";
import type { Throughput } from "./types.ts";

export function drawChart(box: HTMLElement, data: Throughput): void {
  clear(box);
  // The box stretches to its row (the SVG is absolutely placed, so it never sets the height).
  const W = Math.max(280, box.clientWidth || 600), H = Math.max(180, box.clientHeight || 236);
  const L = 40, R = 8, T = 10, B = 22;
  const n = data.buckets.length;
  let max = 0;
  for (const b of data.buckets) max = Math.max(max, b.succeeded + b.failed);
  // Gridlines at round numbers: a step of 1, 2 or 5 times a power of ten.
  const raw = Math.max(1, max / 4), pow = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * pow).filter((x) => x >= raw)[0];
  const lines = Math.max(1, Math.ceil(max / step)), top = lines * step;
  const y = (v: number): number => T + (H - T - B) * (1 - v / top);
  const slot = (W - L - R) / n, bw = Math.max(2, slot - Math.max(1, slot * 0.22));
  const g: SVGElement[] = [];
  for (let i = 0; i <= lines; i++) {
    const v = step * i;
    g.push(sv("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    g.push(sv("text", {
      class: "axis",
      x: L - 6,
      y: y(v) + 3.5,
      "text-anchor": "end",
      text: num(Math.round(v)),
    }));
  }
  // Where retention already dropped history, shade the gap instead of drawing false zeros.
  if (data.since && data.since > data.from) {
    const gapW = Math.min(
      W - L - R,
      ((data.since - data.from) / (n * data.bucketMs)) * (W - L - R),
    );
    g.push(sv(
      "rect",
      { class: "gap", x: L, y: T, width: gapW, height: H - T - B },
      sv("title", { text: "History retention already dropped these attempts" }),
    ));
    if (gapW > 90) {
      g.push(sv("text", {
        class: "axis",
        x: L + gapW / 2,
        y: T + (H - T - B) / 2,
        "text-anchor": "middle",
        text: "beyond history retention",
      }));
    }
  }
  data.buckets.forEach((b, i) => {
    const x = L + i * slot + (slot - bw) / 2;
    const label = `${clock(b.at)} – ${
      clock(b.at + data.bucketMs)
    }: ${b.succeeded} succeeded, ${b.failed} failed`;
    const parts: SVGElement[] = [sv("title", { text: label })];
    if (b.succeeded) {
      parts.push(sv("rect", {
        class: "ok",
        x,
        width: bw,
        y: y(b.succeeded),
        height: y(0) - y(b.succeeded),
        rx: 1.5,
      }));
    }
    if (b.failed) {
      parts.push(sv("rect", {
        class: "bad",
        x,
        width: bw,
        y: y(b.succeeded + b.failed),
        height: y(b.succeeded) - y(b.succeeded + b.failed),
        rx: 1.5,
      }));
    }
    // An invisible full-height target so every interval shows its tooltip, even empty ones.
    parts.push(sv("rect", {
      x: L + i * slot,
      width: slot,
      y: T,
      height: H - T - B,
      fill: "transparent",
    }));
    g.push(sv("g", { "data-at": b.at }, parts));
  });
  const minutes = data.buckets.length * data.bucketMs / 60000;
  for (const f of [0, 1 / 3, 2 / 3, 1]) {
    const m = Math.round(minutes * (1 - f));
    g.push(sv("text", {
      class: "axis",
      x: L + (W - L - R) * f,
      y: H - 6,
      "text-anchor": f === 0 ? "start" : f === 1 ? "end" : "middle",
      text: m ? `−${m} min` : "now",
    }));
  }
  box.appendChild(sv("svg", {
    viewBox: `0 0 ${W} ${H}`,
    width: W,
    height: H,
    role: "img",
    "aria-label": `Succeeded and failed attempts per ${
      data.bucketMs / 1000
    } s over the last ${minutes} minutes`,
  }, g));
  if (!max) {
    box.appendChild(
      h("div", { class: "none", text: `No attempts finished in the last ${minutes} minutes` }),
    );
  }
}
