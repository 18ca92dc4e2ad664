/**
 * Example job handlers, loaded by `bun run worker` (SKEDULR_JOBS defaults to ./jobs.ts).
 * The default export maps a task type to its handler; the built-in `http` type is always
 * there. Handlers should be idempotent: a task can run again after a worker crash.
 */
import type { Handler } from "./src/mod.ts";

const sendEmail: Handler<{ to: string; subject?: string; flaky?: boolean }> = async (
  payload,
  ctx,
) => {
  ctx.signal.throwIfAborted();
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

export default { send_email: sendEmail, sleep, fail, echo: (payload: unknown) => payload };
