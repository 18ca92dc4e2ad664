/**
 * @module serve — `npm run serve` (or `npx deno task serve`): the HTTP API and dashboard
 * without pools or wheel, for an API-only node in front of the same storage as the workers.
 */
import { handleEntryArgs } from "./entry-args.ts";
import { stopWithWrapper } from "./parent-watch.ts";
import { boot } from "./boot.ts";

handleEntryArgs("serve"); // --help, --version: print and exit before anything starts
stopWithWrapper();
await boot(false);
