/**
 * @module dashboard/style — the dashboard's stylesheet, served as `/skedulr/assets/dashboard.css`
 * (a file, not inline, so the page's CSP can forbid inline styles and scripts altogether).
 *
 * Status colours are dark enough for 12 px badge text on their own 12 % tint (WCAG AA 4.5:1,
 * each at least 5:1; test/browser/dashboard-a11y.test.ts runs axe-core on every view), and
 * every focusable element shows a 2 px focus ring when reached by keyboard.
 */

export const DASHBOARD_CSS = String.raw`
:root{--bg:#f5f6f8;--panel:#fff;--ink:#1b2230;--muted:#667085;--line:#e4e7ec;--accent:#2f5bd3;
--accent-ink:#fff;--ok:#126b3c;--bad:#b42d1c;--warn:#8f5500;--radius:10px;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
--s-queued:#2f5bd3;--s-scheduled:#6d4ad6;--s-waiting:#735a2c;--s-running:#07687a;
--s-succeeded:#126b3c;--s-retrying:#8f5500;--s-dead:#b42d1c;--s-cancelled:#596070;
--s-expired:#8a3b6b}
*{box-sizing:border-box}
[hidden]{display:none!important}
.sr-only{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.top :focus-visible{outline-color:#93b4ff}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
button,input,select{font:inherit;color:inherit}
code,.mono{font-family:var(--mono);font-size:12.5px}
header.top{background:#111827;color:#e5e7eb;display:flex;align-items:center;gap:12px;padding:10px 20px;flex-wrap:wrap}
.brand{font-weight:700;font-size:16px;letter-spacing:.2px;color:#fff;display:flex;align-items:center;gap:8px}
.brand .logo{width:22px;height:22px;border-radius:6px;background:linear-gradient(135deg,#4f7cff,#22c3a6)}
.brand small{font-weight:400;color:#9ca3af;font-size:12px}
.live{display:flex;align-items:center;gap:6px;font-size:12px;color:#9ca3af}
.live .dot{width:8px;height:8px;border-radius:50%;background:#6b7280}
.live.ok .dot{background:#22c55e;box-shadow:0 0 0 3px rgba(34,197,94,.2)}
.live.down .dot{background:#ef4444}.live.down{color:#fca5a5}
.top .spacer{flex:1}
.top .actions{display:flex;gap:8px;align-items:center}
.top form{margin:0}
nav.tabs{background:#fff;border-bottom:1px solid var(--line);display:flex;gap:2px;padding:0 14px;overflow-x:auto}
nav.tabs a{padding:11px 12px;color:var(--muted);border-bottom:2px solid transparent;white-space:nowrap;font-weight:500}
nav.tabs a:hover{color:var(--ink);text-decoration:none}
nav.tabs a.on{color:var(--ink);border-bottom-color:var(--accent)}
nav.tabs a:focus-visible{outline-offset:-2px}
nav.tabs .badge{margin-left:6px}
main{max-width:1240px;margin:0 auto;padding:18px 20px 60px}
.banner{margin:0 0 14px;padding:10px 14px;border-radius:8px;background:#fdecea;color:#8a1c0f;border:1px solid #f5c2bb}
.banner[hidden]{display:none}
h2{font-size:15px;margin:0;font-weight:600}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);margin-bottom:16px}
.panel>.head{display:flex;align-items:center;gap:10px;padding:12px 16px;border-bottom:1px solid var(--line);flex-wrap:wrap}
.panel>.head .sub{color:var(--muted);font-size:12.5px}
.panel>.head .grow{flex:1}
.panel>.body{padding:14px 16px}
.counters{display:grid;grid-template-columns:repeat(9,minmax(0,1fr));gap:10px;margin-bottom:16px}
.counter{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:10px 12px;display:block;color:inherit;position:relative;overflow:hidden}
.counter:hover{text-decoration:none;border-color:#c7cdd8}
.counter::before{content:"";position:absolute;left:0;top:0;bottom:0;width:3px;background:var(--c)}
.counter .label{font-size:12px;color:var(--muted);text-transform:capitalize}
.counter .value{font-size:22px;font-weight:650;font-variant-numeric:tabular-nums;margin-top:2px}
.counter.flash .value{animation:flash .8s ease-out}
@keyframes flash{from{color:var(--c)}to{color:inherit}}
.grid2{display:grid;grid-template-columns:minmax(0,1.45fr) minmax(0,1fr);gap:16px}
.grid2>.panel{margin-bottom:0}
.grid2{margin-bottom:16px}
table{width:100%;border-collapse:collapse}
th,td{padding:8px 12px;text-align:left;border-bottom:1px solid var(--line);vertical-align:middle}
th{font-size:11.5px;text-transform:uppercase;letter-spacing:.4px;color:var(--muted);font-weight:600;background:#fafbfc}
tr:last-child td{border-bottom:0}
tbody tr:hover{background:#fafbff}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
.id{font-family:var(--mono);font-size:12.5px;max-width:16ch;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;display:inline-block;vertical-align:bottom}
.err{font-family:var(--mono);font-size:12px;color:#8a1c0f;max-width:64ch;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.muted{color:var(--muted)}.small{font-size:12px}
.badge{display:inline-flex;align-items:center;gap:5px;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:550;background:color-mix(in srgb,var(--c,#596070) 12%,#fff);color:var(--c,#596070);white-space:nowrap}
.badge::before{content:"";width:6px;height:6px;border-radius:50%;background:currentColor}
.s-queued{--c:var(--s-queued)}.s-scheduled{--c:var(--s-scheduled)}.s-waiting{--c:var(--s-waiting)}
.s-running{--c:var(--s-running)}.s-succeeded{--c:var(--s-succeeded)}.s-retrying{--c:var(--s-retrying)}
.s-dead{--c:var(--s-dead)}.s-cancelled{--c:var(--s-cancelled)}.s-expired{--c:var(--s-expired)}.s-active{--c:var(--s-succeeded)}.s-paused{--c:var(--s-retrying)}
.btn{display:inline-flex;align-items:center;justify-content:center;gap:6px;border:1px solid #cfd5df;background:#fff;border-radius:7px;padding:5px 11px;cursor:pointer;font-size:13px;font-weight:500;white-space:nowrap;line-height:1.35}
.btn:hover{background:#f3f5f9}.btn:disabled{opacity:.5;cursor:not-allowed}
.btn.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-ink)}.btn.primary:hover{background:#264bb3}
.btn.danger{color:var(--bad);border-color:#efc0b9}.btn.danger:hover{background:#fdf0ee}
td.actions{display:flex;gap:6px;flex-wrap:wrap}
.graph svg{width:100%;max-width:620px;height:auto;display:block;margin:6px 0 10px}.graph .edge{stroke:#b9c1ce;stroke-width:1.5}.graph .node rect{fill:#fff;stroke:var(--c,#8a93a3);stroke-width:1.5}.graph .node.me rect{fill:#f3f5f9;stroke-width:2.5}.graph .node text{font-size:11px;fill:var(--c,#333)}.graph a:focus-visible rect{stroke-width:3}
.editor{padding:10px 14px;border-bottom:1px solid #e4e8ef}.editor textarea{width:100%;font:12px/1.45 ui-monospace,monospace;border:1px solid #cfd5df;border-radius:7px;padding:8px;box-sizing:border-box}.editor .row{display:flex;gap:8px;margin-top:8px}
.btn.armed{background:var(--bad);border-color:var(--bad);color:#fff}
.btn.sm{padding:3px 9px;font-size:12.5px}
.top .btn{background:#1f2937;border-color:#374151;color:#e5e7eb}.top .btn:hover{background:#273244}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;padding:12px 16px;border-bottom:1px solid var(--line)}
.chips{display:flex;flex-wrap:wrap;gap:6px;width:100%}
.chip{border:1px solid #d5dae3;background:#fff;border-radius:999px;padding:3px 10px;font-size:12.5px;cursor:pointer;color:var(--muted)}
.chip:hover{border-color:#aab3c2}
.chip.on{background:color-mix(in srgb,var(--c) 12%,#fff);border-color:var(--c);color:var(--c);font-weight:600}
.field{border:1px solid #cfd5df;border-radius:7px;padding:5px 9px;background:#fff;min-width:0}
.field:focus-visible{outline-offset:1px}
input.search{flex:1 1 220px}
input.size{width:72px}
.pager{display:flex;align-items:center;gap:10px;justify-content:flex-end;padding:10px 16px;border-top:1px solid var(--line);color:var(--muted);font-size:12.5px}
.empty{padding:34px 16px;text-align:center;color:var(--muted)}
.empty strong{display:block;color:var(--ink);font-size:14.5px;margin-bottom:4px}
.bar{height:6px;background:#eef0f4;border-radius:3px;overflow:hidden;min-width:60px}
.bar>i{display:block;height:100%;background:var(--s-running)}
.poolname{font-weight:600}
.inline{display:flex;gap:6px;align-items:center}.wrap{flex-wrap:wrap}.sep{width:8px}
tr.click{cursor:pointer}
.show-sm{display:none}
.tiles{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:10px;margin-bottom:14px}
.tile{background:#f8f9fb;border:1px solid var(--line);border-radius:8px;padding:8px 12px}
.tile .label{font-size:12px;color:var(--muted)}.tile .value{font-size:18px;font-weight:650;font-variant-numeric:tabular-nums}
.stack>.panel{margin-bottom:16px}.stack>.panel:last-child{margin-bottom:0}
.grid2>.panel{display:flex;flex-direction:column}
.grid2>.panel>.body{flex:1 1 auto;display:flex;flex-direction:column}
.chart{position:relative;flex:1 1 auto;min-height:236px}
.chart svg{display:block;position:absolute;left:0;top:0}
.chart .axis{font-size:10.5px;fill:#8a93a3}
.chart .grid{stroke:#edf0f4}
.chart .gap{fill:#f1f3f6}.chart .ok{fill:#2e9d63}.chart .bad{fill:#d9543f}
.chart .none{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;color:var(--muted);font-size:13px}
.legend{display:flex;gap:14px;font-size:12.5px;color:var(--muted)}
.legend i{display:inline-block;width:9px;height:9px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.legend .ok{background:#2e9d63}.legend .bad{background:#d9543f}
dl.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:6px 18px;margin:0}
dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;word-break:break-all}
pre.json,pre.stack{margin:0;background:#f7f8fa;border:1px solid var(--line);border-radius:8px;padding:10px 12px;font:12.5px/1.5 var(--mono);overflow:auto;max-height:360px;white-space:pre-wrap;word-break:break-word}
pre.stack{color:#7a1b0e;background:#fdf6f5;border-color:#f3d3cd}
.detail-head{display:flex;align-items:center;gap:12px;flex-wrap:wrap;margin-bottom:14px}
.detail-head h2{font-size:18px;margin:0;font-family:var(--mono);word-break:break-all}
.detail-head .grow{flex:1}
.attempt{border-top:1px solid var(--line);padding:10px 16px}
.attempt:first-child{border-top:0}
.attempt .row{display:flex;gap:12px;align-items:center;flex-wrap:wrap}
.attempt pre{margin-top:8px}
.log-attempt h3{margin:4px 0 6px}.log-attempt+.log-attempt{border-top:1px solid var(--line);padding-top:6px}
ol.log{list-style:none;margin:0 0 8px;padding:0;max-height:420px;overflow:auto}
.log-line{display:flex;gap:10px;align-items:baseline;padding:2px 0;font-size:13px}
.log-message{white-space:pre-wrap;word-break:break-word}.log-fields{color:var(--muted);word-break:break-all}
details summary{cursor:pointer;color:var(--accent);font-size:12.5px;margin-top:6px}
.progress{display:flex;align-items:center;gap:8px}.progress .bar{flex:1;max-width:220px}
.toasts{pointer-events:none;position:fixed;right:16px;bottom:16px;display:flex;flex-direction:column;gap:8px;z-index:10;max-width:min(420px,calc(100vw - 32px))}
.toast{background:#111827;color:#f3f4f6;padding:10px 14px;border-radius:8px;box-shadow:0 6px 20px rgba(0,0,0,.18);font-size:13px;word-break:break-word}
.toast.bad{background:#8a1c0f}
.hl{background:#fff8e1}
.login{max-width:380px;margin:12vh auto 0;padding:0 16px}
.login .panel>.body{display:flex;flex-direction:column;gap:12px}
.login label{display:flex;flex-direction:column;gap:6px;font-weight:500}
.login .brand{color:var(--ink);justify-content:center;margin:0 0 16px;font-size:20px}
.login .btn{padding:8px 12px;font-size:14px}
.login>p{text-align:center}
.login .failed{color:var(--bad);font-weight:500}
.loading{padding:30px;text-align:center;color:var(--muted)}
.note{font-size:12.5px;color:var(--muted);padding:8px 16px}
@media (max-width:1000px){.counters{grid-template-columns:repeat(4,minmax(0,1fr))}.grid2{grid-template-columns:minmax(0,1fr)}}
@media (max-width:640px){
main{padding:12px 10px 60px}header.top{padding:10px 12px}
.counters{grid-template-columns:repeat(4,minmax(0,1fr));gap:6px;margin-bottom:12px}
.counter{padding:6px 8px}.counter .label{font-size:11px}.counter .value{font-size:17px}
.hide-sm{display:none}.show-sm{display:inline-flex}
nav.tabs{padding:0 4px}nav.tabs a{padding:10px 8px;font-size:13px}
input.size{width:54px}.chart{min-height:190px}.sep{width:0}.panel{margin-bottom:12px}.grid2{gap:12px;margin-bottom:12px}
th,td{padding:7px 6px}
.panel>.head,.panel>.body,.filters{padding-left:12px;padding-right:12px}
.top .actions .btn{padding:4px 8px;font-size:12px}
dl.kv{gap:5px 12px}
.btn.sm{padding:3px 8px}
#pools thead{display:none}
#pools tr{display:flex;flex-wrap:wrap;align-items:center;gap:6px 14px;padding:10px 12px;border-bottom:1px solid var(--line)}
#pools tr:last-child{border-bottom:0}
#pools td{border:0;padding:0}
#pools td.poolname{flex:1 1 auto;display:flex;align-items:center;gap:8px}
#pools td.poolname .show-sm{margin:0}
#pools td[data-label]::after{content:attr(data-label);color:var(--muted);font-size:12px}
#pools td.controls{flex:1 1 100%}#pools td.controls .sep{flex:1}
.toasts{left:12px;right:12px;bottom:12px;max-width:none}
.id{max-width:9ch}
}
`;
