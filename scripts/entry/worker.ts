/**
 * @module worker — `npm run worker` (or `npx deno task worker`): runs the pools, the timing
 * wheel, the HTTP API and the dashboard. Storage comes from REDIS_URL (the embedded store when
 * unset); job handlers from SKEDULR_JOBS (default ./jobs.ts). See the README for every variable.
 */
import { handleEntryArgs } from "./entry-args.ts";
import { stopWithWrapper } from "./parent-watch.ts";
import { boot } from "./boot.ts";

handleEntryArgs("worker"); // --help, --version: print and exit before anything starts
stopWithWrapper();
await boot(true);
