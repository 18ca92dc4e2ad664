/**
 * @module dashboard/client/dom — the DOM builder and the small pieces of markup every view
 * uses. Nothing here ever parses HTML: `h()` turns every string into a text node, which is
 * what keeps task values (payloads, errors, ids) inert.
 */
import { STATUSES } from "./state.ts";

export type AttrValue = string | number | boolean | null | undefined | ((ev: Event) => void);
export type Attrs = Record<string, AttrValue>;
export type Kid = Node | string | number | null | undefined | false | Kid[];

export function $(id: string): HTMLElement | null {
  return document.getElementById(id);
}

/** An element the shell always renders (the type is the caller's word for it). */
export function must<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`dashboard: no #${id} on this page`);
  return el as T;
}

// The shell's data-role: controls the visitor's role does not allow are never built. The
// API refuses them anyway; this only keeps the page honest about what works.
const ROLES = ["read", "submit", "admin"];
export function can(role: "read" | "submit" | "admin"): boolean {
  return ROLES.indexOf(document.body.getAttribute("data-role") || "read") >= ROLES.indexOf(role);
}

// Attributes: "class", "text" (textContent), "value", functions as listeners, the rest via
// setAttribute. Names always come from this code; task data only ever arrives as values, and
// a string handler or style attribute is refused outright (the CSP would block it anyway).
function setAttrs(el: Element, attrs?: Attrs | null): void {
  if (!attrs) return;
  for (const k of Object.keys(attrs)) {
    const v = attrs[k];
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (/^(on|style$)/i.test(k)) throw new Error(`refusing attribute ${k}`);
    else if (k === "class") el.setAttribute("class", String(v));
    else if (k === "text") el.textContent = String(v);
    else if (k === "value") (el as HTMLInputElement).value = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

export function append(el: Node, kids: Kid): void {
  if (kids === null || kids === undefined || kids === false) return;
  if (Array.isArray(kids)) {
    for (const k of kids) append(el, k);
    return;
  }
  el.appendChild(kids instanceof Node ? kids : document.createTextNode(String(kids)));
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  kids?: Kid,
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, kids);
  return el;
}

export function sv<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  kids?: Kid,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  setAttrs(el, attrs);
  append(el, kids);
  return el;
}

export function clear<T extends Node>(el: T): T {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

function statusClass(s: string): string {
  return (STATUSES as readonly string[]).indexOf(s) >= 0 || s === "active" || s === "paused"
    ? `s-${s}`
    : "";
}

export function badge(status: string, label?: string): HTMLSpanElement {
  return h("span", {
    class: `badge ${statusClass(status)}`,
    "data-status": status,
    text: label || status,
  });
}

// Text for screen readers only, e.g. the header of a column of buttons (never an empty <th>).
export function srOnly(text: string): HTMLSpanElement {
  return h("span", { class: "sr-only", text });
}

export function taskHref(id: string): string {
  return `#/tasks/${encodeURIComponent(id)}`;
}

export function taskLink(id: string): HTMLAnchorElement {
  return h("a", { class: "id", href: taskHref(id), title: id, text: id });
}

export function empty(title: string, text?: string | null, extra?: Node | null): HTMLDivElement {
  return h("div", { class: "empty" }, [
    h("strong", { text: title }),
    text ? h("div", { text }) : null,
    extra || null,
  ]);
}

export function panel(
  title: string,
  sub: string | null,
  body: Node,
  extra?: Node | null,
): HTMLElement {
  return h("section", { class: "panel" }, [
    h("div", { class: "head" }, [
      h("h2", { text: title }),
      sub ? h("span", { class: "sub", text: sub }) : null,
      h("span", { class: "grow" }),
      extra || null,
    ]),
    body,
  ]);
}
