/**
 * @module cloudflare-worker — the Cloudflare Workers entry (`wrangler.toml` main): the API
 * and dashboard over Redis REST, one app per request (see cloudflare-handler.ts).
 */
import { type Env, handle } from "./cloudflare-handler.ts";

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return handle(request, env);
  },
};
