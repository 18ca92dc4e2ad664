/**
 * @module submitter — the Scheduler's submit path: validate every spec, turn tasks into what
 * the store stores (parents first) and schedules into records, flag types no live worker
 * handles, store the tasks all or none, create the schedules, answer per spec.
 *
 * A submit of one task goes through the {@link EnqueueCoalescer}, so concurrent ones (HTTP
 * requests) share store calls. The path is written for the one-spec case, which is every
 * `POST /tasks`: no per-spec closures, maps or spreads it does not need.
 */
import * as v from "valibot";
import type { Clock } from "../core/clock.ts";
import { ConflictError, type FieldIssue, ValidationError } from "../core/errors.ts";
import type { OutboundPolicy } from "../core/outbound-policy.ts";
import { callerIssues, orderBatch, toNewTask, toSchedule } from "../core/submission.ts";
import type { NewTask, PRUNED_STATUS, ScheduleRecord, TaskStatus } from "../core/task.ts";
import { collectSpecIssues, normalise, type TaskSpec } from "../core/task-schema.ts";
import type { Enqueued, Storage } from "../storage/storage.ts";
import { EnqueueCoalescer } from "./enqueue-coalescer.ts";
import { createSchedule } from "./schedules.ts";
import { storedBefore } from "./store-checks.ts";
import { checkTypes, type TypeDirectory } from "./type-directory.ts";

/** Most specs in one `submitMany` (the HTTP API allows 1000 per request). */
export const MAX_SUBMIT_BATCH = 10_000;

/** What `submitMany` reports per spec. */
export interface Submitted {
  id: string;
  kind: "task" | "schedule";
  status: TaskStatus | "active" | typeof PRUNED_STATUS;
  nextRunAt?: number;
  /** An earlier try of this same submit had stored the task; nothing new was stored. */
  existing?: true;
  /**
   * Its `dedupe` key was taken: nothing was stored, `id` is the first task's and `status` its
   * status now (`pruned` once retention removed its row).
   */
  deduplicated?: true;
  /**
   * Its `debounce` key mapped to a task still waiting: nothing new was stored, that task
   * (`id`) now carries this spec and waits until `runAt`.
   */
  debounced?: true;
  /** A debounced task's new runAt. */
  runAt?: number;
  /** Present when its type has no handler on any live worker (the task is stored all the same). */
  warnings?: string[];
}

export interface SubmitterOptions {
  storage: Storage;
  clock: Clock;
  types: TypeDirectory;
  strictTypes: boolean;
  callbackPool: string;
  minIntervalMs: number;
  outboundPolicy: OutboundPolicy | undefined;
  /** Per task type, the schema its payload must pass (`register`'s `payloadSchema`). */
  payloadSchemas: ReadonlyMap<string, v.GenericSchema>;
  /** The deployment's own rules (`SchedulerOptions.specRules`). */
  specRules?: (spec: TaskSpec, at: string) => FieldIssue[];
}

export class Submitter {
  readonly #o: SubmitterOptions;
  /** None on a partitioned store: its batches are all or none within one partition only. */
  readonly #coalescer: EnqueueCoalescer | null;

  constructor(options: SubmitterOptions) {
    this.#o = options;
    this.#coalescer = (options.storage.partitions ?? 1) === 1
      ? new EnqueueCoalescer(options.storage)
      : null;
  }

  /** See `Scheduler.submitMany`. */
  async submitMany(specs: unknown[], options: { batch?: boolean } = {}): Promise<Submitted[]> {
    const n = specs.length;
    if (n > MAX_SUBMIT_BATCH) {
      // One batch is one atomic store call: its size bounds how long the store is busy.
      throw new ValidationError([{
        path: "",
        message: `a batch holds at most ${MAX_SUBMIT_BATCH} specs, got ${n}`,
      }], "batch");
    }
    const { storage, clock, callbackPool: pool } = this.#o;
    const now = clock.now();
    const batch = options.batch ?? n > 1;
    let issues: FieldIssue[] | null = null;
    for (let i = 0; i < n; i++) {
      const found = this.specIssues(specs[i], batch ? `[${i}].` : "", now);
      if (found.length) (issues ??= []).push(...found);
    }
    if (issues) throw new ValidationError(issues);
    const types: string[] = new Array(n);
    // Per spec its task (null for a schedule), and the schedules (none: null).
    const tasks: (NewTask | null)[] = new Array(n);
    let schedules: (ScheduleRecord | null)[] | null = null;
    const list: NewTask[] = [];
    for (let i = 0; i < n; i++) {
      const p = normalise(specs[i] as TaskSpec, now);
      types[i] = p.type;
      if (p.everyMs !== null || p.cron !== null) {
        tasks[i] = null;
        (schedules ??= new Array(n).fill(null))[i] = toSchedule(p, now, pool);
      } else list.push(tasks[i] = toNewTask(p, now, pool));
    }
    // The store sees the tasks parents first, schedules left out: its errors are mapped back
    // to the caller's indices.
    const indices = list.length === n ? null : tasks.flatMap((t, i) => (t ? [i] : []));
    const ordered = list.length > 1
      ? orderBatch(list, { indices: indices ?? list.map((_, i) => i), batch })
      : list;
    const checked = checkTypes(this.#o.types, types, { batch, strict: this.#o.strictTypes });
    const warnings = checked instanceof Promise ? await checked : checked;
    let stored: Enqueued[];
    try {
      stored = ordered.length === 1 && n === 1 && this.#coalescer
        ? [await this.#coalescer.enqueue(ordered[0], now)]
        : await storage.enqueue({ tasks: ordered, now });
    } catch (error) {
      const before = error instanceof ConflictError
        ? await storedBefore(storage, specs as TaskSpec[], tasks)
        : null;
      if (before) return before.map((s, i) => warned(s, warnings[i]));
      if (error instanceof ValidationError) {
        const callerOf = new Map(
          (indices ?? list.map((_, i) => i)).map((i) => [tasks[i]!.id, i] as [string, number]),
        );
        throw callerIssues(error, ordered, callerOf, batch);
      }
      throw error;
    }
    // Answers come in the order of `ordered`; a dedupe hit's id is the first task's.
    const byId = ordered.length > 1 ? new Map(ordered.map((t, k) => [t.id, stored[k]])) : null;
    if (schedules) {
      for (let i = 0; i < n; i++) {
        const schedule = schedules[i];
        if (schedule) schedules[i] = await createSchedule(storage, schedule, now);
      }
    }
    const out: Submitted[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const schedule = schedules?.[i];
      out[i] = warned(
        schedule
          ? { id: schedule.id, kind: "schedule", status: "active", nextRunAt: schedule.nextRunAt }
          : answered(byId ? byId.get(tasks[i]!.id)! : stored[0]),
        warnings[i],
      );
    }
    return out;
  }

  /** The spec's issues (paths prefixed `at`), its payload's against its type's schema last. */
  specIssues(spec: unknown, at: string, now: number): FieldIssue[] {
    const found = collectSpecIssues(spec, at, {
      minIntervalMs: this.#o.minIntervalMs,
      now,
      outboundPolicy: this.#o.outboundPolicy,
    });
    if (found.length) return found;
    const payload = this.#payloadIssues(spec as TaskSpec, at);
    return payload.length ? payload : this.#o.specRules?.(spec as TaskSpec, at) ?? [];
  }

  #payloadIssues(spec: TaskSpec, at: string): FieldIssue[] {
    const schema = this.#o.payloadSchemas.get(spec.type);
    if (!schema) return [];
    const result = v.safeParse(schema, spec.payload);
    if (result.success) return [];
    return result.issues.map((issue) => ({
      path: `${at}payload${issue.path ? `.${v.getDotPath(issue)}` : ""}`,
      message: issue.message,
    }));
  }
}

/** A stored task's answer. */
function answered(a: Enqueued): Submitted {
  if ("deduplicated" in a) return { id: a.id, kind: "task", status: a.status, deduplicated: true };
  if ("debounced" in a) {
    return { id: a.id, kind: "task", status: a.status, debounced: true, runAt: a.runAt };
  }
  return { id: a.id, kind: "task", status: a.status };
}

function warned(s: Submitted, warnings: string[] | undefined): Submitted {
  if (warnings) s.warnings = warnings;
  return s;
}
