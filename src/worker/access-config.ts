/**
 * @module access-config — who may use the HTTP API, as configuration: named API keys with
 * roles (`SKEDULR_KEYS`), the `Host` names served (`SKEDULR_ALLOWED_HOSTS`) and the proxy
 * header that carries the client address (`SKEDULR_TRUST_PROXY`). Parsed here once for
 * the worker (config.ts) and the Cloudflare Worker alike; enforced by routes/.
 */

/** What a key may do: `read` GETs, `submit` also creates and cancels work, `admin` all. */
export type ApiRole = "read" | "submit" | "admin";

/** The roles, weakest first: a role allows everything the ones before it allow. */
export const API_ROLES: readonly ApiRole[] = ["read", "submit", "admin"];

/** One named key. Only the key's SHA-256 is configured, never the key itself. */
export interface ApiKeyEntry {
  name: string;
  role: ApiRole;
  /** Lowercase hex SHA-256 of the key (`bun scripts/entry/keygen.ts` prints it). */
  sha256: string;
}

/** Key names: what the dashboard shows and sessions carry, so no dots, colons or spaces. */
export const KEY_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The name `SKEDULR_TOKEN` goes by (role admin); no key may take it. */
export const TOKEN_NAME = "token";

/**
 * Parses `name:role:sha256hex` entries separated by commas or newlines.
 *
 * @example
 * parseApiKeys("ci:submit:" + "ab".repeat(32)).keys; // [{ name: "ci", role: "submit", sha256: "abab…" }]
 */
export function parseApiKeys(
  spec: string,
  variable = "SKEDULR_KEYS",
): { keys: ApiKeyEntry[]; problems: string[] } {
  const keys: ApiKeyEntry[] = [];
  const problems: string[] = [];
  const hashes = new Set<string>();
  const entries = spec.split(/[,\n]/).map((e) => e.trim()).filter(Boolean);
  for (const [i, entry] of entries.entries()) {
    const [name, role, hash, ...rest] = entry.split(":");
    // Never quote more than a well-placed name: an entry may be a key pasted by mistake.
    const where = `${variable}: entry ${i + 1}${
      rest.length === 0 && hash !== undefined ? ` ${JSON.stringify(name)}` : ""
    }`;
    if (rest.length || hash === undefined) {
      problems.push(`${where}: expected name:role:sha256hex`);
    } else if (!KEY_NAME.test(name)) {
      problems.push(`${where}: names are letters, digits, _ and - (1 to 64)`);
    } else if (name === TOKEN_NAME) {
      problems.push(`${where}: the name "${TOKEN_NAME}" is SKEDULR_TOKEN's`);
    } else if (!API_ROLES.includes(role as ApiRole)) {
      problems.push(`${where}: role must be read, submit or admin`);
    } else if (!/^[0-9a-fA-F]{64}$/.test(hash)) {
      problems.push(
        `${where}: expected the key's SHA-256 as 64 hex digits (scripts/entry/keygen.ts)`,
      );
    } else if (keys.some((k) => k.name === name)) {
      problems.push(`${where}: the name is listed twice`);
    } else if (hashes.has(hash.toLowerCase())) {
      problems.push(`${where}: the same key hash is listed twice`);
    } else {
      hashes.add(hash.toLowerCase());
      keys.push({ name, role: role as ApiRole, sha256: hash.toLowerCase() });
    }
  }
  return { keys, problems };
}

/** The `Host` names an unprotected API serves: a DNS-rebinding page can never use them. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/**
 * A `Host` value split into its lowercased name (IPv6 kept in brackets) and port, or null
 * when it is not a host[:port].
 */
export function parseHost(value: string): { name: string; port: string | null } | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::([0-9]{1,5}))?$/.exec(value.trim());
  return m ? { name: m[1].toLowerCase(), port: m[2] ?? null } : null;
}

/** Parses `SKEDULR_ALLOWED_HOSTS`: comma-separated names, each optionally with `:port`. */
export function parseAllowedHosts(
  spec: string,
  variable = "SKEDULR_ALLOWED_HOSTS",
): { hosts: string[]; problems: string[] } {
  const hosts: string[] = [];
  const problems: string[] = [];
  for (const entry of spec.split(",").map((e) => e.trim()).filter(Boolean)) {
    const host = parseHost(entry);
    if (host) hosts.push(host.port ? `${host.name}:${host.port}` : host.name);
    else problems.push(`${variable}: expected host or host:port, got ${JSON.stringify(entry)}`);
  }
  if (!hosts.length && !problems.length) problems.push(`${variable}: names no host`);
  return { hosts, problems };
}

/** A header name for `SKEDULR_TRUST_PROXY`, lowercased, or null when it is not one. */
export function parseProxyHeader(value: string): string | null {
  return /^[A-Za-z0-9-]{1,64}$/.test(value) ? value.toLowerCase() : null;
}
