/**
 * @module context — what every part of RedisStorage shares: the transport, the script
 * runner, the key prefix and the store's options.
 */
import type { HistoryRetention } from "../storage.ts";
import { scriptError } from "./codes.ts";
import { faultReporting } from "./faults.ts";
import { ScriptRunner } from "./script-runner.ts";
import { type ScriptName, SCRIPTS } from "./scripts.generated.ts";
import type { RedisReply, RedisTransport } from "./transport.ts";

export type { ScriptName };

/**
 * A count argument as the embedded store would use it: `loop` counts (`while n < max`)
 * round up, `slice` counts round down; Infinity and huge values are capped so Redis
 * accepts them as LIMIT.
 */
export function countArg(n: number, kind: "loop" | "slice"): number {
  if (Number.isNaN(n)) return 0;
  const whole = kind === "loop" ? Math.ceil(n) : Math.floor(n);
  return Math.max(0, Math.min(whole, 2 ** 31 - 1));
}

/** Shared state of one RedisStorage. */
export class RedisContext {
  readonly transport: RedisTransport;
  readonly runner: ScriptRunner;
  /** `<prefix>:{<tag>}:`, KEYS[1] of every script. */
  readonly prefix: string;
  readonly retention: HistoryRetention;
  readonly maxUnfinished: number | undefined;

  constructor(
    transport: RedisTransport,
    prefix: string,
    retention: HistoryRetention,
    maxUnfinished: number | undefined,
  ) {
    // Every call through the context reports a lost connection or a full, loading or busy
    // server as StorageUnavailableError (retryable), whatever the client threw.
    this.transport = faultReporting(transport);
    this.runner = new ScriptRunner(this.transport);
    this.prefix = prefix;
    this.retention = retention;
    this.maxUnfinished = maxUnfinished;
  }

  /** Runs script `name` with KEYS[1] = the prefix. */
  run(name: ScriptName, args: string[]): Promise<RedisReply> {
    return this.runner.run(SCRIPTS[name], [this.prefix], args).catch(rethrowScriptError);
  }

  /** The retention arguments scripts that finish tasks take: maxAgeMs, maxCount. */
  retentionArgs(): string[] {
    return [String(this.retention.maxAgeMs), String(this.retention.maxCount)];
  }
}

function rethrowScriptError(error: unknown): never {
  throw scriptError(error);
}
