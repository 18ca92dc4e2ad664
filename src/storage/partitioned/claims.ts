/**
 * @module partitioned/claims — a pool's claim over every partition: fair, and free while a
 * partition has nothing.
 *
 * Claims start at the next partition in turn (per pool, every 20 ms: the claims of one
 * moment share a partition, and so do the completions that follow them, which keeps their
 * script calls as batched as on one store) and take from the partitions that may have work
 * until they have `max`, so under load every partition is drained in turn and none starves. A partition whose claim came back short is quiet for that pool, and
 * skipped, until something says it may have work again:
 * - a `ready` event of that partition for the pool (every script that queues a task
 *   publishes one, on the partition's own channel), or a `control` event (a resume, a raised
 *   limit);
 * - the time its rate limit named (`heldUntil`);
 * - the backstop: one quiet partition per `backstopMs` is tried again, the same one for every
 *   pool (so a poll of every pool is one script call), the next one each time, so a lost
 *   event costs at most `partitions × backstopMs`.
 * An idle worker's poll thus costs one script call however many partitions there are.
 * Events counted while a claim is in flight keep the partition awake, so a task queued
 * during the round trip is never skipped. A claim that fails in one partition fails whole:
 * the pool hands back a lost claim in every partition (releaseClaim), including what this
 * one took from the others.
 */
import type { ClaimParams } from "../params.ts";
import type { Claimed, ClaimedTask } from "../types.ts";

/** How long claims keep starting at one partition before the turn moves on. */
const STICK_MS = 20;

/** Why a partition is skipped for a pool: its last claim came back short. */
interface Quiet {
  /** The event counts when that claim was sent. */
  ready: number;
  control: number;
  /** That claim's `now`. */
  at: number;
  /** The pool's rate limit allows the next start then (Infinity: no hold). */
  until: number;
}

interface PoolTurn {
  /** The partition claims start at, and the period of STICK_MS it was chosen in. */
  next: number;
  period: number;
  /** `ready` events per partition. */
  ready: number[];
  quiet: (Quiet | null)[];
}

/** One partition's claim; the token it answers is already the partitioned store's. */
export type PartClaim = (part: number, p: ClaimParams) => Promise<Claimed>;

export class ClaimRouter {
  readonly #n: number;
  readonly #claim: PartClaim;
  readonly #backstopMs: number;
  readonly #pools = new Map<string, PoolTurn>();
  /** `control` events (anything that may have queued work in every pool). */
  #control = 0;
  /** The backstop's partition, and the period it was picked in. */
  #probe = -1;
  #probePeriod = -1;

  constructor(partitions: number, claim: PartClaim, backstopMs: number) {
    this.#n = partitions;
    this.#claim = claim;
    this.#backstopMs = backstopMs;
  }

  /** Partition `part` announced work in `pool`. */
  ready(part: number, pool: string): void {
    this.#turn(pool).ready[part]++;
  }

  /** Something may have queued work in every pool of every partition. */
  control(): void {
    this.#control++;
  }

  #turn(pool: string): PoolTurn {
    let turn = this.#pools.get(pool);
    if (!turn) {
      turn = {
        next: Math.floor(Math.random() * this.#n),
        period: -1,
        ready: Array(this.#n).fill(0),
        quiet: Array(this.#n).fill(null),
      };
      this.#pools.set(pool, turn);
    }
    return turn;
  }

  /** The quiet partition the backstop tries in the period of `now`. */
  #backstop(now: number): number {
    const period = Math.floor(now / this.#backstopMs);
    if (period !== this.#probePeriod) {
      this.#probePeriod = period;
      this.#probe = (this.#probe + 1) % this.#n;
    }
    return this.#probe;
  }

  #awake(turn: PoolTurn, part: number, now: number): boolean {
    const q = turn.quiet[part];
    if (!q || q.ready !== turn.ready[part] || q.control !== this.#control) return true;
    if (now < q.at || now >= q.until) return true;
    return part === this.#backstop(now) && now >= q.at + this.#backstopMs;
  }

  async claim(p: ClaimParams): Promise<Claimed> {
    const max = Math.ceil(p.max);
    const turn = this.#turn(p.pool);
    // The event that woke this pool reaches every listener in one synchronous loop; yield
    // once so it is counted before the partitions are judged, whatever the order.
    await null;
    // The turn moves on every STICK_MS, not every call: the claims of one moment (a pool's
    // two lanes, several pools) start at one partition, so their claims and completions
    // share that partition's script calls instead of splitting over every partition.
    const period = Math.floor(p.now / STICK_MS);
    if (period !== turn.period) {
      turn.period = period;
      turn.next = (turn.next + 1) % this.#n;
    }
    const start = turn.next;
    const out: ClaimedTask[] = [];
    let heldUntil = Infinity;
    for (let i = 0; i < this.#n && out.length < max; i++) {
      const part = (start + i) % this.#n;
      if (!this.#awake(turn, part, p.now)) continue;
      const sent = { ready: turn.ready[part], control: this.#control };
      const want = max - out.length;
      const tasks = await this.#claim(part, { ...p, max: want });
      out.push(...tasks);
      if (tasks.heldUntil !== undefined) heldUntil = Math.min(heldUntil, tasks.heldUntil);
      turn.quiet[part] = tasks.length < want
        ? { ...sent, at: p.now, until: tasks.heldUntil ?? Infinity }
        : null;
    }
    const claimed: Claimed = out;
    if (heldUntil !== Infinity) claimed.heldUntil = heldUntil;
    return claimed;
  }
}
