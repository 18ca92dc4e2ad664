/**
 * @module commands — what the REST gateway accepts as a command, and the JSON
 * shape of what it sends back.
 *
 * Every request shares one Redis connection, so a command that blocks it (BLPOP, WAIT,
 * XREAD BLOCK) or changes its state (SELECT, HELLO, MULTI, SUBSCRIBE) would stall or corrupt
 * every other client: those are refused with a message that says what to do instead, the
 * way Upstash refuses them.
 */
import { Buffer } from "node:buffer";
import { Bulk, RespError, type RespValue } from "./resp.ts";

/** A command that the gateway refuses, with the reason sent back as `{error}`. */
export class Rejected extends Error {}

const BLOCKING = new Set([
  "BLPOP",
  "BRPOP",
  "BRPOPLPUSH",
  "BLMOVE",
  "BLMPOP",
  "BZPOPMIN",
  "BZPOPMAX",
  "BZMPOP",
  "WAIT",
  "WAITAOF",
]);
const PUBSUB = new Set([
  "SUBSCRIBE",
  "PSUBSCRIBE",
  "SSUBSCRIBE",
  "UNSUBSCRIBE",
  "PUNSUBSCRIBE",
  "SUNSUBSCRIBE",
]);
const TRANSACTION = new Set(["MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH"]);
const CONNECTION_STATE = new Set([
  "SELECT",
  "HELLO",
  "AUTH",
  "RESET",
  "QUIT",
  "MONITOR",
  "SYNC",
  "PSYNC",
  "REPLCONF",
]);
const CLIENT_STATE = new Set(["REPLY", "TRACKING", "CACHING", "PAUSE", "UNPAUSE"]);

/**
 * Turns one JSON command (`["SET", "k", 1]`) into RESP arguments, or throws
 * {@link Rejected}. Numbers and booleans become their text, as Upstash does; anything else
 * that is not a string is refused rather than guessed at.
 */
export function parseCommand(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new Rejected(
      `ERR a command is a non-empty JSON array like ["SET","key","value"], got ${preview(raw)}`,
    );
  }
  const args = raw.map((arg, i) => {
    if (typeof arg === "string") return arg;
    if (typeof arg === "number" || typeof arg === "boolean") return String(arg);
    throw new Rejected(
      `ERR argument ${i} of ${preview(raw[0])} must be a string, number or boolean, got ${
        preview(arg)
      }`,
    );
  });
  checkAllowed(args);
  return args;
}

function checkAllowed(args: string[]): void {
  const name = args[0].toUpperCase();
  if (
    BLOCKING.has(name) ||
    ((name === "XREAD" || name === "XREADGROUP") &&
      args.some((a) => a.toUpperCase() === "BLOCK"))
  ) {
    throw new Rejected(
      `ERR blocking command ${name} is not supported over REST: it would hold the shared ` +
        "connection. Poll with the non-blocking form, or listen on POST /subscribe/<channel>",
    );
  }
  if (PUBSUB.has(name)) {
    throw new Rejected(
      `ERR ${name} is not supported as a command: open the SSE stream at POST /subscribe/<channel> ` +
        "(or /psubscribe/<pattern>) instead",
    );
  }
  if (TRANSACTION.has(name)) {
    throw new Rejected(
      `ERR ${name} is not supported as a command: send the commands to POST /multi-exec, ` +
        "which runs them atomically",
    );
  }
  if (
    CONNECTION_STATE.has(name) ||
    (name === "CLIENT" && CLIENT_STATE.has((args[1] ?? "").toUpperCase()))
  ) {
    throw new Rejected(
      `ERR ${
        args.slice(0, name === "CLIENT" ? 2 : 1).join(" ")
      } is not supported over REST: every request shares one connection`,
    );
  }
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * A reply as Upstash's JSON: with base64 every string at any depth is base64 of its bytes
 * (so binary values survive), integers stay numbers and nil stays null.
 */
export function toJson(value: RespValue, base64: boolean): unknown {
  if (value === null || typeof value === "number") return value;
  if (value instanceof Bulk) return base64 ? value.base64() : value.text();
  if (typeof value === "string") {
    return base64 ? Buffer.from(value, "utf8").toString("base64") : value;
  }
  if (value instanceof RespError) return toJson(value.message, base64);
  return value.map((v) => toJson(v, base64));
}

/** `{result}` or `{error}` for one command of a pipeline or transaction. */
export function entry(value: RespValue, base64: boolean): { result: unknown } | { error: string } {
  return value instanceof RespError ? { error: value.message } : { result: toJson(value, base64) };
}
