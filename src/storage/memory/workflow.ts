/**
 * @module workflow — how a parent's final outcome settles its waiting children. Used by the
 * embedded store; the Redis scripts implement the same rules in Lua.
 */
import type { ParentCondition, TaskStatus } from "../../core/task.ts";

/**
 * Whether a parent that ended in `status` satisfies `condition`: "success" needs
 * `succeeded`, "failure" needs `dead` or `expired` (it never ran to success). Null while the
 * parent is unfinished.
 */
export function conditionOutcome(
  condition: ParentCondition,
  status: TaskStatus,
): "met" | "broken" | null {
  if (status === "succeeded") return condition === "success" ? "met" : "broken";
  if (status === "dead" || status === "expired") return condition === "failure" ? "met" : "broken";
  if (status === "cancelled") return "broken";
  return null;
}

/** The cancel reason recorded on a child whose parent broke its condition. */
export function brokenReason(parentId: string, status: TaskStatus): string {
  return `parent ${parentId} ended ${status}`;
}

/** The error of a task that lost its worker once too often (lua/recoverExpired-1.lua says the same). */
export function stallDeath(lost: string, stalls: number, maxStalls: number): string {
  return `${lost}; the task stalled ${stalls} times (maxStalls ${maxStalls}), so it is dead: ` +
    "it may be killing its workers";
}
