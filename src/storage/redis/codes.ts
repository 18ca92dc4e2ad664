/**
 * @module codes — the one place that turns Lua script return codes into Skedulr errors.
 *
 * Scripts never raise for an expected outcome: they return `{code, ...details}` with a
 * negative code, and {@link checkReply} throws the matching error class with the same
 * message the embedded store uses. The one error a script raises on purpose, a store in
 * another data layout, becomes a StorageLayoutError in {@link scriptError}.
 */
import {
  CapacityError,
  ConflictError,
  type FieldIssue,
  NotFoundError,
  ValidationError,
} from "../../core/errors.ts";
import { layoutError } from "./layout.ts";
import type { RedisReply } from "./transport.ts";

/** Return codes shared by the scripts (a generated fact: the scripts name them `Code.*`). */
export const Code = {
  ok: 0,
  notFound: -1,
  idInUse: -2,
  keyHeld: -3,
  unknownParent: -4,
  capacity: -5,
  wrongStatus: -6,
  scheduleIdInUse: -7,
} as const;

/** What the script was doing, for messages that depend on it. */
export type ScriptOp = "enqueue" | "cancel" | "resubmit" | "putSchedule";

/**
 * Returns the details after a zero code, or throws the error a negative code stands for.
 * `subject` is the task or schedule id the call was about.
 */
export function checkReply(reply: RedisReply, op: ScriptOp, subject = ""): RedisReply[] {
  if (!Array.isArray(reply) || typeof reply[0] !== "number") {
    throw new Error(`Unexpected reply from the ${op} script: ${JSON.stringify(reply)}`);
  }
  const [code, ...d] = reply;
  const s = (i: number) => String(d[i] ?? "");
  switch (code) {
    case Code.ok:
      return d;
    case Code.notFound:
      throw new NotFoundError("Task", subject);
    case Code.idInUse:
      throw new ConflictError(
        op === "putSchedule"
          ? `Id "${subject}" is already in use by a task`
          : `Task id "${s(0)}" is already in use`,
      );
    case Code.keyHeld:
      return keyHeld(s(0), s(1));
    case Code.unknownParent: {
      const issues: FieldIssue[] = [];
      for (let i = 0; i + 1 < d.length; i += 2) {
        issues.push({ path: s(i), message: `unknown task id "${s(i + 1)}"` });
      }
      throw new ValidationError(issues);
    }
    case Code.capacity:
      throw new CapacityError(Number(d[0]));
    case Code.wrongStatus:
      throw new ConflictError(
        op === "cancel"
          ? `Task "${subject}" already ended ${s(0)}`
          : `Task "${subject}" is ${s(0)}; only dead, cancelled or expired tasks ` +
            "can be resubmitted",
      );
    case Code.scheduleIdInUse:
      throw new ConflictError(
        op === "enqueue"
          ? `Id "${s(0)}" is already in use by a schedule`
          : `Schedule id "${subject}" is already in use`,
      );
    default:
      throw new Error(`Unknown code ${code} from the ${op} script: ${JSON.stringify(reply)}`);
  }
}

function keyHeld(key: string, holder: string): never {
  throw new ConflictError(
    `Key "${key}" is held by unfinished task "${holder || "earlier in this batch"}"`,
    holder || undefined,
  );
}

/** What a failed script call throws: the layout guard's refusal as StorageLayoutError. */
export function scriptError(error: unknown): unknown {
  return layoutError(error) ?? error;
}
