/**
 * @module dispatch-designs — the three designs the dispatch benchmark compares, behind one
 * small interface: this scheduler (wheel + pools on the embedded store), the seed's final
 * design (a min-heap by due time, one loop sleeping until the earliest task, a bounded
 * worker pool) and one `setTimeout` per task.
 *
 * Every design runs the same no-op task: it reports its start through `onStart(i)` and
 * nothing else, so what is measured is the path from "due" to "running".
 */
import { MemoryStorage, Scheduler, silentLogger } from "../../src/mod.ts";
import type { Clock } from "../../src/mod.ts";
import { runtimeClock } from "../../src/adapters/runtime.ts";

export interface Design {
  /** Builds and starts the design (not part of the per-task scheduling cost). */
  setup(): Promise<void>;
  /** Schedules task i to start at `due[i]` (epoch ms), for every i. */
  scheduleAll(due: Float64Array): Promise<void>;
  teardown(): Promise<void>;
}

export interface DesignOptions {
  /** Called by the running task with its index, as the first thing it does. */
  onStart(i: number): void;
  /** Worker pool size for the designs that have one. */
  pool: number;
  /** Specs per `submitMany` call for the scheduler; 1 means `submit` one at a time. */
  batch: number;
  /** The scheduler's `exactDue`: start at the due millisecond, or at the wheel's tick. */
  exactDue: boolean;
}

export const DESIGNS = ["scheduler", "heap", "timeout"] as const;
export type DesignName = (typeof DESIGNS)[number];

export function makeDesign(name: DesignName, o: DesignOptions): Design {
  if (name === "scheduler") return schedulerDesign(o);
  if (name === "heap") return heapDesign(o);
  return timeoutDesign(o);
}

/**
 * A clock whose `now()` can be pinned for the synchronous part of one `submitMany` call.
 * `delay` is relative to the scheduler's own reading of the clock; pinning that reading lets
 * the bench choose `delay = due - pinned` so the stored runAt is exactly `due`, and lateness
 * is measured against the instant the scheduler promised, not one a millisecond off.
 */
function pinnableClock(): Clock & { pin(): number; unpin(): void } {
  let pinned: number | null = null;
  return {
    ...runtimeClock,
    now: () => pinned ?? Date.now(),
    pin: () => (pinned = Date.now()),
    unpin: () => void (pinned = null),
  };
}

function schedulerDesign(o: DesignOptions): Design {
  const clock = pinnableClock();
  // Retention of finished attempts stays at its default (10k): what a real worker keeps.
  const s = new Scheduler({
    storage: new MemoryStorage(),
    pools: { default: o.pool },
    exactDue: o.exactDue,
    clock,
    logger: silentLogger,
  });
  s.register("noop", (payload: { i: number }) => o.onStart(payload.i));
  return {
    setup: () => s.start(),
    async scheduleAll(due) {
      for (let i = 0; i < due.length; i += o.batch) {
        const now = clock.pin();
        const specs = [];
        for (let j = i; j < Math.min(due.length, i + o.batch); j++) {
          // Past due only if scheduling overran the lead; the bench flags that run.
          specs.push({ type: "noop", payload: { i: j }, delay: Math.max(0, due[j] - now) });
        }
        // submitMany reads the clock before its first await, so the pin covers exactly it.
        const pending = o.batch === 1 ? s.submit(specs[0]) : s.submitMany(specs);
        clock.unpin();
        await pending;
      }
    },
    teardown: () => s.shutdown({ timeoutMs: 1_000 }),
  };
}

interface Entry {
  due: number;
  seq: number;
  payload: { i: number };
}

/** A binary min-heap of entries by (due, seq): the seed's delay queue. */
class DueHeap {
  readonly #a: Entry[] = [];

  get size(): number {
    return this.#a.length;
  }

  peek(): Entry | undefined {
    return this.#a[0];
  }

  push(e: Entry): void {
    const a = this.#a;
    let i = a.push(e) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }

  pop(): Entry | undefined {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    for (let i = 0;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < a.length && before(a[l], a[m])) m = l;
      if (r < a.length && before(a[r], a[m])) m = r;
      if (m === i) return top;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }
}

const before = (x: Entry, y: Entry) => x.due < y.due || (x.due === y.due && x.seq < y.seq);

/**
 * The seed's final design, written small and fair: one async loop sleeps (setTimeout) until
 * the earliest due entry, pops everything due, and hands each to a bounded pool; when the
 * pool is full the loop waits for a free slot. A push earlier than the current sleep target
 * wakes the loop so it can re-arm.
 */
function heapDesign(o: DesignOptions): Design {
  const heap = new DueHeap();
  let seq = 0;
  let running = true;
  let active = 0;
  let sleepUntil = Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | null = null;
  let slotFreed: (() => void) | null = null;

  const handler = (payload: { i: number }) => o.onStart(payload.i);
  const run = async (e: Entry) => {
    active++;
    try {
      await handler(e.payload);
    } finally {
      active--;
      slotFreed?.();
    }
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      sleepUntil = ms === Infinity ? Infinity : Date.now() + ms;
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
      if (ms !== Infinity) timer = setTimeout(wake, ms);
    });
  const loop = async () => {
    while (running) {
      const top = heap.peek();
      const wait = top ? top.due - Date.now() : Infinity;
      if (wait > 0) {
        await sleep(wait);
        continue;
      }
      heap.pop();
      if (active >= o.pool) {
        await new Promise<void>((resolve) => (slotFreed = resolve));
        slotFreed = null;
      }
      run(top!);
    }
  };
  let done: Promise<void> = Promise.resolve();
  return {
    setup() {
      done = loop();
      return Promise.resolve();
    },
    scheduleAll(due) {
      for (let i = 0; i < due.length; i++) {
        heap.push({ due: due[i], seq: seq++, payload: { i } });
        if (due[i] < sleepUntil) wake?.();
      }
      return Promise.resolve();
    },
    async teardown() {
      running = false;
      wake?.();
      await done;
    },
  };
}

/** One runtime timer per task: the runtime's own timer heap is the scheduler. */
function timeoutDesign(o: DesignOptions): Design {
  const handler = (payload: { i: number }) => o.onStart(payload.i);
  return {
    setup: () => Promise.resolve(),
    scheduleAll(due) {
      for (let i = 0; i < due.length; i++) {
        setTimeout(handler, Math.max(0, due[i] - Date.now()), { i });
      }
      return Promise.resolve();
    },
    teardown: () => Promise.resolve(),
  };
}
