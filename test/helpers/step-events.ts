/**
 * @module step-events — the storage events each step of the differential test published,
 * per store, so the two can be compared step by step: a `ready` missing after one call is a
 * worker left asleep, even when the same event was published at another step.
 *
 * The embedded store delivers its write's events on a microtask, long done once the same
 * step's Redis calls answered. On Redis what counts is what the scripts published, which
 * every process sees (the store's own extra local `ready` for each pool it claims from is
 * a guess about its own pools, not compared): they are read from the channel, split into
 * steps by a marker published after each step (one Redis server delivers a channel's
 * messages in publish order), and compared when the test asks, without a wait per step.
 */
import type { Storage } from "../../src/storage/storage.ts";
import type { RedisTransport } from "../../src/storage/redis/transport.ts";
import { gate } from "../../scripts/tools/wait.ts";

const MARKER = "diffStep";

const text = (e: object) => JSON.stringify(e, Object.keys(e).sort());

/** A step whose events differ: each store's distinct events, sorted. */
export interface StepDifference {
  step: number;
  memory: string[];
  redis: string[];
}

export class StepEvents {
  readonly #transport: RedisTransport;
  readonly #channel: string;
  /** Distinct events since the last step ended (Redis says `ready` once per pool). */
  #memory = new Set<string>();
  #redis = new Set<string>();
  /** Ended steps not compared yet, per store. */
  readonly #memorySteps = new Map<number, Set<string>>();
  readonly #redisSteps = new Map<number, Set<string>>();
  #waiting: { step: number; back: () => void } | null = null;
  readonly #unsubscribe: Promise<() => Promise<void>>;

  constructor(memory: Storage, transport: RedisTransport, channel: string) {
    this.#transport = transport;
    this.#channel = channel;
    memory.subscribe((e) => this.#memory.add(text(e)));
    this.#unsubscribe = transport.subscribe(channel, (message) => {
      const e = JSON.parse(message);
      if (e[MARKER] === undefined) return void this.#redis.add(text(e));
      this.#redisSteps.set(e[MARKER], this.#redis);
      this.#redis = new Set();
      const waiting = this.#waiting;
      if (waiting && e[MARKER] === waiting.step) waiting.back();
    });
  }

  /** Ends `step`: its memory events are in, Redis's follow before its marker. */
  async endStep(step: number): Promise<void> {
    await this.#unsubscribe;
    this.#memorySteps.set(step, this.#memory);
    this.#memory = new Set();
    await this.#transport.send(["PUBLISH", this.#channel, JSON.stringify({ [MARKER]: step })]);
  }

  /** The first ended step (up to `step`) whose events differ, or null; forgets them all. */
  async firstDifference(step: number, timeoutMs = 2_000): Promise<StepDifference | null> {
    if (!this.#redisSteps.has(step)) {
      const back = gate();
      this.#waiting = { step, back: () => back.open() };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`step ${step}: marker not back`)), timeoutMs);
      });
      try {
        await Promise.race([back.promise, late]);
      } finally {
        clearTimeout(timer);
        this.#waiting = null;
      }
    }
    const steps = [...this.#memorySteps.keys()].sort((a, b) => a - b);
    let found: StepDifference | null = null;
    for (const s of steps) {
      const memory = [...this.#memorySteps.get(s)!].sort();
      const redis = [...this.#redisSteps.get(s) ?? []].sort();
      if (!found && memory.join("\n") !== redis.join("\n")) found = { step: s, memory, redis };
      this.#memorySteps.delete(s);
      this.#redisSteps.delete(s);
    }
    return found;
  }

  async close(): Promise<void> {
    await (await this.#unsubscribe)();
  }
}
