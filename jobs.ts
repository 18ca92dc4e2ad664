/**
 * @module jobs — example job handlers, loaded by `npm run worker` (SKEDULR_JOBS defaults to
 * ./jobs.ts). The default export maps a task type to its handler; the built-in `http` type
 * is always there. Handlers should be idempotent: a task can run again after a worker crash.
 *
 * The README's walkthrough uses these types, so what it shows happens on a fresh clone:
 * `send_email` succeeds (its first attempt fails with `flaky: true`), `fail` always fails
 * (a dead task), `sleep` waits `payload.ms` (something to cancel), `echo` returns its
 * payload, `report` stands in for the cron example's nightly job.
 */
import type { Handler } from "./src/mod.ts";

const sendEmail: Handler<{ to: string; subject?: string; flaky?: boolean }> = async (
  payload,
  ctx,
) => {
  ctx.signal.throwIfAborted();
  ctx.log("sending", { to: payload.to }); // GET /tasks/:id/logs shows it, per attempt
  if (payload.flaky && ctx.attempt === 1) throw new Error("SMTP 451: try again later");
  await new Promise((resolve) => setTimeout(resolve, 20)); // pretend to talk to SMTP
  return { delivered: payload.to, attempt: ctx.attempt };
};

const sleep: Handler<{ ms: number }> = (payload, ctx) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ slept: payload.ms }), payload.ms);
    ctx.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(ctx.signal.reason);
    });
  });

const fail: Handler<{ message?: string }> = (payload) => {
  throw new Error(payload?.message ?? "failed on purpose");
};

/** A schedule's type needs a handler like any other, or each firing would end dead. */
const report: Handler<{ name?: string } | null> = (payload, ctx) => ({
  report: payload?.name ?? "daily",
  generatedAt: new Date().toISOString(),
  attempt: ctx.attempt,
});

export default {
  send_email: sendEmail,
  sleep,
  fail,
  echo: (payload: unknown) => payload,
  report,
};
