/**
 * @module outbound-policy — which targets the built-in `http` task type may call.
 *
 * By default every address that is not public unicast is refused: loopback, unspecified,
 * private (RFC 1918), shared (CGNAT), link-local (cloud metadata included), IPv6
 * unique-local, multicast and reserved ranges, IPv6 forms that embed one of those (mapped,
 * NAT64, 6to4), and the name `localhost` (RFC 6761). An allow list of hosts and CIDRs
 * (`SKEDULR_HTTP_ALLOW`) opens chosen targets. Every literal form (decimal `2130706433`, hex
 * `0x7f.1`, octal `0177.0.0.1`, `[::ffff:127.0.0.1]`) goes through the WHATWG URL parser
 * before it is classified, so it is checked in the form the client will connect to.
 */

/** An IPv4 (4 bytes) or IPv6 (16 bytes) address. */
type Bytes = Uint8Array;

interface Range {
  bytes: Bytes;
  bits: number;
}

/** Non-public ranges and why each is refused; checked in order (an IPv6 catch-all is last). */
const REFUSED: [string, string][] = [
  ["0.0.0.0/8", "an unspecified (this-network) address"],
  ["10.0.0.0/8", "a private address"],
  ["100.64.0.0/10", "a shared (CGNAT) address"],
  ["127.0.0.0/8", "a loopback address"],
  ["169.254.169.254/32", "a link-local address (cloud metadata)"],
  ["169.254.0.0/16", "a link-local address"],
  ["172.16.0.0/12", "a private address"],
  ["192.0.0.0/24", "a reserved address (IETF protocol assignments)"],
  ["192.0.2.0/24", "a reserved address (documentation)"],
  ["192.88.99.0/24", "a reserved address (6to4 relay)"],
  ["192.168.0.0/16", "a private address"],
  ["198.18.0.0/15", "a reserved address (benchmarking)"],
  ["198.51.100.0/24", "a reserved address (documentation)"],
  ["203.0.113.0/24", "a reserved address (documentation)"],
  ["224.0.0.0/4", "a multicast address"],
  ["240.0.0.0/4", "a reserved address"],
  // Azure's platform endpoint (wire server) is public address space but a metadata service.
  ["168.63.129.16/32", "a cloud metadata address"],
  ["::/128", "an unspecified address"],
  ["::1/128", "a loopback address"],
  ["::/96", "a reserved address (IPv4-compatible)"],
  ["64:ff9b:1::/48", "a private address (local-use NAT64)"],
  ["100::/64", "a reserved address (discard-only)"],
  ["2001::/23", "a reserved address (IETF protocol assignments, Teredo)"],
  ["2001:db8::/32", "a reserved address (documentation)"],
  ["3fff::/20", "a reserved address (documentation)"],
  ["5f00::/16", "a reserved address (segment routing)"],
  ["fc00::/7", "a unique-local address"],
  ["fe80::/10", "a link-local address"],
  ["fec0::/10", "a reserved address (site-local)"],
  ["ff00::/8", "a multicast address"],
];

/** IPv6 prefixes that carry an IPv4 address: the IPv4 address decides (offset in bytes). */
const EMBEDDING: [string, number, string][] = [
  ["::ffff:0:0/96", 12, "an IPv4-mapped address of"],
  ["64:ff9b::/96", 12, "a NAT64 address of"],
  ["2002::/16", 2, "a 6to4 address of"],
];

/**
 * An IP address in any form the WHATWG URL parser accepts, brackets and an IPv6 zone
 * (`%eth0`) allowed; null for anything else (a host name).
 */
export function parseAddress(text: string): Bytes | null {
  let t = text.trim();
  if (t.startsWith("[") && t.endsWith("]")) t = t.slice(1, -1);
  t = t.replace(/%.*$/, "");
  if (t === "" || /[\s/@?#\\[\]]/.test(t)) return null;
  let host: string;
  try {
    host = new URL(t.includes(":") ? `http://[${t}]/` : `http://${t}/`).hostname;
  } catch {
    return null;
  }
  if (host.startsWith("[")) return ipv6Bytes(host.slice(1, -1));
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  return m ? Uint8Array.from(m.slice(1), Number) : null;
}

/** The 16 bytes of an IPv6 address as the URL parser serialises it (hex groups, `::`). */
function ipv6Bytes(canonical: string): Bytes {
  const [head, tail] = canonical.includes("::") ? canonical.split("::") : [canonical, null];
  const groups = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = tail === null ? [] : groups(tail);
  const all = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return Uint8Array.from(all.flatMap((g) => [g >> 8, g & 0xff]));
}

/** The text form of an address (IPv6 as the URL parser writes it). */
export function formatAddress(bytes: Bytes): string {
  if (bytes.length === 4) return bytes.join(".");
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return new URL(`http://[${groups.join(":")}]/`).hostname.slice(1, -1);
}

function parseRange(text: string): Range | null {
  const slash = text.lastIndexOf("/");
  const bytes = parseAddress(slash < 0 ? text : text.slice(0, slash));
  if (!bytes) return null;
  const max = bytes.length * 8;
  const bitsText = slash < 0 ? String(max) : text.slice(slash + 1);
  const bits = Number(bitsText);
  if (!/^\d{1,3}$/.test(bitsText) || bits > max) return null;
  return { bytes, bits };
}

function inRange(address: Bytes, range: Range): boolean {
  if (address.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const mask = (0xff00 >> Math.min(8, range.bits - bit)) & 0xff;
    if ((address[bit / 8] & mask) !== (range.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

const REFUSED_RANGES = REFUSED.map(([cidr, why]) => ({ range: parseRange(cidr)!, why }));
const EMBEDDING_RANGES = EMBEDDING.map(([cidr, offset, label]) => ({
  range: parseRange(cidr)!,
  offset,
  label,
}));
const GLOBAL_UNICAST_V6 = parseRange("2000::/3")!;

/** Why `address` is not a public unicast address (e.g. "a loopback address"), or null. */
export function classifyAddress(address: Bytes): string | null {
  if (address.length === 16) {
    for (const { range, offset, label } of EMBEDDING_RANGES) {
      if (!inRange(address, range)) continue;
      const v4 = address.slice(offset, offset + 4);
      const why = classifyAddress(v4);
      return why && `${label} ${formatAddress(v4)}, ${why}`;
    }
  }
  for (const { range, why } of REFUSED_RANGES) if (inRange(address, range)) return why;
  if (address.length === 16 && !inRange(address, GLOBAL_UNICAST_V6)) {
    return "a reserved address (outside global unicast)";
  }
  return null;
}

/** Names that always mean this machine (RFC 6761), checked as 127.0.0.1 and ::1. */
const LOOPBACK_NAME = /^(.+\.)?localhost$/;
const LOOPBACK_ADDRESSES = [parseAddress("127.0.0.1")!, parseAddress("::1")!];
const HOST_NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/** The targets the `http` task type may call. Build one with {@link outboundPolicy}. */
export interface OutboundPolicy {
  /** The allow list as given (hosts, `*.suffix` wildcards, addresses, CIDRs). */
  readonly allow: readonly string[];
  /**
   * Why `url`'s host is refused as written — an address, or a name that always means
   * loopback — or null. A name that passes is checked again once resolved:
   * {@link OutboundPolicy.checkResolved}.
   */
  checkUrl(url: URL): string | null;
  /** Why connecting to `address`, which `hostname` resolved to, is refused; or null. */
  checkResolved(hostname: string, address: string): string | null;
}

/** The end of every refusal message: how to open a target on purpose. */
export const ALLOW_HINT = "list it in SKEDULR_HTTP_ALLOW to allow it";

/**
 * The policy with an allow list: a comma- or space-separated string or a list of entries,
 * each a host name (`hooks.internal`), a wildcard (`*.svc.cluster.local`, subdomains only),
 * an address (`127.0.0.1`, `::1`, `[::1]`) or a CIDR (`10.0.0.0/8`, `fd00::/8`). A listed name
 * is trusted whatever it resolves to. Throws a RangeError naming SKEDULR_HTTP_ALLOW and each
 * bad entry.
 *
 * @example
 * const policy = outboundPolicy("127.0.0.1, hooks.internal, 10.1.0.0/16");
 * policy.checkUrl(new URL("http://0x7f.1/")); // null: 127.0.0.1 is listed
 * policy.checkUrl(new URL("http://169.254.169.254/")); // "169.254.169.254 is a link-local address (cloud metadata)"
 */
export function outboundPolicy(allow: string | readonly string[] | null = null): OutboundPolicy {
  const entries = (typeof allow === "string" ? allow.split(/[\s,]+/) : allow ?? [])
    .map((e) => e.trim()).filter(Boolean);
  const ranges: Range[] = [];
  const names = new Set<string>();
  const suffixes: string[] = [];
  const bad: string[] = [];
  for (const entry of entries) {
    const range = parseRange(entry);
    if (range) ranges.push(range);
    else if (/^[\d.:[\]]+(\/.*)?$|\//.test(entry)) bad.push(entry);
    else {
      const wildcard = entry.startsWith("*.");
      const name = normaliseName(wildcard ? entry.slice(2) : entry);
      if (name === null) bad.push(entry);
      else if (wildcard) suffixes.push(`.${name}`);
      else names.add(name);
    }
  }
  if (bad.length) {
    throw new RangeError(
      `SKEDULR_HTTP_ALLOW: expected host names, *.wildcards, addresses or CIDRs (like 10.0.0.0/8), got ${
        bad.map((b) => JSON.stringify(b)).join(", ")
      }`,
    );
  }
  const nameAllowed = (name: string) =>
    names.has(name) || suffixes.some((s) => name.endsWith(s) && name.length > s.length);
  const addressAllowed = (bytes: Bytes) => {
    // An IPv4-mapped IPv6 address is that IPv4 address to the kernel: list entries match both.
    const mapped = bytes.length === 16 && inRange(bytes, EMBEDDING_RANGES[0].range)
      ? bytes.slice(12)
      : null;
    return ranges.some((r) => inRange(bytes, r) || (mapped !== null && inRange(mapped, r)));
  };
  const checkAddress = (bytes: Bytes) => (addressAllowed(bytes) ? null : classifyAddress(bytes));
  return {
    allow: entries,
    checkUrl(url) {
      const host = url.hostname;
      const bytes = parseAddress(host);
      if (bytes) {
        const why = checkAddress(bytes);
        return why && `${host.replace(/^\[|\]$/g, "")} is ${why}`;
      }
      const name = host.replace(/\.$/, "");
      if (nameAllowed(name) || !LOOPBACK_NAME.test(name)) return null;
      return LOOPBACK_ADDRESSES.some(addressAllowed) ? null : `${name} is a loopback name`;
    },
    checkResolved(hostname, address) {
      const name = hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
      if (nameAllowed(name)) return null;
      const bytes = parseAddress(address);
      if (!bytes) return `${name} resolves to ${JSON.stringify(address)}, not an address`;
      const why = checkAddress(bytes);
      return why && `${name} resolves to ${formatAddress(bytes)}, ${why}`;
    },
  };
}

/** A host name as the URL parser normalises it (lower case, punycode, no trailing dot). */
function normaliseName(text: string): string | null {
  // A port, path or credentials would be dropped by the parser: refuse them, not ignore them.
  if (/[:/@?#%\\\s]/.test(text)) return null;
  try {
    const host = new URL(`http://${text}/`).hostname.replace(/\.$/, "");
    return HOST_NAME.test(host) && parseAddress(host) === null ? host : null;
  } catch {
    return null;
  }
}

/** The default: public unicast addresses only. */
export const DEFAULT_OUTBOUND_POLICY: OutboundPolicy = outboundPolicy();
