/**
 * @module cloudflare-worker — the Cloudflare Workers entry (`wrangler.toml` main): the API
 * and dashboard over Redis REST, one app per request (see cloudflare-handler.ts), and, with
 * SKEDULR_EDGE_POOLS, the edge deliverer (the `Deliverer` Durable Object) and its cron
 * trigger, the backstop that re-arms it every minute.
 */
import { checkEnv, type Env, handle } from "./cloudflare-handler.ts";
import { type ExecutionContextLike, tellDeliverer } from "./cloudflare-edge.ts";
import { parseEdgeConfig } from "../../src/worker/edge-config.ts";

export { Deliverer } from "./cloudflare-deliverer.ts";

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContextLike): Promise<Response> {
    return handle(request, env, ctx);
  },

  scheduled(_controller: unknown, env: Env, ctx: ExecutionContextLike): void {
    const problem = checkEnv(env);
    if (problem) {
      console.error(`skedulr: cron trigger: Worker configuration: ${problem}`);
      return;
    }
    // No edge pools: nothing to deliver, and the trigger costs nothing.
    if (!parseEdgeConfig(env).config || !env.DELIVERER) return;
    ctx.waitUntil(tellDeliverer(env.DELIVERER, env.SKEDULR_PREFIX?.trim() || "skedulr", "tick"));
  },
};
