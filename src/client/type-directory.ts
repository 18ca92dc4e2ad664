/**
 * @module type-directory — which task types the live workers handle, as their heartbeats
 * advertise them (`InstanceInfo.types`), cached on the submitting node: a submit of a type
 * no live worker handles is told so (a warning, or a refusal in strict mode) without a read
 * of the instance list on every submit.
 *
 * Reads: the list is read again in the background once the cache is `refreshMs` old (a
 * submit does not wait for that). A submit waits for one read only when the cache holds no
 * answer (the node's first submit, or the first after `3 × refreshMs` without any), and when
 * a type looks unhandled on a cache older than a second: a worker started seconds ago (a
 * rolling deploy) counts before anyone is warned or refused, and a flood of unhandled types
 * costs at most one read a second. A submit of handled types never waits once warm.
 */
import type { Clock } from "../core/clock.ts";
import { UnknownTypeError } from "../core/errors.ts";
import type { InstanceRegistry } from "../storage/storage.ts";
import type { Logger } from "../worker/middleware.ts";

/** Why a type is flagged, and whether strict mode may refuse it. */
export interface Unhandled {
  /** The warning a submit answers with, e.g. `no live worker handles type "report" …`. */
  warning: string;
  /**
   * True when live workers advertise their types and none has this one. False with no live
   * worker at all: then nothing runs yet, whatever the type, and strict mode still accepts
   * (a restart of every worker must not make the API refuse work).
   */
  refusable: boolean;
}

export interface TypeDirectoryOptions {
  storage: InstanceRegistry;
  clock: Clock;
  logger: Logger;
  /** Whether this process runs `type` itself (a handler while its pools run): never read for. */
  isLocal: (type: string) => boolean;
  /** Age at which the cache is read again in the background. Default 5 s. */
  refreshMs?: number;
}

/** A cache older than this is re-read before a type is called unhandled. */
const CONFIRM_MS = 1_000;
/** Types named in a warning's list of what the live workers handle. */
const LISTED = 10;
/** Types the one-time console warning remembers (a bound: types come from requests). */
const MAX_ANNOUNCED = 1_000;

interface View {
  /** When the read started (the clock's ms). */
  at: number;
  workers: number;
  /** Null when a live worker does not advertise its types (an older version): no verdict. */
  handled: Set<string> | null;
}

/**
 * The cache of advertised types.
 *
 * @example
 * const types = new TypeDirectory({ storage, clock, logger, localTypes: () => [] });
 * const flagged = await types.unhandled(["report"]); // Map { "report" => { warning, refusable } }
 */
export class TypeDirectory {
  readonly #o: TypeDirectoryOptions;
  readonly #refreshMs: number;
  #view: View | null = null;
  #reading: Promise<void> | null = null;
  readonly #announced = new Set<string>();

  constructor(options: TypeDirectoryOptions) {
    this.#o = options;
    this.#refreshMs = options.refreshMs ?? 5_000;
    if (!(this.#refreshMs >= 0)) {
      throw new RangeError(`typeCacheMs: expected 0 ms or more, got ${options.refreshMs}`);
    }
  }

  /**
   * The types among `types` no live worker handles, each with its warning; empty when all
   * are handled or nothing can be told (the list unreadable, a worker that does not say).
   * Never throws: a failed read leaves the previous answer in place.
   */
  async unhandled(types: readonly string[]): Promise<ReadonlyMap<string, Unhandled>> {
    const wanted = this.#wanted(types);
    if (wanted.length === 0) return NONE;
    const now = this.#o.clock.now();
    const age = this.#view ? now - this.#view.at : Infinity;
    if (age > 3 * this.#refreshMs) await this.#read();
    else if (age >= this.#refreshMs) void this.#read();
    let found = this.#judge(wanted);
    if (found.size && this.#view && now - this.#view.at > CONFIRM_MS) {
      await this.#read();
      found = this.#judge(wanted);
    }
    for (const [type, u] of found) this.#announce(type, u);
    return found;
  }

  /**
   * True when {@link unhandled} would flag nothing and can tell so without reading the
   * store: every type is this process's own, or a view younger than the refresh interval
   * lists them all. Most submits end here, with no promise to wait on.
   */
  allHandledNow(types: readonly string[]): boolean {
    const wanted = this.#wanted(types);
    if (wanted.length === 0) return true;
    const view = this.#view;
    return view !== null && this.#o.clock.now() - view.at < this.#refreshMs &&
      this.#judge(wanted).size === 0;
  }

  /** The types a live worker must handle: those this process does not. */
  #wanted(types: readonly string[]): readonly string[] {
    const isLocal = this.#o.isLocal;
    // A submit of one spec is the common case: no set of its one type.
    return types.length === 1
      ? (isLocal(types[0]) ? NONE_WANTED : types)
      : [...new Set(types)].filter((t) => !isLocal(t));
  }

  #read(): Promise<void> {
    return this.#reading ??= (async () => {
      const at = this.#o.clock.now();
      try {
        const live = await this.#o.storage.listInstances(at);
        let handled: Set<string> | null = new Set();
        for (const w of live) {
          if (!Array.isArray(w.types)) {
            handled = null;
            break;
          }
          for (const t of w.types) handled.add(t);
        }
        this.#view = { at, workers: live.length, handled };
      } catch (error) {
        this.#o.logger.debug("reading the live workers' task types failed", {
          error: (error as Error)?.message,
        });
      } finally {
        this.#reading = null;
      }
    })();
  }

  #judge(types: readonly string[]): ReadonlyMap<string, Unhandled> {
    const view = this.#view;
    if (!view || view.handled === null) return NONE;
    if (view.workers === 0) {
      const found = new Map<string, Unhandled>();
      for (const t of types) {
        found.set(t, {
          warning: `no live worker is running: the task waits for one, and only a worker ` +
            `that handles type "${t}" can run it`,
          refusable: false,
        });
      }
      return found;
    }
    const handled = view.handled;
    if (types.every((t) => handled.has(t))) return NONE;
    const found = new Map<string, Unhandled>();
    for (const t of types) {
      if (handled.has(t)) continue;
      found.set(t, {
        warning: `no live worker handles type "${t}" (they handle ${listOf(handled)}): ` +
          'a worker that claims the task fails it ("No handler registered")',
        refusable: true,
      });
    }
    return found;
  }

  /** The one-time console warning per type. */
  #announce(type: string, u: Unhandled): void {
    if (this.#announced.has(type) || this.#announced.size >= MAX_ANNOUNCED) return;
    this.#announced.add(type);
    this.#o.logger.warn(`submit: ${u.warning}; said once per type`, { type });
  }
}

/** The answer "nothing flagged", shared: never written to. */
const NONE: ReadonlyMap<string, Unhandled> = new Map();
const NONE_WANTED: readonly string[] = [];
/** Per spec, its type's warnings (undefined for none). */
type Warnings = readonly (string[] | undefined)[];
/** Per spec, no warning: reads of any index give undefined. */
const NO_WARNINGS: Warnings = [];

function listOf(types: Set<string>): string {
  if (types.size === 0) return "no types";
  const sorted = [...types].sort();
  const shown = sorted.slice(0, LISTED).join(", ");
  return sorted.length > LISTED ? `${shown} and ${sorted.length - LISTED} more` : shown;
}

/**
 * Per spec, the warnings its type earns (undefined for none), in spec order. In strict mode
 * a spec whose type is refusable throws {@link UnknownTypeError} naming each (`[i].type` in a
 * batch, else `type`), before anything is stored.
 */
export function checkTypes(
  directory: TypeDirectory,
  types: readonly string[],
  options: { batch: boolean; strict: boolean },
): Warnings | Promise<Warnings> {
  if (directory.allHandledNow(types)) return NO_WARNINGS;
  return directory.unhandled(types).then((flagged) => warningsOf(flagged, types, options));
}

/** Per spec, the warnings of its type as flagged (see {@link checkTypes}). */
function warningsOf(
  flagged: ReadonlyMap<string, Unhandled>,
  types: readonly string[],
  options: { batch: boolean; strict: boolean },
): Warnings {
  if (flagged.size === 0) return NO_WARNINGS;
  if (options.strict) {
    const issues = types.flatMap((t, i) => {
      const u = flagged.get(t);
      return u?.refusable
        ? [{ path: options.batch ? `[${i}].type` : "type", message: u.warning }]
        : [];
    });
    if (issues.length) throw new UnknownTypeError(issues);
  }
  return types.map((t) => {
    const u = flagged.get(t);
    return u ? [u.warning] : undefined;
  });
}
