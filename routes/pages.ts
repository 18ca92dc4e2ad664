/**
 * @module pages — the small self-contained HTML pages: API docs rendered from the OpenAPI
 * document, the placeholder `/skedulr` page and the login form. No scripts, no CDN. Each
 * page's content sits in a `<main>` landmark under one `<h1>` (axe-core checks the docs page
 * in test/browser/dashboard-a11y.test.ts).
 */

type Json = Record<string, any>;

/** The Content-Security-Policy of every page here: inline styles only, nothing else. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const STYLE =
  `body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d2330}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}
.op{border:1px solid #e2e5ea;border-radius:6px;margin:.75rem 0;padding:.5rem .75rem}
.m{display:inline-block;min-width:4.5rem;font:600 12px monospace;text-transform:uppercase}
.get{color:#0b7a3e}.post{color:#1554c0}.delete{color:#b3261e}code,pre{font:13px monospace}
pre{background:#f6f7f9;padding:.5rem;overflow:auto;max-height:20rem}table{border-collapse:collapse}
td,th{padding:.15rem .6rem;text-align:left;vertical-align:top}details summary{cursor:pointer}
form{display:flex;gap:.5rem}input{font:inherit;padding:.3rem}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${
    escapeHtml(title)
  }</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref as string | undefined;
  if (!ref) return schema;
  return doc.components?.schemas?.[ref.split("/").pop()!];
}

function operation(doc: Json, path: string, method: string, op: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const rows = params.map((p) =>
    `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${
      escapeHtml(p.description ?? "")
    }</td></tr>`
  ).join("");
  const bodySchema = resolve(doc, op.requestBody?.content?.["application/json"]?.schema);
  const responses = Object.entries(op.responses ?? {}).map(([code, r]) =>
    `<tr><td><code>${escapeHtml(code)}</code></td><td>${
      escapeHtml((r as Json).description ?? "")
    }</td></tr>`
  ).join("");
  return `<div class="op"><span class="m ${escapeHtml(method)}">${escapeHtml(method)}</span>
<code>${escapeHtml(path)}</code> — ${escapeHtml(op.summary ?? "")}${
    op.operationId ? ` <small>(<code>${escapeHtml(op.operationId)}</code>)</small>` : ""
  }
${rows ? `<table><tr><th>parameter</th><th>in</th><th>description</th></tr>${rows}</table>` : ""}
${
    bodySchema
      ? `<details><summary>request body${
        op.requestBody?.required ? "" : " (optional)"
      }</summary><pre>${escapeHtml(JSON.stringify(bodySchema, null, 2))}</pre></details>`
      : ""
  }
<details><summary>responses</summary><table><tr><th>status</th><th>meaning</th></tr>${responses}</table></details></div>`;
}

/** The docs page: every path of the document grouped by tag, with bodies and responses. */
export function docsPage(doc: Json): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const tag = (op as Json).tags?.[0] ?? "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operation(doc, path, method, op as Json));
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2>${escapeHtml(tag)}</h2>${ops.join("")}`);
  return page(
    `${doc.info.title} ${doc.info.version}`,
    `<h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
<p>${escapeHtml(doc.info.description ?? "")}</p>
<p>Machine-readable: <a href="/skedulr/api/openapi.json">openapi.json</a>.</p>
${sections.join("\n")}`,
  );
}

/** The placeholder `/skedulr` page until the dashboard mounts its own. */
export function indexPage(version: string): string {
  return page(
    "Skedulr",
    `<h1>Skedulr <small>${escapeHtml(version)}</small></h1><ul>
<li><a href="/skedulr/api/docs">API docs</a> (<a href="/skedulr/api/openapi.json">openapi.json</a>)</li>
<li><a href="/skedulr/api/stats">stats</a>, <a href="/skedulr/api/tasks">tasks</a>,
<a href="/skedulr/api/workers">workers</a></li>
<li><a href="/skedulr/metrics">metrics</a>, <a href="/skedulr/healthz">healthz</a></li></ul>`,
  );
}

/**
 * The login form (posts `token`, the token or an API key, to `/skedulr/login`); `failed`
 * true says the credential was wrong, a string says why else the login was refused.
 */
export function loginPage(failed: boolean | string = false): string {
  const problem = failed === true ? "Wrong token or key." : failed || "";
  return page(
    "Skedulr — log in",
    `<h1>Skedulr</h1>${problem ? `<p><strong>${escapeHtml(problem)}</strong></p>` : ""}
<form method="post" action="/skedulr/login"><label>Token or API key
<input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button></form>`,
  );
}
