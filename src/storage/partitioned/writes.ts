/**
 * @module partitioned/writes — the task writes of a partitioned store: a submit placed and
 * stored one partition at a time, a running attempt's writes where its claim token says, a
 * task's where its id says (or where it is found).
 *
 * A submit all of whose tasks land in one partition (a lone task, a workflow, anything tied
 * to one key, a batch of untied tasks) is one script call: all or none. A batch whose tasks
 * are tied to different partitions is stored one partition at a time, in order: each share
 * all or none, and a share that is refused leaves the shares before it stored (the error
 * says why; a retry of the same batch with custom ids is answered as stored).
 *
 * Custom ids are unique across partitions: a task with one is looked for in the partitions
 * it does not go to (and a schedule of that id where it would live) before it is stored;
 * two submits of one id racing into different partitions (only possible when they are tied
 * to different keys or parents) may both be stored.
 */
import {
  ConflictError,
  type FieldIssue,
  NotFoundError,
  ValidationError,
} from "../../core/errors.ts";
import { hashPartition, partitionOfId } from "../../core/partitions.ts";
import type { NewTask, TaskRecord } from "../../core/task.ts";
import type * as P from "../params.ts";
import type { Storage } from "../storage.ts";
import type { Enqueued, Lease, LoggedLease } from "../types.ts";
import { parentRefs, place, submitIssues } from "./placement.ts";

export abstract class PartitionWrites {
  protected readonly parts: Storage[];
  /** The partition the next batch tied to nothing goes to (taken in turn). */
  #next: number;

  constructor(parts: Storage[]) {
    if (parts.length < 1) throw new RangeError("A partitioned store needs at least 1 partition");
    this.parts = parts;
    this.#next = Math.floor(Math.random() * parts.length);
  }

  get #n(): number {
    return this.parts.length;
  }

  /** The partition task `id` is in: its id says, else every partition is asked at once. */
  protected async locate(id: string): Promise<number | null> {
    const k = partitionOfId(id, this.#n);
    if (k !== null) return k;
    const found = await Promise.all(this.parts.map((p) => p.get(id)));
    const at = found.findIndex((t) => t !== null);
    return at < 0 ? null : at;
  }

  /** Throws ConflictError(`message`) when a task `id` is stored in a partition but `except`. */
  protected async assertNoTask(id: string, except: number, message: string): Promise<void> {
    const found = await Promise.all(
      this.parts.map((p, k) => (k === except ? null : p.get(id))),
    );
    if (found.some((t) => t !== null)) throw new ConflictError(message);
  }

  async enqueue({ tasks, now }: P.EnqueueParams): Promise<Enqueued[]> {
    if (tasks.length === 0) return [];
    const placed = await place(tasks, this.#n, (ids) => this.#locateAll(ids), () => {
      this.#next = (this.#next + 1) % this.#n;
      return this.#next;
    });
    const shares = new Map<number, number[]>();
    placed.parts.forEach((k, i) => shares.set(k, [...(shares.get(k) ?? []), i]));
    // Refused before any share is stored: what can be checked up front.
    const unknown = shares.size > 1
      ? [...placed.unknown, ...await this.#missingParents(placed.tasks)]
      : placed.unknown;
    if (unknown.length) throw new ValidationError(unknown);
    await this.#customIdsFree(placed.tasks, placed.parts);
    const answers: Enqueued[] = new Array(tasks.length);
    for (const [k, indices] of shares) {
      let stored: Enqueued[];
      try {
        stored = await this.parts[k].enqueue({ tasks: indices.map((i) => placed.tasks[i]), now });
      } catch (error) {
        if (error instanceof ValidationError) throw submitIssues(error, indices, tasks.length);
        throw error;
      }
      indices.forEach((i, j) => (answers[i] = stored[j]));
    }
    return answers;
  }

  async #locateAll(ids: string[]): Promise<Map<string, number | null>> {
    const found = await Promise.all(ids.map(async (id) => [id, await this.locate(id)] as const));
    return new Map(found);
  }

  /** Parents named by store-made ids (`~<k>`) that their partition does not hold. */
  async #missingParents(tasks: NewTask[]): Promise<FieldIssue[]> {
    const inBatch = new Set(tasks.map((t) => t.id));
    const checks = tasks.flatMap((t, i) =>
      parentRefs(t).flatMap(({ id, path }) => {
        const k = partitionOfId(id, this.#n);
        if (k === null || inBatch.has(id)) return [];
        const at = tasks.length > 1 ? `[${i}].${path}` : path;
        return [
          this.parts[k].get(id).then((found) =>
            found ? [] : [{ path: at, message: `unknown task id "${id}"` }]
          ),
        ];
      })
    );
    return (await Promise.all(checks)).flat();
  }

  /** Refuses custom ids stored in another partition, or naming a schedule where it lives. */
  async #customIdsFree(tasks: NewTask[], parts: number[]): Promise<void> {
    if (this.#n === 1) return;
    await Promise.all(tasks.map(async (t, i) => {
      if (t.generatedId) return;
      // A schedule of that id lives where the id hashes (never a callback's: `__` ids).
      const home = hashPartition(t.id, this.#n);
      const [, schedule] = await Promise.all([
        this.assertNoTask(t.id, parts[i], `Task id "${t.id}" is already in use`),
        home === parts[i] ? null : this.parts[home].getSchedule(t.id),
      ]);
      if (schedule) throw new ConflictError(`Id "${t.id}" is already in use by a schedule`);
    }));
  }

  /** The partition and partition-own lease of a running attempt (its token's `@<k>`). */
  #lease<L extends Lease>(lease: L): { k: number; lease: L } {
    const at = lease.token.lastIndexOf("@");
    const k = Number(lease.token.slice(at + 1));
    if (at < 0 || !Number.isInteger(k) || k < 0 || k >= this.#n) {
      throw new Error(
        `Lease of task ${lease.id} has token ${JSON.stringify(lease.token)}, which names no ` +
          `partition of this store (${this.#n}): it was not claimed through it`,
      );
    }
    return { k, lease: { ...lease, token: lease.token.slice(0, at) } };
  }

  /** Leases grouped by partition, each with its place in `leases`. */
  #byPart<L extends Lease>(leases: L[]): Map<number, { at: number[]; leases: L[] }> {
    const out = new Map<number, { at: number[]; leases: L[] }>();
    leases.forEach((l, i) => {
      const { k, lease } = this.#lease(l);
      const group = out.get(k) ?? { at: [], leases: [] };
      out.set(k, group);
      group.at.push(i);
      group.leases.push(lease);
    });
    return out;
  }

  async renewLeases(p: P.RenewParams): Promise<string[]> {
    const groups = [...this.#byPart(p.leases)];
    const lost = await Promise.all(
      groups.map(([k, g]) => this.parts[k].renewLeases({ ...p, leases: g.leases })),
    );
    return lost.flat();
  }

  complete(p: P.CompleteParams): Promise<boolean> {
    const { k, lease } = this.#lease(p.lease);
    return this.parts[k].complete({ ...p, lease });
  }

  fail(p: P.FailParams): Promise<"retrying" | "dead" | null> {
    const { k, lease } = this.#lease(p.lease);
    return this.parts[k].fail({ ...p, lease });
  }

  setProgress(p: P.ProgressParams): Promise<boolean> {
    const { k, lease } = this.#lease(p.lease);
    return this.parts[k].setProgress({ ...p, lease });
  }

  async release(p: P.ReleaseParams): Promise<number> {
    const groups = [...this.#byPart<LoggedLease>(p.leases)];
    const counts = await Promise.all(
      groups.map(([k, g]) => this.parts[k].release({ ...p, leases: g.leases })),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  async appendLogs(p: P.AppendLogsParams): Promise<boolean[]> {
    const answers: boolean[] = new Array(p.leases.length).fill(false);
    await Promise.all([...this.#byPart<LoggedLease>(p.leases)].map(async ([k, g]) => {
      const got = await this.parts[k].appendLogs({ ...p, leases: g.leases });
      g.at.forEach((i, j) => (answers[i] = got[j]));
    }));
    return answers;
  }

  async cancel(p: P.CancelParams): Promise<TaskRecord> {
    return await this.parts[await this.#found(p.id)].cancel(p);
  }

  async resubmit(p: P.ResubmitParams): Promise<TaskRecord> {
    return await this.parts[await this.#found(p.id)].resubmit(p);
  }

  async resubmitMatching(p: P.ResubmitMatchingParams): Promise<number> {
    const counts = await Promise.all(this.parts.map((part) => part.resubmitMatching(p)));
    return counts.reduce((a, b) => a + b, 0);
  }

  async #found(id: string): Promise<number> {
    const k = await this.locate(id);
    if (k === null) throw new NotFoundError("Task", id);
    return k;
  }
}
