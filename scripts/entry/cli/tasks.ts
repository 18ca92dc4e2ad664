/**
 * @module cli/tasks — `submit`, `get`, `list`, `dead`, `cancel`, `resubmit`: one task or a
 * page of them over `/skedulr/api/tasks`.
 */
import { CliError, EXIT } from "./api.ts";
import {
  type Command,
  type Context,
  durationOpt,
  FINAL,
  intOpt,
  opt,
  query,
  usageError,
} from "./command.ts";
import { attempts, fields, firstLine, json, note, relative, table, when } from "./format.ts";

const WAIT_HELP = `  --wait           wait until the task ends and print its record: exit 0 when it
                   succeeded, 5 when it ended dead, cancelled or expired, 6 when still
                   unfinished
  --timeout <t>    how long --wait waits: seconds, or 500ms, 30s, 2m (default 60s)`;

const WAIT_OPTIONS = { wait: { type: "boolean" }, timeout: { type: "string" } } as const;

export const submit: Command = {
  name: "submit",
  summary: "submit a task spec (JSON argument or stdin); an array submits a batch",
  help: `usage: skedulr submit [<spec> | -] [--wait [--timeout <t>]] [-q] [--json]

Submits a task spec (a JSON object) or a batch (a JSON array, up to 1000), from the
argument or, without one (or with -), from stdin. Prints "<id>  <status>" per task.

  skedulr submit '{"type":"send_email","payload":{"to":"a@b.c"},"maxRetries":3}'
  echo '[{"type":"echo","payload":1},{"type":"echo","payload":2}]' | skedulr submit

  -q, --quiet      print only the ids, one a line
${WAIT_HELP}`,
  options: { quiet: { type: "boolean", short: "q" }, ...WAIT_OPTIONS },
  positionals: [0, 1],
  async run(ctx) {
    const spec = parseSpec(await specText(ctx));
    const batch = Array.isArray(spec);
    if (batch && ctx.opts.wait) throw usageError("--wait takes one task, not a batch");
    const answer = await ctx.api.request("POST", batch ? "/tasks/batch" : "/tasks", spec);
    for (const w of answer.warnings ?? []) ctx.note(`warning: ${w}`);
    const items: any[] = batch ? answer.tasks : [answer];
    if (ctx.opts.wait) {
      if (answer.nextRunAt !== undefined) throw usageError("--wait takes a task, not a schedule");
      return await waitAndShow(ctx, answer.id);
    }
    if (ctx.json) ctx.out(JSON.stringify(answer));
    else if (ctx.opts.quiet) ctx.out(items.map((t) => t.id).join("\n"));
    else ctx.out(items.map(submittedLine).join("\n"));
  },
};

function submittedLine(t: any): string {
  const extra = [
    t.nextRunAt !== undefined ? `next run ${when(t.nextRunAt)}` : "",
    t.existing ? "(already stored: an identical retry)" : "",
    t.deduplicated ? "(deduplicated: the first task of this dedupe key)" : "",
    t.debounced ? `(debounced: the waiting task now runs ${when(t.runAt)})` : "",
  ].filter(Boolean);
  return [t.id, t.status, ...extra].join("  ");
}

async function specText(ctx: Context): Promise<string> {
  const arg = ctx.args[0];
  if (arg !== undefined && arg !== "-") return arg;
  const piped = await ctx.stdin();
  if (piped === null) {
    throw usageError("give the spec as an argument, or pipe it on stdin (skedulr submit --help)");
  }
  if (!piped.trim()) throw usageError("stdin was empty: expected a JSON task spec");
  return piped;
}

function parseSpec(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usageError(`the spec is not JSON: ${(error as Error).message}`);
  }
}

export const get: Command = {
  name: "get",
  summary: "a task's record",
  help: `usage: skedulr get <id> [--wait [--timeout <t>]] [--json]

Prints the task's status, attempts, times, payload, result and error.

${WAIT_HELP}`,
  options: WAIT_OPTIONS,
  positionals: [1, 1],
  async run(ctx) {
    if (ctx.opts.wait) return await waitAndShow(ctx, ctx.args[0]);
    show(ctx, await ctx.api.request("GET", `/tasks/${encodeURIComponent(ctx.args[0])}`));
  },
};

function show(ctx: Context, t: any): void {
  if (ctx.json) return ctx.out(JSON.stringify(t));
  const pairs: [string, string][] = [
    ["id", t.id],
    ["type", t.type],
    ["status", t.status],
    ["pool", `${t.pool} (priority ${t.priority})`],
    ["attempt", `${attempts(t)}${t.stalls ? `, stalls ${t.stalls}/${t.maxStalls}` : ""}`],
    ["created", when(t.createdAt)],
  ];
  if (t.runAt !== null) pairs.push(["due", when(t.runAt)]);
  if (t.startedAt !== null) pairs.push(["started", when(t.startedAt)]);
  if (t.finishedAt !== null) pairs.push(["finished", when(t.finishedAt)]);
  if (t.progress !== null) pairs.push(["progress", `${t.progress}%`]);
  pairs.push(["payload", json(t.payload)]);
  if (t.result !== null) pairs.push(["result", json(t.result)]);
  if (t.error) pairs.push(["error", t.error.stack ?? t.error.message]);
  if (t.cancelReason) pairs.push(["reason", t.cancelReason]);
  if (t.scheduleId) pairs.push(["schedule", t.scheduleId]);
  if (t.dependsOn?.length) pairs.push(["depends on", t.dependsOn.join(", ")]);
  if (t.workerId) pairs.push(["worker", t.workerId]);
  ctx.out(fields(pairs));
}

/** Polls until the task is final (there is no wait route yet): 50 ms, doubling to 1 s. */
async function waitAndShow(ctx: Context, id: string): Promise<number> {
  const deadline = Date.now() + durationOpt(ctx, "timeout", 60_000);
  let pause = 50;
  for (;;) {
    const t = await ctx.api.request("GET", `/tasks/${encodeURIComponent(id)}`);
    if (FINAL.has(t.status)) {
      show(ctx, t);
      return t.status === "succeeded" ? EXIT.ok : EXIT.taskFailed;
    }
    if (Date.now() >= deadline) {
      show(ctx, t);
      throw new CliError(`task ${id} is still ${t.status} after --timeout`, EXIT.waitTimeout);
    }
    await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(pause * 2, 1000);
  }
}

const LIST_OPTIONS = {
  type: { type: "string" },
  pool: { type: "string" },
  q: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
} as const;

const FILTER_HELP = `  --type <t>       only this task type
  --pool <p>       only this pool
  --q <text>       text in the id, type, key, payload or error (any case)
  --limit <n>      at most n tasks (the API's default page otherwise)
  --cursor <c>     the next page (printed under a full page)`;

export const list: Command = {
  name: "list",
  summary: "tasks, newest first (--status, --type, --pool, --q, --limit)",
  help: `usage: skedulr list [--status <s>[,<s>]] [--type <t>] [--pool <p>] [--q <text>]
                   [--limit <n>] [--cursor <c>] [--json]

  --status <s>     scheduled, waiting, queued, running, retrying, succeeded, dead,
                   cancelled, expired; several with commas or by repeating the option
${FILTER_HELP}`,
  options: { status: { type: "string", multiple: true }, ...LIST_OPTIONS },
  positionals: [0, 0],
  async run(ctx) {
    const status = (ctx.opts.status as string[] | undefined)?.join(",");
    await listTasks(
      ctx,
      status,
      ["ID", "TYPE", "STATUS", "POOL", "ATTEMPT", "CREATED", "NOTE"],
      (t) => [
        t.id,
        t.type,
        t.status,
        t.pool,
        attempts(t),
        relative(t.createdAt),
        note(t),
      ],
    );
  },
};

export const dead: Command = {
  name: "dead",
  summary: "the dead-letter list, with each task's last error",
  help:
    `usage: skedulr dead [--type <t>] [--pool <p>] [--q <text>] [--limit <n>] [--cursor <c>] [--json]

The tasks that failed maxRetries + 1 times (or stalled too often). \`skedulr resubmit <id>\`
queues one again; \`skedulr resubmit --status dead [--type <t>]\` queues them all.

${FILTER_HELP}`,
  options: LIST_OPTIONS,
  positionals: [0, 0],
  async run(ctx) {
    await listTasks(ctx, "dead", ["ID", "TYPE", "POOL", "ATTEMPTS", "FINISHED", "ERROR"], (t) => [
      t.id,
      t.type,
      t.pool,
      String(t.attempt),
      relative(t.finishedAt),
      firstLine(t.error?.message),
    ]);
  },
};

async function listTasks(
  ctx: Context,
  status: string | undefined,
  headers: string[],
  row: (t: any) => string[],
): Promise<void> {
  const q = query({
    status,
    type: opt(ctx, "type"),
    pool: opt(ctx, "pool"),
    q: opt(ctx, "q"),
    limit: intOpt(ctx, "limit"),
    cursor: opt(ctx, "cursor"),
  });
  const page = await ctx.api.request("GET", `/tasks${q}`);
  if (ctx.json) return ctx.out(JSON.stringify(page));
  if (page.tasks.length === 0) return ctx.note("no tasks match");
  ctx.out(table(headers, page.tasks.map(row)));
  if (page.next) ctx.note(`more: add --cursor ${page.next}`);
}

export const cancel: Command = {
  name: "cancel",
  summary: "cancel a task (a running one is aborted); a schedule's id removes it",
  help: `usage: skedulr cancel <id> [--reason <text>] [--json]

A queued, scheduled or waiting task never runs; a running task's signal aborts and it
ends cancelled, without a retry. Cancelling a schedule's id removes the schedule (admin).`,
  options: { reason: { type: "string" } },
  positionals: [1, 1],
  async run(ctx) {
    const reason = opt(ctx, "reason");
    const answer = await ctx.api.request(
      "POST",
      `/tasks/${encodeURIComponent(ctx.args[0])}/cancel`,
      reason === undefined ? {} : { reason },
    );
    ctx.out(ctx.json ? JSON.stringify(answer) : `${answer.id}  ${answer.status}`);
  },
};

export const resubmit: Command = {
  name: "resubmit",
  summary: "queue a dead, cancelled or expired task again (or all of them: --status)",
  help: `usage: skedulr resubmit <id> [--json]
       skedulr resubmit --status dead|cancelled|expired [--type <t>] [--pool <p>] [--json]

Queues a dead, cancelled or expired task again under the same id, its attempts reset (and
its expiry dropped). With
--status and no id, every task in that status (of that type and pool) is queued again:
that is admin's.`,
  options: { status: { type: "string" }, type: { type: "string" }, pool: { type: "string" } },
  positionals: [0, 1],
  async run(ctx) {
    const status = opt(ctx, "status");
    const [id] = ctx.args;
    if ((id === undefined) === (status === undefined)) {
      throw usageError("give a task id, or --status dead|cancelled|expired for a bulk resubmit");
    }
    if (id !== undefined) {
      if (opt(ctx, "type") || opt(ctx, "pool")) {
        throw usageError("--type and --pool go with --status");
      }
      const answer = await ctx.api.request("POST", `/tasks/${encodeURIComponent(id)}/resubmit`);
      return ctx.out(ctx.json ? JSON.stringify(answer) : `${answer.id}  ${answer.status}`);
    }
    const body = { status, type: opt(ctx, "type"), pool: opt(ctx, "pool") };
    const answer = await ctx.api.request("POST", "/tasks/resubmit", body);
    ctx.out(ctx.json ? JSON.stringify(answer) : `resubmitted ${answer.resubmitted}`);
  },
};
