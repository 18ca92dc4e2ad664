/**
 * @module credentials — the API's credentials: `SKEDULR_TOKEN` (named `token`, role admin)
 * and named keys with roles, each known only by its SHA-256.
 *
 * A candidate is hashed once and compared with every credential's hash in constant time:
 * the XOR loop covers all 32 bytes of every credential and never exits early, so the time
 * taken says nothing about which byte, or which credential, came close.
 */
import { API_ROLES, type ApiKeyEntry, type ApiRole, TOKEN_NAME } from "../src/mod.ts";

export type { ApiKeyEntry, ApiRole } from "../src/mod.ts";

/** One credential as the API knows it. */
export interface Credential {
  name: string;
  role: ApiRole;
  /** SHA-256 of the secret. */
  hash: Uint8Array;
}

const encoder = new TextEncoder();

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16));
}

/** Whether role `have` may do what role `need` may. */
export function allows(have: ApiRole, need: ApiRole): boolean {
  return API_ROLES.indexOf(have) >= API_ROLES.indexOf(need);
}

/** The configured credentials; a bad or duplicate key throws TypeError at once. */
export class Credentials {
  readonly #list: Promise<Credential[]>;
  readonly #count: number;

  constructor(token: string | undefined, keys: readonly ApiKeyEntry[]) {
    const names = new Set(token === undefined ? [] : [TOKEN_NAME]);
    for (const k of keys) {
      if (!/^[0-9a-fA-F]{64}$/.test(k.sha256) || !API_ROLES.includes(k.role)) {
        throw new TypeError(`createApp: key ${JSON.stringify(k.name)}: bad role or sha256`);
      }
      if (names.has(k.name)) {
        throw new TypeError(`createApp: key name ${JSON.stringify(k.name)} is used twice`);
      }
      names.add(k.name);
    }
    this.#count = names.size;
    const fixed = keys.map((k) => ({
      name: k.name,
      role: k.role,
      hash: fromHex(k.sha256.toLowerCase()),
    }));
    this.#list = token === undefined ? Promise.resolve(fixed) : sha256(token).then((hash) => [
      { name: TOKEN_NAME, role: "admin" as const, hash },
      ...fixed,
    ]);
  }

  /** True when no credential is configured: the API is open (loopback hosts only). */
  get open(): boolean {
    return this.#count === 0;
  }

  async byName(name: string): Promise<Credential | undefined> {
    return (await this.#list).find((c) => c.name === name);
  }

  /** The credential whose secret `candidate` is, or null; constant time per credential. */
  async match(candidate: string): Promise<Credential | null> {
    const [h, list] = await Promise.all([sha256(candidate), this.#list]);
    let found: Credential | null = null;
    for (const c of list) {
      let diff = 0;
      for (let i = 0; i < h.length; i++) diff |= h[i] ^ c.hash[i];
      if (diff === 0) found = c;
    }
    return found;
  }
}
