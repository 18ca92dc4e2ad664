/**
 * @module dashboard/shell — the server-rendered HTML shell of `/skedulr`: header, tabs and
 * the empty regions the client script fills. It carries no task data, so nothing here ever
 * interpolates a value a task could control.
 */
import type { ApiRole } from "../credentials.ts";
import { escapeHtml } from "../pages.ts";

/**
 * Scripts and styles only from this origin, no inline code: even a rendering bug could not
 * run an injected `onerror=` handler. `connect-src 'self'` keeps the API calls same-origin.
 */
export const DASHBOARD_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; " +
  "img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; " +
  "base-uri 'none'";

export interface ShellOptions {
  version: string;
  /** Paths of the script and stylesheet, versioned for caching. */
  scriptSrc: string;
  styleHref: string;
  /** Show the log-out button (the visitor came in with the login cookie). */
  canLogOut: boolean;
  /** The visitor's role: the client renders only the controls it allows. */
  role: ApiRole;
}

const TABS: [string, string][] = [
  ["overview", "Overview"],
  ["tasks", "Tasks"],
  ["dead", 'Dead<span class="hide-sm"> letters</span>'],
  ["schedules", "Schedules"],
  ["workers", "Workers"],
];

function head(title: string, o: Pick<ShellOptions, "scriptSrc" | "styleHref">): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(o.styleHref)}">
<script src="${escapeHtml(o.scriptSrc)}" defer></script>
</head>`;
}

/**
 * The login form, styled like the dashboard. It is a plain form posting `token` to
 * `/skedulr/login`, so it works without JavaScript; with it, the client posts JSON instead
 * and shows a wrong token inline.
 */
export function loginShell(o: Omit<ShellOptions, "canLogOut" | "role">): string {
  return `${head("Skedulr — log in", o)}
<body>
<main class="login">
  <h1 class="brand"><span class="logo"></span>Skedulr</h1>
  <section class="panel">
    <div class="head"><h2>Log in</h2></div>
    <form class="body" id="login-form" method="post" action="/skedulr/login">
      <p class="muted small">This scheduler is protected. Enter the token it was started with
      (<code>SKEDULR_TOKEN</code>) or an API key.</p>
      <label>Token or key <input class="field" type="password" name="token" autocomplete="current-password" required autofocus></label>
      <p class="failed" id="login-msg" role="alert" hidden></p>
      <button class="btn primary" type="submit">Log in</button>
    </form>
  </section>
  <p class="muted small">Skedulr v${escapeHtml(o.version)}</p>
</main>
</body>
</html>`;
}

/** The `/skedulr` page. */
export function dashboardShell(o: ShellOptions): string {
  const tabs = TABS.map(([id, label]) =>
    `<a href="#/${id}" data-tab="${id}">${label}${
      id === "dead" ? ' <span class="badge s-dead" id="dead-badge" hidden></span>' : ""
    }</a>`
  ).join("");
  const admin = o.role === "admin";
  const pause = admin
    ? `<button class="btn sm" type="button" id="pause-all">Pause all</button>
    <button class="btn sm" type="button" id="resume-all">Resume all</button>`
    : `<span class="badge" id="role-badge" title="This key can${
      o.role === "read"
        ? " only read"
        : " submit, cancel and resubmit tasks, not change pools or schedules"
    }">${o.role === "read" ? "read only" : "submit"}</span>`;
  const logout = o.canLogOut
    ? `<form method="post" action="/skedulr/logout" id="logout-form"><button class="btn sm" type="submit">Log out</button></form>`
    : "";
  return `${head("Skedulr dashboard", o)}
<body data-role="${escapeHtml(o.role)}">
<header class="top">
  <div class="brand"><span class="logo"></span>Skedulr <small>v${
    escapeHtml(o.version)
  }</small></div>
  <div class="live" id="live" role="status"><span class="dot"></span><span id="live-text">connecting…</span></div>
  <div class="spacer"></div>
  <div class="actions">
    ${pause}
    ${logout}
  </div>
</header>
<nav class="tabs" id="tabs" aria-label="Views">${tabs}</nav>
<main>
  <h1 class="sr-only" id="view-title">Skedulr dashboard</h1>
  <div class="banner" id="banner" role="alert" hidden></div>
  <section class="counters" id="counters" aria-label="Tasks by status"></section>
  <div id="view"><div class="loading">Loading…</div></div>
  <div class="toasts" id="toasts" aria-live="polite"></div>
</main>
<noscript><p class="banner">The dashboard needs JavaScript. The JSON API is at
<a href="/skedulr/api/docs">/skedulr/api/docs</a>.</p></noscript>
</body>
</html>`;
}
