/**
 * @module lua-facts — the facts the Lua scripts share with TypeScript, read from the
 * TypeScript that owns each one. scripts/tools/gen-lua.ts writes them to
 * lua/includes/facts.lua (and its `--check` fails when that file or a script is stale), so a
 * script names a fact and never copies its value.
 */
import {
  ALL_STATUSES,
  DEFAULT_MAX_STALLS,
  DEFAULT_POOL,
  EXPIRABLE_STATUSES,
  FINAL_STATUSES,
  PRUNED_STATUS,
} from "../../core/task.ts";
import { MAX_TASK_LOG_BYTES, MAX_TASK_LOG_LINES } from "../../core/bounds.ts";
import {
  CALLBACK_ID_PREFIX,
  CALLBACK_ID_PROBES,
  CALLBACK_MAX_RETRIES,
  CALLBACK_TYPE,
  callbackTask,
} from "../../core/callback.ts";
import { NEVER } from "../../core/catch-up.ts";
import { CASCADE_BUDGET } from "../memory/cascade.ts";
import { PRUNABLE_STATUSES } from "../memory/task-table.ts";
import {
  FLOW_DUE_BOUND,
  FLOW_IDLE_TTL_MS,
  FLOW_SCAN_EXTRA,
  FLOW_STARTS_GRACE_MS,
  FLOW_UNPARK_BOUND,
} from "../memory/flows.ts";
import { DURATION_SAMPLES } from "../stats.ts";
import { TASK_EVENT_BUFFER, TASK_EVENT_CHUNK } from "../../core/task-event.ts";
import { FLOW_KEYS_LISTED, FLOW_KEYS_SCAN } from "../types.ts";
import { ATTEMPT_FIELDS } from "./attempt-codec.ts";
import { CLAIMED_FIELDS, CLAIMED_LATER } from "./claims.ts";
import { SHORT_HEAD, SHORT_HEAD_DEFAULTS, TASK_HEAD, TASK_OPTIONS } from "./codec.ts";
import { Code } from "./codes.ts";
import { INDEX_BUCKET, INDEXED_STATUSES, SEQ_WIDTH, SUBMIT_KEY_GRACE_MS } from "./keys.ts";
import { LAYOUT, LAYOUT_ERROR, UNVERSIONED_LAYOUT } from "./layout.ts";

type LuaValue =
  | string
  | number
  | readonly (string | number)[]
  | ReadonlySet<string>
  | Readonly<Record<string, string | number>>;

/** A value, written as a Lua literal; or `lua`, an expression written as it is. */
type LuaFact = {
  name: string;
  /** Where TypeScript keeps it (the file, and how it is derived when it is). */
  from: string;
} & ({ value: LuaValue; lua?: never } | { lua: string; value?: never });

// insert.lua tells a short head by its "=" where a full head has its payload, never "=".
if (TASK_HEAD[SHORT_HEAD.length] !== "payload") {
  throw new Error("SHORT_HEAD's marker must stand where TASK_HEAD has the payload");
}

/** Every shared fact, under its TypeScript name where it has one. */
export const LUA_FACTS: readonly LuaFact[] = [
  // Text, as HGET returns it.
  { name: "LAYOUT", value: String(LAYOUT), from: "src/storage/redis/layout.ts" },
  {
    name: "UNVERSIONED_LAYOUT",
    value: String(UNVERSIONED_LAYOUT),
    from: "src/storage/redis/layout.ts",
  },
  { name: "LAYOUT_ERROR", value: LAYOUT_ERROR, from: "src/storage/redis/layout.ts" },
  { name: "Code", value: Code, from: "src/storage/redis/codes.ts" },
  { name: "ALL_STATUSES", value: ALL_STATUSES, from: "src/core/task.ts" },
  { name: "FINAL_STATUSES", value: FINAL_STATUSES, from: "src/core/task.ts" },
  {
    name: "UNFINISHED_STATUSES",
    value: ALL_STATUSES.filter((s) => !FINAL_STATUSES.has(s)),
    from: "src/core/task.ts: ALL_STATUSES but FINAL_STATUSES",
  },
  { name: "EXPIRABLE_STATUSES", value: EXPIRABLE_STATUSES, from: "src/core/task.ts" },
  {
    name: "PRUNABLE_STATUSES",
    value: PRUNABLE_STATUSES,
    from: "src/storage/memory/task-table.ts",
  },
  { name: "INDEXED_STATUSES", value: INDEXED_STATUSES, from: "src/storage/redis/keys.ts" },
  { name: "SEQ_WIDTH", value: SEQ_WIDTH, from: "src/storage/redis/keys.ts" },
  { name: "INDEX_BUCKET", value: INDEX_BUCKET, from: "src/storage/redis/keys.ts" },
  { name: "SEQ_FORMAT", value: `%0${SEQ_WIDTH}d`, from: "src/storage/redis/keys.ts: SEQ_WIDTH" },
  { name: "DURATION_SAMPLES", value: DURATION_SAMPLES, from: "src/storage/stats.ts" },
  { name: "CASCADE_BUDGET", value: CASCADE_BUDGET, from: "src/storage/memory/cascade.ts" },
  { name: "DEFAULT_MAX_STALLS", value: DEFAULT_MAX_STALLS, from: "src/core/task.ts" },
  { name: "DEFAULT_POOL", value: DEFAULT_POOL, from: "src/core/task.ts" },
  { name: "NEVER", value: NEVER, from: "src/core/catch-up.ts" },
  { name: "PRUNED_STATUS", value: PRUNED_STATUS, from: "src/core/task.ts" },
  { name: "SUBMIT_KEY_GRACE_MS", value: SUBMIT_KEY_GRACE_MS, from: "src/storage/redis/keys.ts" },
  { name: "FLOW_SCAN_EXTRA", value: FLOW_SCAN_EXTRA, from: "src/storage/memory/flows.ts" },
  { name: "FLOW_UNPARK_BOUND", value: FLOW_UNPARK_BOUND, from: "src/storage/memory/flows.ts" },
  {
    name: "FLOW_STARTS_GRACE_MS",
    value: FLOW_STARTS_GRACE_MS,
    from: "src/storage/memory/flows.ts",
  },
  { name: "FLOW_DUE_BOUND", value: FLOW_DUE_BOUND, from: "src/storage/memory/flows.ts" },
  { name: "FLOW_IDLE_TTL_MS", value: FLOW_IDLE_TTL_MS, from: "src/storage/memory/flows.ts" },
  { name: "FLOW_KEYS_SCAN", value: FLOW_KEYS_SCAN, from: "src/storage/types.ts" },
  { name: "FLOW_KEYS_LISTED", value: FLOW_KEYS_LISTED, from: "src/storage/types.ts" },
  { name: "MAX_TASK_LOG_LINES", value: MAX_TASK_LOG_LINES, from: "src/core/bounds.ts" },
  { name: "MAX_TASK_LOG_BYTES", value: MAX_TASK_LOG_BYTES, from: "src/core/bounds.ts" },
  { name: "TASK_HEAD", value: TASK_HEAD, from: "src/storage/redis/codec.ts" },
  { name: "TASK_OPTIONS", value: TASK_OPTIONS, from: "src/storage/redis/codec.ts" },
  {
    name: "taskHead",
    lua: `function(argv, i) return {${
      [...TASK_HEAD.map((f, k) => `${f} = argv[i + ${k}]`), ...TASK_OPTIONS.map((f) => `${f} = ''`)]
        .join(", ")
    }} end`,
    from: 'src/storage/redis/codec.ts: TASK_HEAD from argv[i] and every TASK_OPTIONS "", ' +
      "in one table sized at once",
  },
  {
    name: "plainHead",
    lua: `function(argv, i) return {${
      [...TASK_HEAD.map((f, k) => `${f} = argv[i + ${k}]`), "plain = true"].join(", ")
    }} end`,
    from: "src/storage/redis/codec.ts: a plain task (no option, no parent): its TASK_HEAD " +
      "from argv[i] and `plain`, in one table sized at once",
  },
  { name: "SHORT_HEAD", value: SHORT_HEAD, from: "src/storage/redis/codec.ts" },
  {
    name: "shortHead",
    lua: `function(argv, i) return {${
      [
        ...SHORT_HEAD.map((f, k) => `${f} = argv[i + ${k}]`),
        // As ARGV gives them: text (a pool name and numbers: never a quote to escape).
        ...Object.entries(SHORT_HEAD_DEFAULTS).map(([f, v]) => `${f} = '${v}'`),
        "plain = true",
      ].join(", ")
    }} end`,
    from: "src/storage/redis/codec.ts: a plain task at its head's defaults: SHORT_HEAD " +
      "from argv[i], the pool, priority and maxRetries at their defaults, and `plain`",
  },
  { name: "TASK_EVENT_CHUNK", value: TASK_EVENT_CHUNK, from: "src/core/task-event.ts" },
  { name: "TASK_EVENT_BUFFER", value: TASK_EVENT_BUFFER, from: "src/core/task-event.ts" },
  { name: "CLAIMED_FIELDS", value: CLAIMED_FIELDS, from: "src/storage/redis/claims.ts" },
  {
    name: "CLAIMED_FIRST",
    value: CLAIMED_FIELDS.length - CLAIMED_LATER,
    from: "src/storage/redis/claims.ts: the fields of CLAIMED_FIELDS every claim reads",
  },
  { name: "CALLBACK_TYPE", value: CALLBACK_TYPE, from: "src/core/callback.ts" },
  { name: "CALLBACK_MAX_RETRIES", value: CALLBACK_MAX_RETRIES, from: "src/core/callback.ts" },
  { name: "CALLBACK_ID_PREFIX", value: CALLBACK_ID_PREFIX, from: "src/core/callback.ts" },
  { name: "CALLBACK_ID_PROBES", value: CALLBACK_ID_PROBES, from: "src/core/callback.ts" },
  {
    name: "CALLBACK_BODY",
    value: callbackBody(),
    from: "src/core/callback.ts: callbackTask's body fields but createdAt, as JSON members",
  },
  {
    name: "CLAIMED_AT",
    value: Object.fromEntries(CLAIMED_FIELDS.map((f, i) => [f, i + 1])),
    from: "src/storage/redis/claims.ts: CLAIMED_FIELDS, 1-based",
  },
  {
    name: "ATTEMPT_AT",
    value: Object.fromEntries(ATTEMPT_FIELDS.map((f, i) => [f, i + 1])),
    from: "src/storage/redis/attempt-codec.ts: ATTEMPT_FIELDS, 1-based",
  },
];

/**
 * The `body` members every callback task shares (codec.ts StoredBody), as JSON text without
 * braces: Lua adds createdAt and the snapshot around them.
 */
function callbackBody(): string {
  const t = callbackTask("", "", "succeeded", "", 0);
  const { timeoutMs, backoff, scheduleId, dependsOn, onSuccessOf, onFailureOf, maxStalls } = t;
  const fields = { timeoutMs, backoff, scheduleId, dependsOn, onSuccessOf, onFailureOf, maxStalls };
  return JSON.stringify(fields).slice(1, -1);
}

const quote = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
const key = (k: string) => (/^[A-Za-z_]\w*$/.test(k) ? k : `[${quote(k)}]`);
const scalar = (v: string | number) => {
  if (typeof v === "string") return quote(v);
  if (!Number.isInteger(v)) throw new TypeError(`Lua facts are integers or text, got ${v}`);
  return String(v);
};

/** A value as a Lua literal: lists stay lists, sets become `{name = true, ...}`. */
export function luaLiteral(value: LuaValue): string {
  if (typeof value === "string" || typeof value === "number") return scalar(value);
  if (value instanceof Set) return `{${[...value].map((v) => `${key(v)} = true`).join(", ")}}`;
  if (Array.isArray(value)) return `{${value.map(scalar).join(", ")}}`;
  const entries = Object.entries(value as Record<string, string | number>);
  return `{${entries.map(([k, v]) => `${key(k)} = ${scalar(v)}`).join(", ")}}`;
}

/** lua/includes/facts.lua: one `local NAME = value` line per fact. */
export function luaFactsSource(): string {
  const lines = LUA_FACTS.map((f) =>
    `local ${f.name} = ${f.value === undefined ? f.lua : luaLiteral(f.value)} -- ${f.from}`
  );
  return `--[[
  The facts the scripts share with TypeScript. Generated from src/storage/redis/lua-facts.ts
  by scripts/tools/gen-lua.ts: do not edit. A script carries the lines it names.
]]
${lines.join("\n")}
`;
}
