/**
 * @module faults — turns what a Redis transport throws into the store's error contract:
 * a lost connection, or a server reply that means "not now" (OOM, LOADING, BUSY, …),
 * becomes {@link StorageUnavailableError}, which callers may retry; every other server
 * error stays a {@link RedisCommandError} (a bug, or NOSCRIPT for the script runner).
 */
import { SkedulrError, type StorageFault, StorageUnavailableError } from "../../core/errors.ts";
import { RedisCommandError, type RedisTransport } from "./transport.ts";

/** Server replies that say the server cannot serve right now, by their first word. */
const FAULT_REPLIES: Record<string, StorageFault> = {
  OOM: "full",
  LOADING: "loading",
  BUSY: "busy",
  TRYAGAIN: "busy",
  MASTERDOWN: "unreachable",
  CLUSTERDOWN: "unreachable",
  READONLY: "unreachable",
  // A Redis Cluster moved the slot (a failover, a reshard) and ioredis did not follow it
  // (its auto-pipeline redirects a pipeline only when every command met the same reply):
  // the command did not run there, so it is safe to send again, and the map is refreshed.
  MOVED: "unreachable",
  ASK: "unreachable",
};

/** The error a storage caller should see for `error`, thrown by a transport. */
export function storageError(error: unknown): unknown {
  if (error instanceof SkedulrError) return error;
  if (error instanceof RedisCommandError) {
    // Upstash's answer at its max data size: "ERR DB capacity quota exceeded".
    const fault = /capacity quota exceeded/i.test(error.message)
      ? "full"
      : FAULT_REPLIES[/^[A-Z]+/.exec(error.message)?.[0] ?? ""];
    return fault ? new StorageUnavailableError(fault, error.message, { cause: error }) : error;
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new StorageUnavailableError("unreachable", detail, { cause: error });
}

/**
 * A transport whose `send` and `pipeline` reject with {@link storageError}. Per-command
 * errors inside a pipeline stay in place as they are; a caller that throws one should pass
 * it through {@link storageError}.
 */
export function faultReporting(transport: RedisTransport): RedisTransport {
  return {
    name: transport.name,
    scriptFlags: transport.scriptFlags,
    functions: transport.functions,
    shardedPubSub: transport.shardedPubSub,
    send: (cmd) => transport.send(cmd).catch(rethrow),
    pipeline: (cmds) => transport.pipeline(cmds).catch(rethrow),
    subscribe: (channel, onMessage) => transport.subscribe(channel, onMessage),
    close: () => transport.close(),
  };
}

function rethrow(error: unknown): never {
  throw storageError(error);
}
