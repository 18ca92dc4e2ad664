/**
 * `bun run worker` (or `deno task worker`): runs the pools, the timing wheel, the HTTP API
 * and the dashboard. Storage comes from REDIS_URL (the embedded store when unset); job
 * handlers from SKEDULR_JOBS (default ./jobs.ts). See the README for every variable.
 */
import { boot } from "./boot.ts";

await boot(true);
