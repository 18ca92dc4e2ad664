/**
 * @module new-key — a new API key and the `SKEDULR_KEYS` entry that admits it (what
 * `npm run keygen -- <name> <role>`, scripts/entry/keygen.ts, prints). The server is only ever told the
 * key's SHA-256, so the key is shown here once; keep it where the client keeps secrets.
 *
 *   $ bun scripts/entry/keygen.ts ci submit
 *   key:    skd_4Jx...          (give this to the client: Authorization: Bearer <key>)
 *   entry:  ci:submit:9f86d0... (append to SKEDULR_KEYS, comma-separated)
 */
import { API_ROLES, KEY_NAME, TOKEN_NAME } from "../../src/worker/access-config.ts";
import { sha256, toHex } from "../../routes/credentials.ts";

/** A new key: `skd_` and 32 random bytes in base64url (256 bits, no padding). */
export function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes));
  return `skd_${b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
}

/** The key and its `SKEDULR_KEYS` entry, or an error message naming the bad argument. */
export async function keygen(
  name: string | undefined,
  role: string | undefined,
): Promise<{ key: string; entry: string } | { error: string }> {
  if (!name || !KEY_NAME.test(name) || name === TOKEN_NAME) {
    return {
      error: `name: letters, digits, _ and - (1 to 64), not "${TOKEN_NAME}"; got ${
        JSON.stringify(name ?? "")
      }`,
    };
  }
  if (!API_ROLES.includes(role as never)) {
    return { error: `role: one of ${API_ROLES.join(", ")}; got ${JSON.stringify(role ?? "")}` };
  }
  const key = newKey();
  return { key, entry: `${name}:${role}:${toHex(await sha256(key))}` };
}
