/**
 * @module mutants — the curated mutants of the mutation gate (scripts/mutants/run.ts): each
 * breaks one promise the product makes, and names the tests that must catch it. A change
 * that adds a promise (reliability, flow control, partitions, …) adds its mutants here.
 */

export interface Mutant {
  id: string;
  /** The promise it breaks, shown in the gate's report. */
  why: string;
  file: string;
  /** Text found exactly once in `file`, and what it becomes. */
  find: string;
  replace: string;
  /** Test files to run, and an optional `-t` name filter. */
  tests: string[];
  filter?: string;
}

const MEMORY = "test/conformance/memory.test.ts";
const REDIS = "test/conformance/redis.test.ts";

export const MUTANTS: Mutant[] = [
  // Cancel and abort.
  {
    id: "cancel-no-abort",
    why: "a cancelled running task's handler is told to stop",
    file: "src/worker/runtime.ts",
    find: 'this.running.get(event.id)?.abort(new AbortReason("cancelled", "task cancelled"));',
    replace: "void event;",
    tests: [MEMORY],
    filter: "cancelling a running task",
  },
  // Retries, back-off and jitter.
  {
    id: "retry-ignores-backoff",
    why: "a retry waits out the task's back-off and jitter",
    file: "src/worker/outcome.ts",
    find: "retryAt = now + (Number.isFinite(delay)",
    replace: "retryAt = now + 0 * (Number.isFinite(delay)",
    tests: [MEMORY],
    filter: "jitter",
  },
  {
    id: "backoff-no-jitter",
    why: "jitter spreads retries",
    file: "src/core/backoff.ts",
    find: "const spread = raw * policy.jitter * (2 * random() - 1);",
    replace: "const spread = 0 * random();",
    tests: [MEMORY],
    filter: "jitter",
  },
  {
    id: "dead-not-in-dlq",
    why: "a task that fails maxRetries + 1 times is in the dead-letter list",
    file: "src/storage/redis/lua/includes/task.lua",
    find: "local INDEXED = {waiting = true, dead = true, cancelled = true}",
    replace: "local INDEXED = {waiting = true, cancelled = true}",
    tests: [REDIS],
    filter: "after maxRetries",
  },
  {
    id: "resubmit-keeps-attempts",
    why: "resubmit queues a dead task again with its attempts reset",
    file: "src/storage/redis/lua/includes/revive.lua",
    find: "move(t, 'queued', now, {'attempt', 0})",
    replace: "move(t, 'queued', now)",
    tests: [REDIS],
    filter: "resubmit of a dead task",
  },
  // Lease recovery: a lost worker is a stall, never a failure; fencing.
  {
    id: "stall-never-dead",
    why: "a task that keeps losing its worker dies past maxStalls",
    file: "src/storage/redis/lua/recoverExpired-1.lua",
    find: "if stalls > maxStalls then",
    replace: "if stalls > maxStalls + 100 then",
    tests: [REDIS],
    filter: "past maxStalls",
  },
  {
    id: "stall-spends-attempt",
    why: "a stalled attempt spends no retry",
    file: "src/storage/memory/memory-storage.ts",
    find: "  #requeue(row: Row, now: number): void {\n    row.attempt--;",
    replace: "  #requeue(row: Row, now: number): void {\n    row.attempt -= 0;",
    tests: [MEMORY],
    filter: "cannot renew",
  },
  {
    id: "stall-to-back-of-queue",
    why: "a recovered task goes back ahead of later work of its priority",
    file: "src/storage/redis/lua/includes/task.lua",
    find: "move(t, 'queued', now, fields, true)",
    replace: "move(t, 'queued', now, fields, false)",
    tests: [REDIS],
    filter: "fencing",
  },
  {
    id: "fencing-complete-redis",
    why: "a completion of an earlier claim is refused",
    file: "src/storage/redis/lua/complete-1.lua",
    find: "if v[1] == 'running' and v[2] == workerId and v[7] == token then",
    replace: "if v[1] == 'running' and v[2] == workerId then",
    tests: [REDIS],
    filter: "fencing",
  },
  {
    id: "fencing-memory",
    why: "a settle of an earlier claim is refused (embedded store)",
    file: "src/storage/memory/memory-storage.ts",
    find:
      'return row && row.status === "running" && row.workerId === lease.workerId &&\n        row.claimSeq === lease.token',
    replace: 'return row && row.status === "running" && row.workerId === lease.workerId',
    tests: [MEMORY],
    filter: "fencing",
  },
  {
    id: "lease-never-expires-locally",
    why: "a worker that cannot renew stops its handler when the lease runs out",
    file: "src/worker/lease-keeper.ts",
    find: "if (!attempt.ended && attempt.leaseUntil <= now) {",
    replace: "if (!attempt.ended && attempt.leaseUntil <= now - 1e12) {",
    tests: [MEMORY],
    filter: "cannot renew",
  },
  {
    id: "failed-renewal-aborts",
    why: "a renewal that fails for less than a lease aborts nothing",
    file: "src/worker/lease-keeper.ts",
    find: "      this.#failing = true;\n",
    replace:
      '      this.#failing = true;\n      for (const a of attempts) a.abort(new AbortReason("lease-lost", "x"));\n',
    tests: [MEMORY],
    filter: "cannot renew",
  },
  {
    id: "settle-not-retried",
    why: "a completion whose reply was lost is retried",
    file: "src/worker/outcome.ts",
    find:
      "call().catch((error) => retryAfter(error, call, () => retrying(deps, what, task.id, now)));",
    replace: "call().catch(() => undefined);",
    tests: [MEMORY],
    filter: "reply was lost",
  },
  {
    id: "lost-claim-stranded",
    why: "a claim whose reply was lost strands nothing",
    file: "src/worker/pool.ts",
    find: "    if (isStorageFault(error)) {\n      withRetries(",
    replace: "    if (isStorageFault(error) && Math.random() > 2) {\n      withRetries(",
    tests: [MEMORY],
    filter: "claim whose reply",
  },
  {
    id: "oom-refuses-completion",
    why: "a full Redis refuses submits but not completions (allow-oom)",
    file: "scripts/gen-lua.ts",
    find: 'const shebang = flags.length ? `#!lua flags=${flags.join(",")}\\n` : "";',
    replace: 'const shebang = "";',
    tests: ["test/unit/redis-oom.test.ts"],
  },
  {
    id: "full-not-a-fault",
    why: "an OOM reply is a `full` storage fault (503), not an internal error",
    file: "src/storage/redis/faults.ts",
    find: '  OOM: "full",',
    replace: "",
    tests: ["test/unit/redis-oom.test.ts"],
  },
  // Bounded cascades.
  {
    id: "cascade-not-continued",
    why: "a cascade left unfinished is continued (no child waits forever)",
    file: "src/storage/redis/lua/recoverExpired-1.lua",
    find: "if redis.call('EXISTS', P .. 'cascades') == 1 then continueCascades(now, 100) end",
    replace: "",
    tests: [REDIS],
    filter: "2,500-deep chain",
  },
  {
    id: "cascade-parent-pruned",
    why: "a deferred parent is kept out of row retention until its children are settled",
    file: "src/storage/redis/lua/includes/finish.lua",
    find: "      redis.call('ZREM', P .. 'finished', INITIAL[e[2]] .. e[1])",
    replace: "      local _ = e",
    tests: [REDIS],
    filter: "1,500 children",
  },
  // Exactly-once promotion, never early; cron.
  {
    id: "promote-early",
    why: "delayed work never runs early",
    file: "src/storage/redis/lua/promoteDue-1.lua",
    find: "redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', now,",
    replace: "redis.call('ZRANGEBYSCORE', P .. 'delayed', '-inf', now + 1000,",
    tests: [REDIS],
    filter: "never before",
  },
  {
    id: "cron-no-compare-and-set",
    why: "a cron occurrence fires once across instances",
    file: "src/storage/redis/lua/fireSchedule-1.lua",
    find: "if not s[1] or tonumber(s[1]) ~= tonumber(ARGV[3]) then return {0} end",
    replace: "if not s[1] then return {0} end",
    tests: ["test/e2e/redis-cluster.test.ts"],
    filter: "cron",
  },
  // Priority order and pool limits.
  {
    id: "priority-reversed-memory",
    why: "higher priority runs first",
    file: "src/storage/memory/task-table.ts",
    find: "a.priority !== b.priority ? a.priority > b.priority : a.seq < b.seq;",
    replace: "a.priority !== b.priority ? a.priority < b.priority : a.seq < b.seq;",
    tests: [MEMORY],
    filter: "higher priority first",
  },
  {
    id: "priority-reversed-redis",
    why: "higher priority runs first (Redis)",
    file: "src/storage/redis/lua/claim-1.lua",
    find: "local popped = redis.call('ZRANGE', ready, 0, max - 1)",
    replace: "local popped = redis.call('ZRANGE', ready, 0, max - 1, 'REV')",
    tests: [REDIS],
    filter: "higher priority first",
  },
  {
    id: "pool-over-size",
    why: "a pool never runs more than its size",
    file: "src/worker/pool.ts",
    find: "const free = this.#slots(lane) - lane.active;",
    replace: "const free = this.#slots(lane) - lane.active + 3;",
    tests: [MEMORY],
    filter: "never exceeds a pool's size",
  },
  // Durations.
  {
    id: "long-timer-fires-at-once",
    why: "a timeout beyond 2^31-1 ms does not fire at once",
    file: "src/core/clock.ts",
    find: "if (ms >= 0 && ms <= maxChunkMs) return set(fn, ms);",
    replace: "if (ms >= 0) return set(fn, Math.min(ms, 1));",
    tests: ["test/unit/durations.test.ts"],
  },
  // Transports never resend on their own.
  {
    id: "ioredis-resends",
    why: "a client never resends a command whose reply was lost",
    file: "src/adapters/redis-ioredis.ts",
    find:
      "autoResendUnfulfilledCommands: false,\n      // 0 makes every lost connection reject what was in flight at once; null or a higher\n      // number would keep those commands waiting (unresolved) across reconnects.\n      maxRetriesPerRequest: 0,",
    replace: "autoResendUnfulfilledCommands: true,\n      maxRetriesPerRequest: null,",
    tests: ["test/unit/transport-faults.test.ts"],
    filter: "ioredis",
  },
  // The HTTP API during an outage.
  {
    id: "no-request-deadline",
    why: "a request whose store hangs answers 503 within the deadline",
    file: "routes/deadline.ts",
    find: "await Promise.race([next(), expired]);",
    replace: "await next();",
    tests: ["test/unit/api-outage.test.ts"],
    filter: "paused",
  },
];
