/**
 * How a batch reaches the store (core/submission.ts `orderBatch`): parents before their
 * children, a batch with no parent in the order given, an id twice or a cycle refused with
 * the caller's indices.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { orderBatch } from "../../src/core/submission.ts";
import { ConflictError, ValidationError } from "../../src/core/errors.ts";
import { newTask } from "../../scripts/tools/new-task.ts";

const caller = (n: number) => ({ indices: Array.from({ length: n }, (_, i) => i), batch: true });
const ids = (tasks: { id: string }[]) => tasks.map((t) => t.id);

describe("orderBatch", () => {
  it("keeps a batch with no parent in the order given", () => {
    const tasks = ["c", "a", "b"].map((id) => newTask(id, 1));
    assert.deepEqual(ids(orderBatch(tasks, caller(3))), ["c", "a", "b"]);
  });

  it("puts every parent before its children, whichever way it names them", () => {
    const tasks = [
      newTask("join", 1, { dependsOn: ["left", "right"] }),
      newTask("left", 1, { onSuccessOf: "root" }),
      newTask("right", 1, { onFailureOf: "root" }),
      newTask("root", 1),
      newTask("alone", 1),
    ];
    const order = ids(orderBatch(tasks, caller(5)));
    const before = (a: string, b: string) => order.indexOf(a) < order.indexOf(b);
    assert.deepEqual([...order].sort(), ["alone", "join", "left", "right", "root"]);
    assert.ok(before("root", "left") && before("root", "right"), order.join());
    assert.ok(before("left", "join") && before("right", "join"), order.join());
  });

  it("refuses an id twice, naming both of the caller's indices", () => {
    const tasks = [newTask("x", 1), newTask("y", 1), newTask("x", 1)];
    assert.throws(
      () => orderBatch(tasks, { indices: [4, 7, 9], batch: true }),
      (e: unknown) =>
        e instanceof ConflictError &&
        e.message === 'Task id "x" appears twice in the batch (at [4] and [9])',
    );
  });

  it("refuses a cycle, naming the caller's index of a task on it", () => {
    const tasks = [
      newTask("free", 1),
      newTask("a", 1, { dependsOn: ["b"] }),
      newTask("b", 1, { dependsOn: ["a"] }),
    ];
    assert.throws(
      () => orderBatch(tasks, { indices: [0, 5, 6], batch: true }),
      (e: unknown) =>
        e instanceof ValidationError && /^\[[56]\]\.dependsOn$/.test(e.issues[0].path) &&
        /workflow cycle/.test(e.issues[0].message),
    );
  });
});
