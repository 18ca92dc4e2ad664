/**
 * @module dashboard.test — the dashboard at /skedulr in a real browser: playwright-core drives
 * Debian's Chromium against real `bun run worker` processes (embedded store), and every
 * outcome is checked through the HTTP API. Screenshots of the main views go to
 * test-artifacts/. Chromium missing is a failure with the install hint, never a skip.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import {
  client,
  confirmClick,
  counter,
  launch,
  shot,
  STATUSES,
  T,
  TOKEN,
  WORKER_ENV,
  XSS,
  XSS_FLAG,
} from "./browser.ts";

describe("dashboard in Chromium (bun run worker, no token)", () => {
  let w: WorkerProcess;
  let browser: Browser;
  let page: Page;
  let api: ReturnType<typeof client>;
  const dialogs: string[] = [];
  const problems: string[] = [];
  const taskIs = (id: string, status: string) =>
    eventually(async () => (await api(`/tasks/${id}`)).status === status, `${id} ${status}`, 8000);

  // Set up lazily inside the first test rather than in a hook: hooks get Bun's 5 s limit,
  // and a failing hook would not fail the tests. Every test awaits it, so a missing
  // Chromium fails each one with the install hint.
  let setup: Promise<void> | undefined;
  const started = () =>
    setup ??= (async () => {
      browser = await launch();
      w = await ready(await startWorker(WORKER_ENV));
      api = client(w);
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // Fail a wait well inside the test's limit, with playwright's own message.
      page.setDefaultTimeout(8000);
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      // CSP violations and failed script requests surface as console errors.
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(`console: ${m.text()}`);
      });
    })();
  after(async () => {
    await browser?.close();
    // SIGKILL: the embedded store has nothing to drain, and sleeping handlers would hold a
    // graceful stop for its whole shutdown timeout.
    await w?.stop("SIGKILL");
  });

  it("loads with live counters for every status", T, async () => {
    await started();
    const res = await page.goto(w.url);
    assert.equal(res?.status(), 200);
    assert.match(res?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
    for (const s of STATUSES) {
      await page.waitForSelector(`[data-counter="${s}"] .value`);
      assert.equal(await counter(page, s), 0, s);
    }
    await page.waitForSelector("#live.ok");
    await page.waitForSelector("#pools tr[data-pool=reports]");
  });

  it("moves the counters when tasks are submitted over HTTP, without a reload", T, async () => {
    await started();
    await page.evaluate(() => ((window as any).__sameDocument = true));
    await api(
      "/tasks/batch",
      Array.from({ length: 5 }, (_, i) => ({ type: "echo", payload: { i } })),
    );
    await api("/tasks", { type: "echo", delay: "1h", payload: { later: true } });
    await page.waitForFunction(
      () =>
        document.querySelector('[data-counter="succeeded"] .value')?.textContent === "5" &&
        document.querySelector('[data-counter="scheduled"] .value')?.textContent === "1",
      null,
      { timeout: 6000 },
    );
    assert.equal(await page.evaluate(() => (window as any).__sameDocument), true);
    await page.waitForSelector("#chart svg g[data-at] rect.ok");
    await shot(page, "overview");
  });

  it(
    "with the event stream open, reads only the stats backstop while nothing changes, and refreshes within 2 s of a change",
    T,
    async () => {
      await started();
      await page.goto(`${w.url}#/tasks`);
      await page.waitForSelector("#tasks-table");
      const seen: { path: string; at: number }[] = [];
      const count = (r: { url(): string }) => {
        if (!r.url().includes("/skedulr/api/") || r.url().includes("/api/events")) return;
        seen.push({ path: new URL(r.url()).pathname, at: Date.now() });
      };
      page.on("request", count);
      try {
        // Settled: the stream is open and the reads its opening asked for are done.
        await page.waitForFunction(() => (window as any).__skedulrStreaming === true);
        const quietFrom = Date.now();
        await eventually(() => Date.now() - quietFrom >= 8_000 || null, "8 s of quiet", 10_000);
        // Only the stats backstop (every 5 s: pools and workers are no task events).
        const quiet = seen.filter((r) => r.at >= quietFrom + 1_500);
        assert.ok(quiet.length <= 2, `${quiet.map((r) => r.path)} while nothing happened`);
        assert.ok(quiet.every((r) => r.path.endsWith("/stats")), quiet.map((r) => r.path).join());
        const before = await counter(page, "succeeded");
        const submitted = Date.now();
        await api("/tasks", { type: "echo", payload: { stream: true } });
        await page.waitForFunction(
          (n) =>
            Number(document.querySelector('[data-counter="succeeded"] .value')?.textContent) > n,
          before,
          { timeout: 4_000 },
        );
        const took = Date.now() - submitted;
        assert.ok(took <= 2_500, `the counter moved ${took} ms after the submit`);
        // Still at most one request a second while things happen.
        const busy = seen.filter((r) => r.at >= submitted);
        const span = Math.max(1, (Date.now() - submitted) / 1000);
        assert.ok(busy.length <= Math.ceil(span) + 1, `${busy.length} requests in ${span} s`);
      } finally {
        page.off("request", count);
      }
    },
  );

  it(
    "without the event stream, polls at most once a second, stats at least every 2 s",
    T,
    async () => {
      await started();
      const blocked = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      try {
        // An API that cannot stream (a proxy that buffers, an old server): the page polls.
        await blocked.route("**/skedulr/api/events**", (r) => r.abort());
        await blocked.goto(`${w.url}#/tasks`);
        await blocked.waitForSelector("#tasks-table");
        const seen: { path: string; at: number }[] = [];
        const stats: number[] = [];
        blocked.on("request", (r) => {
          if (!r.url().includes("/skedulr/api/") || r.url().includes("/api/events")) return;
          const path = new URL(r.url()).pathname;
          seen.push({ path, at: Date.now() });
          if (path.endsWith("/stats")) stats.push(Date.now());
        });
        // The window ends when the page has asked for stats 4 times (a condition, not a sleep).
        await eventually(() => stats.length >= 4, "4 stats requests", 12_000);
        const gaps = stats.slice(1).map((at, i) => at - stats[i]);
        for (const gap of gaps) assert.ok(gap <= 2_300, `stats every ${gaps.join(", ")} ms`);
        const window = (stats[stats.length - 1] - stats[0]) / 1000;
        const between = seen.filter((r) => r.at >= stats[0] && r.at <= stats[stats.length - 1]);
        assert.ok(
          between.length <= Math.ceil(window) + 1,
          `${between.length} API requests in ${window.toFixed(1)} s: ${between.map((r) => r.path)}`,
        );
      } finally {
        await blocked.close();
      }
    },
  );

  it("lists dead tasks with their last error; Resubmit one and all matching work", T, async () => {
    await started();
    const { id } = await api("/tasks", { type: "fails_once", maxRetries: 0, payload: { n: 42 } });
    await taskIs(id, "dead");
    await page.click('a[data-tab="dead"]');
    const row = `#dead-table tr[data-id="${id}"]`;
    await page.waitForSelector(row);
    assert.match((await page.textContent(row)) ?? "", /first run fails: upstream returned 503/);
    await shot(page, "dead-letters");
    await page.click(`${row} button[data-resubmit="${id}"]`);
    await taskIs(id, "succeeded");
    await page.waitForSelector(row, { state: "detached" });

    // Resubmit all matching the filter: only the dead tasks of pool critical.
    const specs = [{ pool: "critical" }, { pool: "critical" }, { pool: "default" }];
    const ids = await Promise.all(specs.map(async (s) => {
      const { id } = await api("/tasks", { type: "fails_once", maxRetries: 0, ...s });
      await taskIs(id, "dead");
      return id;
    }));
    await page.selectOption('select[name="pool"]', "critical");
    await page.waitForFunction(() =>
      document.querySelectorAll("#dead-table tbody tr").length === 2
    );
    await confirmClick(page, "#resubmit-all");
    await taskIs(ids[0], "succeeded");
    await taskIs(ids[1], "succeeded");
    assert.equal((await api(`/tasks/${ids[2]}`)).status, "dead", "outside the filter: untouched");
  });

  it("cancels a long-running task from the table and from the detail view", T, async () => {
    await started();
    const one = await api("/tasks", { type: "forever", pool: "critical" });
    const two = await api("/tasks", { type: "forever", pool: "critical" });
    await taskIs(one.id, "running");
    await taskIs(two.id, "running");
    await page.click('a[data-tab="tasks"]');
    await page.click('[data-chip="running"]');
    await page.waitForSelector(`#tasks-table tr[data-id="${one.id}"]`);
    await confirmClick(page, `button[data-cancel="${one.id}"]`);
    await taskIs(one.id, "cancelled");

    await page.goto(`${w.url}#/tasks/${two.id}`);
    await page.waitForSelector('#view .detail-head [data-status="running"]');
    await confirmClick(page, `button[data-cancel="${two.id}"]`);
    await taskIs(two.id, "cancelled");
    await page.waitForSelector('#view .detail-head [data-status="cancelled"]');
    assert.match((await page.textContent("#view")) ?? "", /cancelled from the dashboard/);
  });

  it("shows a task's workflow parents and children as links", T, async () => {
    await started();
    // One batch, so both wait on the parent (a task submitted after its parent ended never
    // waits, and is not its child).
    const run = `wf-${Date.now()}`;
    const { tasks } = await api("/tasks/batch", [
      { id: `${run}-parent`, type: "echo", payload: { step: 1 } },
      { id: `${run}-child`, type: "echo", dependsOn: [`${run}-parent`] },
      { id: `${run}-fallback`, type: "echo", onFailureOf: `${run}-parent` },
    ]);
    const [parent, child, fallback] = tasks;
    await taskIs(child.id, "succeeded");
    await page.goto(`${w.url}#/tasks/${child.id}`);
    await page.waitForSelector(`#parents a[href="#/tasks/${parent.id}"]`);
    // The graph: the parent, succeeded, as a link; then from the parent, both children.
    await page.waitForSelector(`#workflow-graph a[data-node="${parent.id}"] .s-succeeded`);
    await page.click(`#parents a[href="#/tasks/${parent.id}"]`);
    await page.waitForSelector(`#children a[href="#/tasks/${child.id}"]`);
    await page.waitForSelector(`#children a[href="#/tasks/${fallback.id}"]`);
    assert.match((await page.textContent("#children")) ?? "", /onFailureOf.*cancelled/s);
    await page.waitForSelector(`#workflow-graph a[data-node="${fallback.id}"] .s-cancelled`);
    await page.click(`#workflow-graph a[data-node="${child.id}"]`);
    await page.waitForSelector(`#workflow-graph a[data-node="${parent.id}"]`);
    assert.match(page.url(), new RegExp(`#/tasks/${child.id}$`));
  });

  it("narrows the table with status chips, type, pool and free text", T, async () => {
    await started();
    const needle = `needle-${Date.now()}`;
    const { id } = await api("/tasks", { type: "sleep", payload: { ms: 10, needle } });
    await taskIs(id, "succeeded");
    await page.goto(`${w.url}#/tasks`);
    const rows = "#tasks-table tbody tr";
    const column = (n: number) =>
      page.$$eval(`${rows} td:nth-child(${n})`, (tds) => tds.map((td) => td.textContent));
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 10, rows);
    const all = await page.$$(rows);

    // Each filter must show exactly the known, non-empty set the API holds for it.
    const ids = async (query: string) =>
      ((await api(`/tasks?${query}&limit=1000`)).tasks as { id: string }[]).map((t) => t.id)
        .sort();
    const shown = () =>
      page.$$eval(rows, (trs) => trs.map((tr) => tr.getAttribute("data-id") ?? "").sort());
    const echo = await ids("type=echo");
    assert.ok(echo.length > 0, "echo tasks exist");
    await page.fill('input[name="type"]', "echo");
    await page.waitForFunction(
      ([sel, n]) => document.querySelectorAll(sel as string).length === n,
      [rows, Math.min(echo.length, 25)] as const,
    );
    if (echo.length <= 25) assert.deepEqual(await shown(), echo);
    assert.deepEqual(new Set(await column(2)), new Set(["echo"]));
    assert.ok((await page.$$(rows)).length < all.length);

    await page.fill('input[name="type"]', "");
    await page.click('[data-chip="cancelled"]');
    await page.waitForFunction(
      (sel) => {
        const badges = [...document.querySelectorAll(sel)];
        return badges.length >= 2 && badges.every((b) => b.textContent === "cancelled");
      },
      `${rows} td:nth-child(4) .badge`,
    );
    await page.click('[data-chip="all"]');
    const critical = await ids("pool=critical");
    assert.ok(critical.length > 0, "tasks in pool critical exist");
    await page.selectOption('select[name="pool"]', "critical");
    await page.waitForFunction(
      ([sel, n]) => document.querySelectorAll(sel as string).length === n,
      [rows, Math.min(critical.length, 25)] as const,
    );
    assert.deepEqual(new Set(await column(3)), new Set(["critical"]));
    if (critical.length <= 25) assert.deepEqual(await shown(), critical);
    await page.selectOption('select[name="pool"]', "");
    await page.fill('input[name="q"]', needle);
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 1, rows);
    assert.equal(await page.getAttribute(rows, "data-id"), id);
    assert.match(page.url(), new RegExp(`q=${needle}`), "filters are kept in the address");
    await page.click("text=Clear filters");
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 10, rows);
    await shot(page, "tasks");
  });

  it("renders an XSS payload and error as text; no script runs, no dialog opens", T, async () => {
    await started();
    const { id } = await api("/tasks", {
      type: "explode",
      maxRetries: 0,
      payload: { message: XSS, html: XSS_FLAG },
    });
    await taskIs(id, "dead");
    await page.goto(`${w.url}#/tasks/${id}`);
    await page.waitForSelector("#task-payload");
    await page.waitForSelector('#view .attempt [data-status="dead"]');
    assert.equal(await page.textContent("#task-error"), XSS);
    const payload = JSON.parse((await page.textContent("#task-payload")) ?? "null");
    assert.deepEqual(payload, { message: XSS, html: XSS_FLAG });
    await shot(page, "task-detail");
    await page.click('a[data-tab="dead"]');
    await page.waitForSelector(`#dead-table tr[data-id="${id}"] .err`);
    assert.equal(await page.textContent(`#dead-table tr[data-id="${id}"] .err`), XSS);
    assert.equal(await page.locator("img, script:not([src])").count(), 0);
    assert.equal(await page.evaluate(() => (window as any).__xss), undefined);
    assert.deepEqual(dialogs, []);
  });

  it("shows a task's log lines per attempt, markup as text", T, async () => {
    await started();
    const { id } = await api("/tasks", {
      type: "chatty",
      maxRetries: 1,
      backoff: { type: "fixed", delay: "10ms" },
      payload: { note: XSS_FLAG },
    });
    await taskIs(id, "succeeded");
    await page.goto(`${w.url}#/tasks/${id}`);
    await page.waitForSelector('#task-log .log-attempt[data-attempt="2"]');
    const runs = await page.$$eval("#task-log .log-attempt", (els) =>
      els.map((el) => ({
        attempt: el.getAttribute("data-attempt"),
        lines: [...el.querySelectorAll(".log-message")].map((m) => m.textContent),
        fields: [...el.querySelectorAll(".log-fields")].map((m) => m.textContent),
      })));
    assert.deepEqual(runs, [
      { attempt: "1", lines: ["attempt 1 starts", XSS_FLAG], fields: ['{"attempt":1}'] },
      { attempt: "2", lines: ["attempt 2 starts", XSS_FLAG], fields: ['{"attempt":2}'] },
    ]);
    assert.equal(await page.locator("#task-log img, #task-log script").count(), 0);
    assert.equal(await page.evaluate(() => (window as any).__xss), undefined);
    await shot(page, "task-log");
  });

  it("pauses, resumes and resizes pools; the change takes effect", T, async () => {
    await started();
    await page.goto(`${w.url}#/overview`);
    const stats = () => api("/stats");
    await page.click('button[data-toggle="reports"]');
    await eventually(async () => (await stats()).pools.reports.paused, "reports paused");
    await page.waitForSelector('tr[data-pool="reports"] td.hide-sm [data-status="paused"]');
    const held = await api("/tasks", { type: "echo", pool: "reports", payload: { held: true } });
    // A task in another pool that ran after it proves dispatch went on without it.
    const probe = await api("/tasks", { type: "echo", payload: { probe: true } });
    await taskIs(probe.id, "succeeded");
    assert.equal((await api(`/tasks/${held.id}`)).status, "queued", "paused pool starts nothing");
    await page.click('button[data-toggle="reports"]');
    await taskIs(held.id, "succeeded");
    assert.equal((await stats()).pools.reports.paused, false);

    // Typed once: the table's poll must neither clobber the value nor take the focus away.
    await page.fill('input[data-size="reports"]', "3");
    // Two stats reads (the table re-renders on each) between typing and Set: a task's events
    // make the page read them.
    for (let i = 0; i < 2; i++) {
      const read = page.waitForResponse((r) => r.url().endsWith("/api/stats"));
      await api("/tasks", { type: "echo", payload: { nudge: i } });
      await read;
    }
    assert.equal(await page.inputValue('input[data-size="reports"]'), "3");
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute("data-size")),
      "reports",
    );
    await page.click('button[data-set="reports"]');
    await eventually(async () => (await stats()).pools.reports.size === 3, "reports size 3");
    await api(
      "/tasks/batch",
      Array.from({ length: 3 }, () => ({ type: "sleep", pool: "reports", payload: { ms: 4000 } })),
    );
    await eventually(async () => (await stats()).pools.reports.running === 3, "3 running");

    await page.click("#pause-all");
    await eventually(async () => {
      const pools = Object.values((await stats()).pools) as { paused: boolean }[];
      return pools.every((p) => p.paused);
    }, "all pools paused");
    await page.waitForSelector("#pause-all:disabled");
    await shot(page, "pools-paused");
    await page.click("#resume-all");
    await eventually(async () => {
      const pools = Object.values((await stats()).pools) as { paused: boolean }[];
      return pools.every((p) => !p.paused);
    }, "all pools resumed");
  });

  it("pauses, resumes, runs now and edits a schedule from its row", T, async () => {
    await started();
    const sched = await api("/tasks", { type: "echo", id: "digest", every: "1h" });
    await page.goto(`${w.url}#/schedules`);
    await page.waitForSelector(`tr[data-schedule="${sched.id}"]`);
    await page.click(`button[data-toggle="${sched.id}"]`);
    await page.waitForSelector(`[data-paused="${sched.id}"]`);
    assert.equal((await api(`/schedules/${sched.id}`)).paused, true);
    await page.click(`button[data-toggle="${sched.id}"]`);
    await page.waitForSelector(`[data-paused="${sched.id}"]`, { state: "detached" });
    assert.equal((await api(`/schedules/${sched.id}`)).paused, false);
    await page.click(`button[data-trigger="${sched.id}"]`);
    await eventually(async () => {
      const { tasks } = await api(`/tasks?type=echo&limit=50`);
      return tasks.some((t: { scheduleId: string; status: string }) =>
        t.scheduleId === sched.id && t.status === "succeeded"
      );
    }, "the triggered run to succeed");
    await page.click(`button[data-edit="${sched.id}"]`);
    const spec = JSON.parse(await page.inputValue("#schedule-spec"));
    assert.equal(spec.every, 3_600_000);
    await page.fill("#schedule-spec", JSON.stringify({ ...spec, every: "30m" }));
    await page.click(`button[data-save="${sched.id}"]`);
    await eventually(async () => (await api(`/schedules/${sched.id}`)).everyMs === 1_800_000);
    await page.waitForSelector(`[data-editing="${sched.id}"]`, { state: "detached" });
    await confirmClick(page, `button[data-remove="${sched.id}"]`);
    await page.waitForSelector(`tr[data-schedule="${sched.id}"]`, { state: "detached" });
    // Leave the view: a later visit of the same hash would not load it afresh.
    await page.click('a[data-tab="workers"]');
  });

  it("shows schedules and workers, and fits a phone's width", T, async () => {
    await started();
    const sched = await api("/tasks", { type: "echo", every: "5m", payload: { tick: true } });
    await page.goto(`${w.url}#/schedules`);
    await page.waitForSelector(`tr[data-schedule="${sched.id}"]`);
    await shot(page, "schedules");
    await confirmClick(page, `button[data-remove="${sched.id}"]`);
    await page.waitForSelector(`tr[data-schedule="${sched.id}"]`, { state: "detached" });
    assert.deepEqual((await api("/schedules")).schedules, []);
    await page.click('a[data-tab="workers"]');
    await page.waitForSelector("#workers-table tr[data-worker]");
    await shot(page, "workers");

    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(w.url);
    await phone.waitForSelector("#pools tr[data-pool=reports]");
    await phone.waitForSelector("#chart svg");
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(overflow <= 390, `page is ${overflow}px wide at 390px`);
    await shot(phone, "phone");
    await phone.goto(`${w.url}#/tasks`);
    await phone.waitForSelector("#tasks-table");
    await shot(phone, "phone-tasks");
    await phone.close();
  });

  it("shows a busy flow key beside the pools and why a queued task waits", T, async () => {
    await started();
    const flowControl = { key: "browser-key", parallelism: 1 };
    const one = await api("/tasks", { type: "forever", flowControl });
    const two = await api("/tasks", { type: "forever", flowControl });
    await taskIs(one.id, "running");
    await page.goto(w.url);
    const row = '#flow-keys tr[data-flow-key="browser-key"]';
    await page.waitForSelector(row);
    await eventually(async () => /1 \/ 1\s*1/.test((await page.textContent(row)) ?? ""));
    await page.goto(`${w.url}#/tasks/${two.id}`);
    await page.waitForSelector('#view [data-waiting="parallelism"]');
    await page.goto(`${w.url}#/tasks?status=queued`);
    await page.waitForSelector(`#tasks-table tr[data-id="${two.id}"] [data-waiting="parallelism"]`);
    for (const t of [two, one]) {
      await api(`/tasks/${t.id}/cancel`, {});
      await taskIs(t.id, "cancelled");
    }
  });

  it("logged no script errors or CSP violations", T, async () => {
    await started();
    assert.deepEqual(problems, []);
  });

  it("says so when the API goes away, and recovers when it is back", T, async () => {
    await started();
    await page.goto(`${w.url}#/overview`);
    await page.waitForSelector("#live.ok");
    await w.stop("SIGKILL");
    await page.waitForSelector("#banner:not([hidden])", { timeout: 5000 });
    assert.match((await page.textContent("#banner")) ?? "", /Cannot reach the Skedulr API/);
    await page.waitForSelector("#live.down");
    w = await ready(await startWorker({ ...WORKER_ENV, PORT: new URL(w.url).port }));
    await page.waitForSelector("#banner[hidden]", { state: "attached", timeout: 5000 });
    await page.waitForSelector("#live.ok");
  });
});

describe("dashboard in Chromium with SKEDULR_TOKEN", () => {
  let w: WorkerProcess;
  let browser: Browser;

  after(async () => {
    await browser?.close();
    await w?.stop("SIGKILL");
  });

  it("asks for the token first, then works through the cookie", T, async () => {
    browser = await launch();
    w = await ready(await startWorker({ ...WORKER_ENV, SKEDULR_TOKEN: TOKEN }));
    const noAuth = await fetch(`${w.url}/api/dashboard/throughput`);
    assert.equal(noAuth.status, 401, "the dashboard's own endpoints need the token too");
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const res = await page.goto(w.url);
    assert.equal(res?.status(), 401);
    await page.waitForSelector('input[name="token"]');
    assert.equal(await page.$("#counters"), null, "no dashboard before login");
    await shot(page, "login");
    await page.fill('input[name="token"]', "wrong-token-wrong-token");
    await page.click('button[type="submit"]');
    await page.waitForSelector("text=Wrong token");
    await page.fill('input[name="token"]', TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForSelector('[data-counter="queued"] .value');
    // A change through the cookie: same-origin fetch passes the API's CSRF check.
    await page.click('button[data-toggle="reports"]');
    const api = client(w, TOKEN);
    await eventually(async () => (await api("/stats")).pools.reports.paused, "paused via cookie");
    await page.click('button[data-toggle="reports"]');
    await eventually(async () => !(await api("/stats")).pools.reports.paused, "resumed");
    await page.click("#logout-form button");
    await page.waitForSelector('input[name="token"]');
    assert.equal(await page.$("#counters"), null, "logged out");
    await page.close();
  });
});
