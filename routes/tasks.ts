/**
 * @module tasks — `/skedulr/api/tasks...`: submit one or a batch, get, list, a task's log,
 * cancel, resubmit one, resubmit in bulk.
 *
 * A submit answers 201 when it stored something, and 200 (`existing: true`) when it was an
 * identical retry of a submit already stored under the same custom ids (see
 * `Scheduler.submitMany`): a client whose submit timed out retries it safely. A single
 * submit whose `dedupe` key was taken answers 200 with the first task (`deduplicated: true`),
 * one whose `debounce` key re-armed a waiting task 200 with it (`debounced: true`, `runAt`);
 * in a batch such items are flagged and the answer stays 201.
 *
 * A spec whose type no live worker handles is stored all the same and the answer carries
 * `warnings` (top-level in a batch, each prefixed with its spec's `[i]`); in strict mode it
 * is refused with 422 `unknown_type`.
 */
import type { Hono, MiddlewareHandler } from "hono";
import {
  isTraceparent,
  MAX_PARENTS_READ,
  NotFoundError,
  PRUNED_STATUS,
  type Scheduler,
  type Submitted,
  type TaskRecord,
  ValidationError,
} from "../src/mod.ts";
import { describe, requiredBody, validate } from "./body.ts";
import type { SkedulrEnv } from "./env.ts";
import { requireRole, role } from "./roles.ts";
import { waitForTask } from "./task-wait.ts";
import {
  BulkResubmitSchema,
  CancelSchema,
  MAX_BATCH,
  parseListQuery,
  parseLogsQuery,
  parseTaskQuery,
} from "./schemas.ts";

/**
 * What a submit answers per spec: `{ id, status }`, plus `nextRunAt` for a schedule,
 * `existing: true` for a task an earlier try of the same submit stored, and
 * `deduplicated: true` for the first task of a taken `dedupe` key, `debounced: true` and
 * `runAt` for the waiting task a `debounce` key re-armed.
 */
export function submittedView(s: Submitted): {
  id: string;
  status: string;
  nextRunAt?: number;
  existing?: true;
  deduplicated?: true;
  debounced?: true;
  runAt?: number;
} {
  if (s.kind === "schedule") return { id: s.id, status: s.status, nextRunAt: s.nextRunAt };
  if (s.existing) return { id: s.id, status: s.status, existing: true };
  if (s.deduplicated) return { id: s.id, status: s.status, deduplicated: true };
  if (s.debounced) return { id: s.id, status: s.status, debounced: true, runAt: s.runAt };
  return { id: s.id, status: s.status };
}

/** The warnings of a batch, each naming its spec as `[i]: `; undefined when none. */
function batchWarnings(submitted: Submitted[]): { warnings?: string[] } {
  const warnings = submitted.flatMap((s, i) => (s.warnings ?? []).map((w) => `[${i}]: ${w}`));
  return warnings.length ? { warnings } : {};
}

/** 200 when nothing new was stored (an identical retry), else 201. */
function submitStatus(submitted: Submitted[]): 200 | 201 {
  return submitted.every((s) => s.existing) ? 200 : 201;
}

function badBody(message: string): ValidationError {
  return new ValidationError([{ path: "", message }], "request body");
}

/** A task's parents with how it waits on each and their status now (`pruned`: gone). */
async function parentsOf(scheduler: Scheduler, t: TaskRecord) {
  const links: [string, "dependsOn" | "onSuccessOf" | "onFailureOf"][] = [
    ...t.dependsOn.map((p) => [p, "dependsOn"] as [string, "dependsOn"]),
  ];
  if (t.onSuccessOf) links.push([t.onSuccessOf, "onSuccessOf"]);
  if (t.onFailureOf) links.push([t.onFailureOf, "onFailureOf"]);
  return await Promise.all(
    links.slice(0, MAX_PARENTS_READ).map(async ([id, relation]) => ({
      id,
      relation,
      status: (await scheduler.get(id))?.status ?? PRUNED_STATUS,
    })),
  );
}

/**
 * A one-off task spec in the request's trace: the `traceparent` header when the spec names
 * none (an invalid header is ignored, as W3C Trace Context says; a bad spec field is a 400).
 */
function inTrace(spec: unknown, header: string | undefined): unknown {
  if (!header || !isTraceparent(header)) return spec;
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) return spec;
  const s = spec as Record<string, unknown>;
  if (s.traceparent !== undefined || s.every !== undefined || s.cron !== undefined) return spec;
  return { ...s, traceparent: header };
}

/** What `POST /tasks` answers: its status, body and `Location` (for a task). */
export interface SubmitAnswer {
  status: 200 | 201;
  view: ReturnType<typeof submittedView> & { warnings?: string[] };
  location?: string;
}

/** `POST /tasks` once the request is admitted and its body read (fast-submit.ts shares it). */
export async function submitOne(
  scheduler: Scheduler,
  body: unknown,
  traceparent: string | undefined,
): Promise<SubmitAnswer> {
  const spec = requiredBody(body, "a task spec");
  if (Array.isArray(spec)) {
    throw badBody("expected a task spec object, got an array (POST arrays to /tasks/batch)");
  }
  const [submitted] = await scheduler.submitMany([inTrace(spec, traceparent)]);
  const view: SubmitAnswer["view"] = submittedView(submitted);
  if (submitted.warnings) view.warnings = submitted.warnings;
  const hit = submitted.deduplicated || submitted.debounced;
  return {
    status: hit ? 200 : submitStatus([submitted]),
    view,
    location: submitted.kind === "task"
      ? `/skedulr/api/tasks/${encodeURIComponent(submitted.id)}`
      : undefined,
  };
}

/** Registers the task routes on the `/skedulr/api` app. */
export function taskRoutes(
  api: Hono<SkedulrEnv>,
  scheduler: Scheduler,
  body: MiddlewareHandler<SkedulrEnv>,
): void {
  api.post("/tasks", role("submit"), body, async (c) => {
    const answer = await submitOne(scheduler, c.get("body"), c.req.header("traceparent"));
    if (answer.location) c.header("Location", answer.location);
    return c.json(answer.view, answer.status);
  });

  api.post("/tasks/batch", role("submit"), body, async (c) => {
    const specs = requiredBody(c.get("body"), "an array of task specs");
    if (!Array.isArray(specs)) {
      throw badBody(`expected an array of task specs, got ${describe(specs)}`);
    }
    if (specs.length === 0) throw badBody("expected at least one task spec, got an empty array");
    if (specs.length > MAX_BATCH) {
      throw badBody(`expected at most ${MAX_BATCH} task specs, got ${specs.length}`);
    }
    // batch: true names the index in every issue path, even for a batch of one.
    const traceparent = c.req.header("traceparent");
    const submitted = await scheduler.submitMany(specs.map((s) => inTrace(s, traceparent)), {
      batch: true,
    });
    return c.json(
      { tasks: submitted.map(submittedView), ...batchWarnings(submitted) },
      submitStatus(submitted),
    );
  });

  api.get("/tasks", role("read"), async (c) => {
    const page = await scheduler.list(parseListQuery(c.req.url, "tasks"));
    return c.json({ tasks: page.items, next: page.next });
  });

  // The record, its workflow parents (at most 100) and a page of its children, with statuses.
  api.get("/tasks/:id", role("read"), async (c) => {
    const id = c.req.param("id");
    const page = parseTaskQuery(c.req.url);
    const task = await scheduler.get(id);
    if (!task) throw new NotFoundError("Task", id);
    const [parents, children] = await Promise.all([
      parentsOf(scheduler, task),
      scheduler.children(id, page),
    ]);
    return c.json({
      ...task,
      parents,
      children: children.items.map((t) => ({ id: t.id, status: t.status })),
      childrenNext: children.next,
    });
  });

  api.get("/tasks/:id/wait", role("read"), (c) => waitForTask(c, scheduler));

  // A page of the task's `ctx.log` lines, oldest first, and how many were dropped.
  api.get("/tasks/:id/logs", role("read"), async (c) => {
    const id = c.req.param("id");
    const page = await scheduler.taskLogs(id, parseLogsQuery(c.req.url));
    if (!page) throw new NotFoundError("Task", id);
    return c.json({ logs: page.items, dropped: page.dropped, next: page.next });
  });

  api.post("/tasks/:id/cancel", role("submit"), body, async (c) => {
    const { reason } = validate(CancelSchema, c.get("body") ?? {}, "cancel request");
    const id = c.req.param("id");
    // Cancelling a schedule removes it, which is admin's; a task is submit's.
    const admin = c.get("principal").role === "admin";
    if (!admin && !(await scheduler.get(id)) && (await scheduler.getSchedule(id))) {
      requireRole(c, "admin", `removing schedule "${id}"`);
    }
    return c.json(await scheduler.cancel(id, reason));
  });

  api.post("/tasks/:id/resubmit", role("submit"), body, async (c) => {
    if (c.get("body") !== undefined && !isEmptyObject(c.get("body"))) {
      throw badBody("expected no body (or {})");
    }
    const task = await scheduler.resubmit(c.req.param("id"));
    return c.json({ id: task.id, status: task.status });
  });

  api.post("/tasks/resubmit", role("admin"), body, async (c) => {
    const input = requiredBody(
      c.get("body"),
      '{ "status": "dead" | "cancelled" | "expired", "type"?, "pool"? }',
    );
    const filter = validate(BulkResubmitSchema, input, "bulk resubmit");
    return c.json({ resubmitted: await scheduler.resubmitMatching(filter) });
  });
}

/** True for `{}`: the only body resubmit accepts besides none. */
function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.keys(value).length === 0;
}
