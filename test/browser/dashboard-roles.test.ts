/**
 * @module dashboard-roles.test — the dashboard for a read-only API key in Chromium: the data
 * shows, no control the role cannot use is rendered, and the session is refused the action
 * the page hides (403 naming the role). Same set-up as dashboard.test.ts: a real
 * `bun run worker` with SKEDULR_TOKEN and SKEDULR_KEYS, Debian's Chromium.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { ready, startWorker, type WorkerProcess } from "../../scripts/tools/worker-process.ts";
import { eventually } from "../../scripts/tools/wait.ts";
import { makeKey } from "../helpers/keys.ts";
import { client, launch, shot, T, TOKEN, WORKER_ENV } from "./browser.ts";

describe("dashboard in Chromium with a read-only key", () => {
  let w: WorkerProcess;
  let browser: Browser;

  after(async () => {
    await browser?.close();
    await w?.stop("SIGKILL");
  });

  it("shows the data but no control the role cannot use; the API refuses them too", T, async () => {
    const reader = await makeKey("viewer", "read");
    browser = await launch();
    w = await ready(
      await startWorker({
        ...WORKER_ENV,
        SKEDULR_TOKEN: TOKEN,
        SKEDULR_KEYS: `${reader.entry.name}:read:${reader.entry.sha256}`,
      }),
    );
    const api = client(w, TOKEN);
    const running = await api("/tasks", { type: "forever", pool: "critical" });
    const dead = await api("/tasks", { type: "fails_once", maxRetries: 0 });
    const sched = await api("/tasks", { type: "echo", every: "5m" });
    await eventually(async () => (await api(`/tasks/${dead.id}`)).status === "dead", "dead");
    await eventually(async () => (await api(`/tasks/${running.id}`)).status === "running", "run");

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(8000);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(w.url);
    await page.fill('input[name="token"]', reader.key);
    await page.click('button[type="submit"]');
    await page.waitForSelector("#pools tr[data-pool=critical]");
    assert.match((await page.textContent("#role-badge")) ?? "", /read only/);
    const none = async (selector: string) =>
      assert.equal((await page.$$(selector)).length, 0, `${selector} is not shown`);
    await none("#pause-all");
    await none("#resume-all");
    await none("#pools button, #pools input");

    await page.goto(`${w.url}#/tasks`);
    await page.waitForSelector(`#tasks-table tr[data-id="${running.id}"]`);
    await none("#tasks-table button");
    await page.goto(`${w.url}#/dead`);
    await page.waitForSelector(`#dead-table tr[data-id="${dead.id}"]`);
    await none("#dead-table button");
    await none("#resubmit-all");
    await page.goto(`${w.url}#/tasks/${dead.id}`);
    await page.waitForSelector('#view .detail-head [data-status="dead"]');
    await none("#view .detail-head button");
    await page.goto(`${w.url}#/schedules`);
    await page.waitForSelector(`tr[data-schedule="${sched.id}"]`);
    await none("#schedules-table button");
    await shot(page, "read-only");

    // The session itself is refused what the page hides, naming the role it lacks.
    const refused = await page.evaluate(async () => {
      const r = await fetch("/skedulr/api/pause", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{}",
      });
      return { status: r.status, body: await r.json() };
    });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error.message, /needs the admin role; key "viewer" has the read/);
    assert.equal((await api("/stats")).pools.critical.paused, false);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
