/**
 * The task event feed's merge of a resume and the live events (src/client/task-event-feed.ts),
 * driven through a store whose timing the test controls: events that arrive live while the
 * buffer is read come once, after the replay, in order; a `missed` page or batch is told.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { openTaskEventFeed } from "../../src/client/task-event-feed.ts";
import type { TaskEvent } from "../../src/core/task-event.ts";
import type { TaskEventListener, TaskEventPage } from "../../src/storage/types.ts";

const ev = (eventId: string, id = "t1"): TaskEvent => ({
  eventId,
  kind: "started",
  id,
  type: "t",
  pool: "default",
  at: 0,
  attempt: 1,
});

/** A store whose buffer read answers when the test says, and whose live side it feeds. */
function controlledStore() {
  let live: TaskEventListener | null = null;
  let answer: ((page: TaskEventPage) => void) | null = null;
  let early: TaskEventPage | null = null;
  const reads: string[] = [];
  return {
    subscribeTaskEvents(listener: TaskEventListener) {
      live = listener;
      return { ready: Promise.resolve(), close: () => (live = null) };
    },
    taskEventsAfter(after: string) {
      reads.push(after);
      if (early) return Promise.resolve(early);
      return new Promise<TaskEventPage>((resolve) => (answer = resolve));
    },
    push: (events: TaskEvent[], missed = false) => live?.(events, missed),
    /** The buffer read's answer: at once if the feed asked already, else when it asks. */
    answer: (page: TaskEventPage) => (answer ? answer(page) : (early = page)),
    reads,
  };
}

describe("task event feed", () => {
  it("delivers what arrived live during the resume once, after the replay, in order", async () => {
    const store = controlledStore();
    const got: string[] = [];
    const feed = openTaskEventFeed(store, {
      after: "1/0",
      onEvents: (events) => got.push(...events.map((e) => e.eventId)),
    });
    // While the buffer is read, batches 2 and 3 arrive live; the read then returns 1/1..3/0.
    store.push([ev("2/0"), ev("2/1")]);
    store.push([ev("3/0")]);
    assert.deepEqual(got, [], "nothing before the replay");
    store.answer({ events: [ev("1/1"), ev("2/0"), ev("2/1"), ev("3/0")], missed: false });
    await feed.ready;
    assert.deepEqual(got, ["1/1", "2/0", "2/1", "3/0"]);
    store.push([ev("3/0")]); // a copy
    store.push([ev("4/0")]);
    assert.deepEqual(got, ["1/1", "2/0", "2/1", "3/0", "4/0"]);
    feed.close();
    store.push([ev("5/0")]);
    assert.equal(got.length, 5, "nothing after close");
  });

  it("tells a missed resume and a missed live batch, and filters", async () => {
    const store = controlledStore();
    const got: string[] = [];
    let missed = 0;
    const feed = openTaskEventFeed(store, {
      after: "1/0",
      filter: { ids: ["t2"] },
      onEvents: (events) => got.push(...events.map((e) => e.eventId)),
      onMissed: () => missed++,
    });
    store.answer({ events: [ev("7/0", "t2"), ev("7/1")], missed: true });
    await feed.ready;
    assert.equal(missed, 1);
    store.push([ev("9/0", "t2")], true);
    assert.equal(missed, 2);
    assert.deepEqual(got, ["7/0", "9/0"]);
    feed.close();
  });

  it("without `after`, reads no buffer and goes live at once", async () => {
    const store = controlledStore();
    const got: string[] = [];
    const feed = openTaskEventFeed(store, {
      onEvents: (events) => got.push(...events.map((e) => e.eventId)),
    });
    await feed.ready;
    store.push([ev("5/0")]);
    assert.deepEqual(got, ["5/0"]);
    assert.deepEqual(store.reads, []);
    feed.close();
  });
});
