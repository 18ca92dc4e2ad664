/**
 * @module login-limit — failed-login limits per client address, counted in the store
 * (`Storage.hitRateLimit`) so the limit holds across API nodes and on Workers.
 *
 * Every login attempt takes a slot before its credential is checked: a check-then-count
 * would let a burst of parallel guesses all pass the check before any was counted.
 *
 * The address is the socket's (the server adapter passes it as `remoteAddress`), or the
 * last entry of the proxy header `trustProxy` names (the one the proxy itself appended).
 * IPv6 addresses count per /64, which one client usually holds whole. Without any address
 * (an embedding that passes none) every client shares one bucket: stricter, never looser.
 */
import type { Context } from "hono";
import type { Scheduler } from "../src/mod.ts";
import type { SkedulrEnv } from "./env.ts";
import { ApiError } from "./errors.ts";

/** Login attempts allowed per client address and window. */
export interface LoginLimit {
  max: number;
  windowMs: number;
}

/** 10 attempts a minute per address. */
export const DEFAULT_LOGIN_LIMIT: LoginLimit = { max: 10, windowMs: 60_000 };

/** The first four groups of an IPv6 address (its /64), or null when it is not one. */
function ipv6Prefix(address: string): string | null {
  const [head, tail, ...more] = address.toLowerCase().split("::");
  if (more.length) return null;
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array(Math.max(0, fill)).fill("0"), ...right];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":") + "::/64";
}

/** The bucket an address counts in: IPv4 as is, IPv6 by its /64. */
export function addressBucket(raw: string): string {
  let address = raw.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1];
  if (!address.includes(":")) return address || "unknown";
  return ipv6Prefix(address) ?? address;
}

/** The client's address: the trusted proxy header's last entry, else the socket's. */
export function clientAddress(c: Context<SkedulrEnv>, trustProxy: string | null): string {
  if (trustProxy) {
    const last = c.req.header(trustProxy)?.split(",").pop()?.trim();
    if (last) return last;
  }
  return c.env?.remoteAddress ?? "unknown";
}

/** Takes one login slot for the client, or throws 429 `rate_limited` with Retry-After. */
export async function takeLoginSlot(
  c: Context<SkedulrEnv>,
  scheduler: Scheduler,
  limit: LoginLimit,
  trustProxy: string | null,
): Promise<void> {
  const bucket = addressBucket(clientAddress(c, trustProxy)).slice(0, 200);
  const { allowed, retryAfterMs } = await scheduler.storage.hitRateLimit({
    key: `login:${bucket}`,
    limit: limit.max,
    windowMs: limit.windowMs,
    now: Math.floor(scheduler.clock.now()),
  });
  if (allowed) return;
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  throw new ApiError(
    "rate_limited",
    `Too many login attempts from this address: ${limit.max} per ${limit.windowMs / 1000} s ` +
      `are allowed; try again in ${seconds} s`,
    undefined,
    seconds,
  );
}
