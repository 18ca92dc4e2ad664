/**
 * @module browser — helpers of the dashboard's browser tests: launching Debian's Chromium
 * (failing loudly with the install hint when it is missing), an API client, screenshots,
 * and the worker environment the tests run against.
 */
import { existsSync, mkdirSync } from "node:fs";
import process from "node:process";
import { type Browser, chromium, type Page } from "playwright-core";
import type { WorkerProcess } from "../../scripts/tools/worker-process.ts";

export const CHROMIUM = process.env.SKEDULR_CHROMIUM ?? "/usr/bin/chromium";
export const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const ARTIFACTS = "test-artifacts";
export const XSS = "<img src=x onerror=alert(1)>";
export const XSS_FLAG = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;
export const STATUSES = [
  "queued",
  "scheduled",
  "waiting",
  "running",
  "succeeded",
  "retrying",
  "dead",
  "cancelled",
  "expired",
];
/** Per-test limit (Bun's default is 5 s; a cold start of Chromium plus a worker takes ~2 s). */
export const T = { timeout: 20_000 };
export const TOKEN = "dashboard-test-token-0123456789";
// Embedded store whatever the caller's environment says: the suite owns its data.
export const WORKER_ENV = {
  SKEDULR_JOBS: "test/browser/fixtures/jobs.ts",
  SKEDULR_DEMO: "0",
  SKEDULR_POOLS: "default=4,critical=2,reports=1",
  REDIS_URL: "",
  UPSTASH_REDIS_REST_URL: "",
  UPSTASH_REDIS_REST_TOKEN: "",
};

export async function launch(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: the dashboard's browser tests need it. ` +
        "Install it with `apt-get update && apt-get install -y chromium` (or set SKEDULR_CHROMIUM).",
    );
  }
  return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

export function client(w: WorkerProcess, token?: string) {
  const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  return async (path: string, body?: unknown): Promise<any> => {
    const r = await fetch(`${w.url}/api${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await r.json();
    if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(data)}`);
    return data;
  };
}

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/dashboard-${name}.png`, fullPage });
}

export async function counter(page: Page, status: string): Promise<number> {
  const text = await page.textContent(`[data-counter="${status}"] .value`);
  return Number(text?.replace(/,/g, ""));
}

/** Clicks a two-step (arm, then confirm) button. */
export async function confirmClick(page: Page, selector: string): Promise<void> {
  await page.click(selector);
  await page.waitForSelector(`${selector}.armed`);
  await page.click(selector);
}
