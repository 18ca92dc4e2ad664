/**
 * `npm run keygen -- <name> <role>` (`bun scripts/entry/keygen.ts ci submit`): prints a new
 * API key and its `SKEDULR_KEYS` entry (see new-key.ts).
 */
import process from "node:process";
import { keygen } from "./new-key.ts";

const result = await keygen(process.argv[2], process.argv[3]);
if ("error" in result) {
  console.error(`usage: bun scripts/entry/keygen.ts <name> <read|submit|admin>\n${result.error}`);
  process.exit(2);
}
console.log(`key:    ${result.key}`);
console.log(`entry:  ${result.entry}`);
console.log(
  "Give the key to the client (Authorization: Bearer <key>, or the dashboard's login); add " +
    "the entry to SKEDULR_KEYS (comma-separated). The key is not stored anywhere: if it is " +
    "lost, make a new one.",
);
