/**
 * @module console-log — the lines a worker or API node prints for its operator: plain text
 * for a terminal (the default) or one JSON object per line for a log collector
 * (`SKEDULR_LOG_FORMAT=json`), from a level up (`SKEDULR_LOG_LEVEL`); and a budget that
 * rate-limits a kind of line under load and sums up what it held back.
 */
import type { Logger } from "./middleware.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "text" | "json";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface ConsoleLogOptions {
  /** Lines below it are dropped. Default `info`. */
  level?: LogLevel;
  /** Default `text`. */
  format?: LogFormat;
  /** Where a line goes; default `console.log` up to info, `console.error` for warn and error. */
  write?: (line: string, level: LogLevel) => void;
  /** The clock of the `time` field (JSON only). */
  now?: () => number;
}

/**
 * A {@link Logger} for the console, plus {@link ConsoleLog.line} for lines written for a
 * reader: in text its `text` alone, in JSON `text` as `message` beside its `fields`.
 */
export interface ConsoleLog extends Logger {
  readonly format: LogFormat;
  /** Whether a line at `level` would print. */
  enabled(level: LogLevel): boolean;
  line(level: LogLevel, text: string, fields?: Record<string, unknown>): void;
  /** Like {@link ConsoleLog.line}, whatever the level: the banner, start-up and shutdown. */
  notice(level: LogLevel, text: string, fields?: Record<string, unknown>): void;
}

/**
 * The console log of an entry point.
 *
 * @example
 * const log = consoleLog({ level: "info", format: "json" });
 * log.line("warn", "failed report 0mx2 attempt 1: boom", { type: "report", attempt: 1 });
 * // {"time":"…","level":"warn","message":"failed report 0mx2 attempt 1: boom","type":"report","attempt":1}
 */
export function consoleLog(options: ConsoleLogOptions = {}): ConsoleLog {
  const min = ORDER[options.level ?? "info"];
  const format = options.format ?? "text";
  const now = options.now ?? Date.now;
  const write = options.write ??
    ((line: string, level: LogLevel) =>
      (ORDER[level] >= ORDER.warn ? console.error : console.log)(line));
  const emit = (
    level: LogLevel,
    text: string,
    fields: Record<string, unknown> | undefined,
    own: boolean,
    always = false,
  ) => {
    if (ORDER[level] < min && !always) return;
    // A JSON message is one line of single spaces, whatever indents the text version.
    const message = format === "json" && own ? text.trim().replace(/\s+/g, " ") : text;
    if (format === "json") write(jsonLine(now(), level, message, fields), level);
    else write(own ? text : textLine(level, text, fields), level);
  };
  const at = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) =>
    emit(level, message, fields, false);
  return {
    format,
    enabled: (level) => ORDER[level] >= min,
    line: (level, text, fields) => emit(level, text, fields, true),
    notice: (level, text, fields) => emit(level, text, fields, true, true),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  };
}

/** `warning: message (key=value, …)`: the level says itself except for info. */
function textLine(level: LogLevel, message: string, fields?: Record<string, unknown>): string {
  const tag = level === "info" ? "" : `${level === "warn" ? "warning" : level}: `;
  const pairs = Object.entries(fields ?? {}).map(([k, v]) =>
    `${k}=${typeof v === "string" && !/\s/.test(v) ? v : safeJson(v)}`
  );
  return `${tag}${message}${pairs.length ? ` (${pairs.join(", ")})` : ""}`;
}

function jsonLine(
  now: number,
  level: LogLevel,
  message: string,
  fields?: Record<string, unknown>,
): string {
  const record = { time: new Date(now).toISOString(), level, message, ...fields };
  return safeJson(record);
}

/** JSON of anything: an Error as its message, a cycle or a BigInt as text, never a throw. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(
      value,
      (_k, v) => v instanceof Error ? v.message : typeof v === "bigint" ? String(v) : v,
    ) ?? "null";
  } catch {
    return JSON.stringify(String(value));
  }
}

/** The first line of an error message, at most 200 characters: one console line per event. */
export function firstLine(message: string | undefined | null): string {
  const line = (message ?? "").split("\n", 1)[0].trim() || "(no message)";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * At most `perWindow` lines per window of `windowMs`, the window opening with its first line.
 * Lines past that are held (counted per kind); {@link LineBudget.flush} ends the window and
 * gives the counts for the summary line, and the caller calls it when the window ends.
 */
export class LineBudget {
  #start: number | null = null;
  #shown = 0;
  readonly #held = new Map<string, number>();

  constructor(
    readonly perWindow: number,
    readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** True when a line of `kind` may print now; false when it is held for the summary. */
  take(kind: string): boolean {
    const now = this.now();
    // A window with held lines stays open until flushed, so its summary is never lost.
    if (this.#start === null || (now - this.#start >= this.windowMs && this.#held.size === 0)) {
      this.#start = now;
      this.#shown = 0;
    }
    if (this.#shown < this.perWindow) {
      this.#shown++;
      return true;
    }
    this.#held.set(kind, (this.#held.get(kind) ?? 0) + 1);
    return false;
  }

  /** Ms until the open window ends (0 when it has). */
  msLeft(): number {
    return this.#start === null ? 0 : Math.max(0, this.#start + this.windowMs - this.now());
  }

  /** Ends the window: what it held back, per kind (empty when nothing was). */
  flush(): Map<string, number> {
    const held = new Map(this.#held);
    this.#held.clear();
    this.#start = null;
    this.#shown = 0;
    return held;
  }
}
