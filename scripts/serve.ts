/**
 * `bun run serve` (or `deno task serve`): the HTTP API and dashboard without pools or wheel,
 * for an API-only node in front of the same storage as the workers.
 */
import { boot } from "./boot.ts";

await boot(false);
