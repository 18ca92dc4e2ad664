/**
 * @module session-cookie — the dashboard's login session, `v1.<name>.<expiresAt>.<mac>`:
 * an HMAC-SHA256 over the credential's name, the expiry and that credential's current hash.
 *
 * The cookie holds no secret. Its MAC covers the hash of the key it was made with, so
 * removing or replacing that key (or the token) revokes every session made with it; the
 * role is looked up on each request, so a changed role applies at once; the expiry bounds
 * a stolen cookie. The signing key is `SKEDULR_SESSION_SECRET`, else derived from the
 * token, else random per process (then sessions end with it and stay on one node).
 */
import { type Credential, type Credentials, toHex } from "./credentials.ts";

/** How long a session lasts by default: 12 hours. */
export const SESSION_TTL_MS = 12 * 3_600_000;

/** How far ahead of this node's clock another node's may be. */
const CLOCK_SLACK_MS = 5 * 60_000;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null; // 32 bytes, unpadded
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=");
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

async function hmacKey(raw: Uint8Array): Promise<CryptoKey> {
  return await crypto.subtle.importKey(
    "raw",
    raw as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

/** The signing key: the secret, else one derived from the token, else random. */
async function signingKey(secret?: string, token?: string): Promise<CryptoKey> {
  if (secret !== undefined) return hmacKey(encoder.encode(secret));
  if (token === undefined) return hmacKey(crypto.getRandomValues(new Uint8Array(32)));
  const derived = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(encoder.encode(token)),
    encoder.encode("skedulr session v1"),
  );
  return hmacKey(new Uint8Array(derived));
}

/** Issues and checks session cookies against the current credentials. */
export class Sessions {
  readonly ttlMs: number;
  readonly #credentials: Credentials;
  readonly #key: Promise<CryptoKey>;

  constructor(
    credentials: Credentials,
    options: { secret?: string; token?: string; ttlMs?: number } = {},
  ) {
    this.#credentials = credentials;
    this.ttlMs = options.ttlMs ?? SESSION_TTL_MS;
    this.#key = signingKey(options.secret, options.token);
  }

  async issue(credential: Credential, now: number): Promise<string> {
    const head = `v1.${credential.name}.${now + this.ttlMs}`;
    const mac = await crypto.subtle.sign("HMAC", await this.#key, this.#signed(head, credential));
    return `${head}.${base64url(new Uint8Array(mac))}`;
  }

  /** The credential a cookie value stands for, or null (malformed, expired, revoked, forged). */
  async verify(value: string, now: number): Promise<Credential | null> {
    const parts = value.split(".");
    if (parts.length !== 4 || parts[0] !== "v1" || !/^[0-9]{1,16}$/.test(parts[2])) return null;
    const expiresAt = Number(parts[2]);
    // Nodes' clocks differ a little: a session from a node a few minutes ahead still holds.
    if (expiresAt <= now || expiresAt > now + this.ttlMs + CLOCK_SLACK_MS) return null;
    const credential = await this.#credentials.byName(parts[1]);
    const mac = fromBase64url(parts[3]);
    if (!credential || !mac) return null;
    const head = parts.slice(0, 3).join(".");
    const ok = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      mac as Uint8Array<ArrayBuffer>,
      this.#signed(head, credential),
    );
    return ok ? credential : null;
  }

  #signed(head: string, credential: Credential): Uint8Array<ArrayBuffer> {
    return encoder.encode(`${head}.${toHex(credential.hash)}`);
  }
}
