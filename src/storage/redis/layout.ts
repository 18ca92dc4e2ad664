/**
 * @module layout — the version of the data layout a store keeps in Redis, and the error a
 * node meets when the store holds a layout its code does not speak.
 *
 * The layout (key names, hash fields, member encodings: lua/includes/prefix.lua) is stamped
 * in the `meta` hash, field `layout`. Every script is built for {@link LAYOUT} (a generated
 * fact) and refuses another before it reads or writes anything, so every node refuses, the
 * Cloudflare Worker too, which never calls `init()`. docs/UPGRADING.md says how to upgrade.
 */
import { SkedulrError } from "../../core/errors.ts";

/** The layout this code reads and writes. Bump it, and add a migration, when it changes. */
export const LAYOUT = 6;

/** A prefix written before layouts had a version (no `meta` key) holds layout 1. */
export const UNVERSIONED_LAYOUT = 1;

/** The first word of a script's error reply when the store holds another layout. */
export const LAYOUT_ERROR = "SKEDULR_LAYOUT";

/**
 * The store holds a layout this code does not speak: a node older than the store must be
 * upgraded; a store older than the node must be migrated (`init()` of the new release).
 * Not a fault: retrying on this node never helps, so workers stop at once. The HTTP API
 * answers 503 `storage` (with Retry-After): the request is fine and a node of the right
 * release can serve it, so a client or balancer should go elsewhere or come back.
 */
export class StorageLayoutError extends SkedulrError {
  /** The layout the store holds, as its `meta` hash says. */
  readonly found: string;
  /** The layout this code speaks. */
  readonly speaks: number;
  constructor(message: string, found: string, options?: ErrorOptions) {
    super("storage", message, options);
    this.name = "StorageLayoutError";
    this.found = found;
    this.speaks = LAYOUT;
  }
}

/**
 * The refusal for a store holding layout `found` under `prefix`, in the words every script's
 * guard uses (lua/includes/prefix.lua), for checks made outside a script (a health check).
 */
export function layoutRefusal(found: string, prefix: string): StorageLayoutError {
  const advice = (Number(found) || 0) < LAYOUT
    ? "migrate the store first: init() of a node of this release does"
    : `upgrade this node to a release that speaks layout ${found}`;
  return new StorageLayoutError(
    `storage layout ${found} found in ${prefix}meta, this code speaks layout ${LAYOUT}: ` +
      `${advice} (docs/UPGRADING.md)`,
    found,
  );
}

/**
 * The error for a script's `SKEDULR_LAYOUT …` error reply (its text is the guard's in
 * lua/includes/prefix.lua), or null for any other error.
 */
export function layoutError(error: unknown): StorageLayoutError | null {
  if (!(error instanceof Error) || !error.message.startsWith(`${LAYOUT_ERROR} `)) return null;
  const message = error.message.slice(LAYOUT_ERROR.length + 1);
  const found = /^storage layout (\S+) found/.exec(message)?.[1] ?? "";
  return new StorageLayoutError(message, found, { cause: error });
}
