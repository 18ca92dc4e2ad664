/**
 * A child's view of its parents (worker/parents.ts): order and count bound, a pruned parent,
 * and the bound on the bytes of results read.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parentIds, readParents } from "../../src/worker/parents.ts";
import { MAX_PARENT_RESULTS_BYTES, MAX_PARENTS_READ } from "../../src/core/bounds.ts";
import type { TaskRecord } from "../../src/core/task.ts";

const record = (id: string, result: unknown) => ({ id, status: "succeeded", result }) as TaskRecord;
const links = (dependsOn: string[], onSuccessOf: string | null = null) => ({
  dependsOn,
  onSuccessOf,
  onFailureOf: null,
});

describe("ctx.parents", () => {
  it("names dependsOn first, then onSuccessOf, each once, at most MAX_PARENTS_READ", () => {
    assert.deepEqual(parentIds(links(["a", "b"], "a")), ["a", "b"]);
    assert.deepEqual(parentIds(links(["a"], "s")), ["a", "s"]);
    const many = Array.from({ length: MAX_PARENTS_READ + 5 }, (_, i) => `p${i}`);
    assert.equal(parentIds(links(many)).length, MAX_PARENTS_READ);
  });

  it("reads a parent removed by retention as pruned", async () => {
    const found = await readParents(
      links(["kept", "gone"]),
      (id) => Promise.resolve(id === "kept" ? record(id, 7) : null),
    );
    assert.deepEqual(found, {
      kept: { status: "succeeded", result: 7 },
      gone: { status: "pruned", result: null },
    });
  });

  it("leaves out results past MAX_PARENT_RESULTS_BYTES, marked truncated", async () => {
    const big = "x".repeat(MAX_PARENT_RESULTS_BYTES * 0.6);
    const found = await readParents(
      links(["a", "b", "c"]),
      (id) => Promise.resolve(record(id, id === "c" ? 1 : big)),
    );
    assert.equal(found.a.result, big);
    assert.deepEqual(found.b, { status: "succeeded", result: null, truncated: true });
    assert.deepEqual(found.c, { status: "succeeded", result: 1 }, "a small one still fits");
  });
});
