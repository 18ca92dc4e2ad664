/**
 * @module suite-logs — task logs (`ctx.log`): lines per attempt in order, paged and filtered,
 * what bad input becomes, the caps, retention, and lines readable while an attempt runs.
 * What faults do to them is suite-logs-faults.ts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, harness, type StorageFactory, T0 } from "./harness.ts";
import { logLineJson } from "../../src/core/task-log.ts";
import { MAX_LOG_MESSAGE_BYTES, MAX_TASK_LOG_BYTES } from "../../src/core/bounds.ts";
import type { LogFilter } from "../../src/storage/storage.ts";
import { gate } from "../../scripts/tools/wait.ts";

/** A task's lines as `<attempt>:<message>`, oldest first. */
export async function lines(h: Harness, id: string, filter?: LogFilter): Promise<string[]> {
  const page = await h.s.taskLogs(id, filter);
  assert.ok(page, `task ${id} is stored`);
  return page.items.map((l) => `${l.attempt}:${l.message}`);
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

export function logsSuite(backend: string, factory: StorageFactory): void {
  describe(`${backend}: task logs`, () => {
    it("keeps the lines of each attempt in order, with attempt numbers; filters and pages them", async () => {
      const h = await harness(factory);
      try {
        h.s.register("chatty", (_p, ctx) => {
          ctx.log("start", { attempt: ctx.attempt });
          if (ctx.attempt === 1) {
            ctx.log("about to fail");
            throw new Error("first attempt fails");
          }
          ctx.log("done");
          return "ok";
        });
        const id = await h.s.submit({
          type: "chatty",
          maxRetries: 1,
          backoff: { type: "fixed", delay: "1s" },
        });
        await h.until(id, "retrying");
        await h.clock.advance(1_000);
        await h.until(id, "succeeded");
        const page = (await h.s.taskLogs(id))!;
        assert.deepEqual(page.items.map(({ at: _, ...line }) => line), [
          { attempt: 1, message: "start", fields: { attempt: 1 } },
          { attempt: 1, message: "about to fail" },
          { attempt: 2, message: "start", fields: { attempt: 2 } },
          { attempt: 2, message: "done" },
        ]);
        const at = page.items.map((l) => l.at);
        assert.deepEqual(at.slice(0, 2), [T0, T0], "the worker's clock when logged");
        assert.ok(at[2] >= T0 + 1_000 && at[3] === at[2], `the retry's lines at ${at}`);
        assert.equal(page.dropped, 0);
        assert.equal(page.next, null);
        assert.deepEqual(await lines(h, id, { attempt: 2 }), ["2:start", "2:done"]);
        const first = (await h.s.taskLogs(id, { limit: 3 }))!;
        assert.equal(first.items.length, 3);
        assert.ok(first.next, "a next page");
        assert.deepEqual(await lines(h, id, { limit: 3, cursor: first.next }), ["2:done"]);
        const one = (await h.s.taskLogs(id, { attempt: 1, limit: 1 }))!;
        assert.deepEqual(one.items.map((l) => l.message), ["start"]);
        const rest = (await h.s.taskLogs(id, { attempt: 1, limit: 1, cursor: one.next! }))!;
        assert.deepEqual(rest.items.map((l) => l.message), ["about to fail"]);
        assert.equal(rest.next, null, "no later line of attempt 1");
        assert.equal(await h.s.taskLogs("no-such-task"), null);
      } finally {
        await h.close();
      }
    });

    it("never throws into the handler: odd messages are printed, bad fields left out, long ones cut", async () => {
      const h = await harness(factory);
      try {
        h.s.register("odd", (_p, ctx) => {
          const cyclic: Record<string, unknown> = {};
          cyclic.self = cyclic;
          (ctx.log as (message: unknown) => void)(42);
          ctx.log("cyclic", cyclic);
          ctx.log("big fields", { blob: "x".repeat(5_000) });
          ctx.log("é".repeat(2_000));
          ctx.log("a list", [1, 2] as unknown as Record<string, unknown>);
          return "fine";
        });
        const id = await h.s.submit({ type: "odd" });
        const t = await h.until(id, "succeeded");
        assert.equal(t.result, "fine");
        const [n, cyclic, big, long, list] = (await h.s.taskLogs(id))!.items;
        assert.deepEqual([n.message, n.fields], ["42", undefined]);
        assert.match(cyclic.message, /^cyclic \[fields dropped: not JSON/);
        assert.equal(cyclic.fields, undefined);
        assert.equal(big.message, "big fields [fields dropped: 5011 bytes of JSON, over 4096]");
        assert.ok(bytes(long.message) <= MAX_LOG_MESSAGE_BYTES, "cut to the bound");
        assert.match(long.message, /^é+… \[cut: 4000 bytes\]$/);
        assert.deepEqual(list.fields, { value: [1, 2] });
      } finally {
        await h.close();
      }
    });

    it("keeps the newest 1,000 lines within 256 KiB, and counts what it dropped", async () => {
      const h = await harness(factory);
      try {
        h.s.register("flood", (p: { n: number; pad: number }, ctx) => {
          for (let i = 1; i <= p.n; i++) ctx.log(`${i} ${"x".repeat(p.pad)}`);
        });
        const many = await h.s.submit({ type: "flood", payload: { n: 1_050, pad: 0 } });
        await h.until(many, "succeeded");
        const page = (await h.s.taskLogs(many, { limit: 1_000 }))!;
        assert.equal(page.items.length, 1_000);
        assert.equal(page.items[0].message, "51 ");
        assert.equal(page.items[999].message, "1050 ");
        assert.equal(page.dropped, 50);
        assert.equal(page.next, null);

        const big = await h.s.submit({ type: "flood", payload: { n: 150, pad: 2_000 } });
        await h.until(big, "succeeded");
        const kept = (await h.s.taskLogs(big, { limit: 1_000 }))!;
        const size = (i: number) => bytes(logLineJson(kept.items[i]));
        const total = kept.items.reduce((sum, _, i) => sum + size(i), 0);
        assert.ok(total <= MAX_TASK_LOG_BYTES, `${total} bytes kept`);
        assert.ok(total + size(0) > MAX_TASK_LOG_BYTES, "no older line would have fit");
        assert.equal(kept.items.length + kept.dropped, 150);
        assert.equal(kept.items.at(-1)!.message.split(" ")[0], "150", "the newest kept");
        assert.equal(kept.items[0].message.split(" ")[0], String(kept.dropped + 1));
      } finally {
        await h.close();
      }
    });

    it("a task's lines go when retention prunes it: a new task under its id starts empty", async () => {
      const h = await harness(factory, { storageOptions: { history: { maxCount: 1 } } });
      try {
        h.s.register("say", (p: { text: string }, ctx) => ctx.log(p.text));
        const id = await h.s.submit({ id: "reused", type: "say", payload: { text: "old" } });
        await h.until(id, "succeeded");
        assert.deepEqual(await lines(h, id), ["1:old"]);
        // Retention is each partition's: the other task goes where the id "reused" lives.
        const other = { type: "say", payload: { text: "other" }, partitionKey: "reused" };
        await h.until(await h.s.submit(other), "succeeded");
        await h.eventually(async () => (await h.s.get(id)) === null, "the row pruned");
        assert.equal(await h.s.taskLogs(id), null);
        await h.s.submit({ id: "reused", type: "say", payload: { text: "new" } });
        await h.until(id, "succeeded");
        assert.deepEqual(await lines(h, id), ["1:new"]);
        assert.equal((await h.s.taskLogs(id))!.dropped, 0);
      } finally {
        await h.close();
      }
    });

    it("a long attempt's lines are readable while it runs: every 5 s, and at once past 100", async () => {
      const h = await harness(factory);
      try {
        const go = gate();
        h.s.register("long", async (p: { n: number }, ctx) => {
          for (let i = 1; i <= p.n; i++) ctx.log(`step ${i}`);
          await go.promise;
          ctx.log("finished");
        });
        const slow = await h.s.submit({ type: "long", payload: { n: 1 } });
        await h.until(slow, "running");
        assert.deepEqual(await lines(h, slow), [], "buffered in the worker");
        await h.clock.advance(5_000);
        await h.eventually(async () => (await lines(h, slow)).length === 1, "the periodic write");
        assert.equal((await h.s.get(slow))!.status, "running");

        const busy = await h.s.submit({ type: "long", payload: { n: 100 } });
        await h.until(busy, "running");
        const written = async () => (await lines(h, busy, { limit: 1_000 })).length;
        await h.eventually(async () => (await written()) === 100, "100 lines written");
        go.open();
        await h.until(slow, "succeeded");
        await h.until(busy, "succeeded");
        assert.deepEqual(await lines(h, slow), ["1:step 1", "1:finished"], "each line once");
        const all = await lines(h, busy, { limit: 1_000 });
        assert.equal(all.length, 101);
        assert.equal(new Set(all).size, 101, "each line once");
      } finally {
        await h.close();
      }
    });
  });
}
