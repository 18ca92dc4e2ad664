/**
 * @module callback-task — the built-in `callback` task type: the task a store creates when a
 * task with a `callback` ends in one of its statuses (core/callback.ts) POSTs
 * `{"event": "task.<status>", "task": <the final record>}` to the callback's URL.
 *
 * It is an `http` request in every way (http-task.ts, not a copy of it): the outbound policy
 * is checked again when it sends, it is signed (`Skedulr-Timestamp`, `Skedulr-Signature`)
 * and carries `Skedulr-Task-Id` (the callback task's id, `__cb_…`, which no submitted task
 * can have) and `Skedulr-Attempt`; a 2xx is success, any other status, a network error or
 * the timeout fails the attempt and the callback retries (core/callback.ts: 8 retries,
 * exponential back-off), then it is dead in the dead-letter list, resubmittable.
 */
import { PermanentError } from "../core/errors.ts";
import { CALLBACK_ID_PREFIX } from "../core/callback.ts";
import type { Handler } from "./middleware.ts";
import { httpTaskHandler, type HttpTaskOptions } from "./http-task.ts";

/** How long a receiver has to answer one attempt, unless the handler's options say. */
export const DEFAULT_CALLBACK_TIMEOUT_MS = 10_000;

export interface CallbackTaskOptions extends HttpTaskOptions {
  /** Per attempt (default {@link DEFAULT_CALLBACK_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** What a claimed callback task's payload holds (core/callback.ts `callbackPayload`). */
interface CallbackPayload {
  event: string;
  url: string;
  headers: Record<string, string>;
  task: unknown;
}

/**
 * The handler for task type `callback`, run in the callback pool (`callbacks` by default).
 * Use the signing key, policy and fetcher of the `http` type.
 *
 * @example
 * const policy = outboundPolicy("hooks.internal");
 * scheduler.register("callback", callbackTaskHandler({ signingKey: "secret", policy, fetcher: pinnedFetch }));
 */
export function callbackTaskHandler(options: CallbackTaskOptions = {}): Handler {
  const http = httpTaskHandler(options);
  const timeout = options.timeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS;
  return (payload: unknown, ctx) => {
    const p = payload as Partial<CallbackPayload> | null;
    // Only a store makes callbacks: a submitted task of this type could forge a record.
    if (!ctx.id.startsWith(CALLBACK_ID_PREFIX) || typeof p?.url !== "string" || !p.task) {
      throw new PermanentError(
        `Not a callback task: ${ctx.id} (callback tasks are made by the store when a task with a callback ends)`,
      );
    }
    const body = { event: p.event, task: p.task };
    return http({ url: p.url, method: "POST", headers: p.headers, body, timeout }, ctx);
  };
}
