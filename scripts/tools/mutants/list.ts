/**
 * @module mutants — the curated mutants of the mutation gate (scripts/tools/mutants/run.ts): each
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
    file: "src/worker/instance.ts",
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
    file: "src/storage/redis/lua/includes/move.lua",
    find: "if INDEXED_STATUSES[status] then redis.call('ZADD',",
    replace: "if INDEXED_STATUSES[status] and status ~= 'dead' then redis.call('ZADD',",
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
    file: "src/storage/memory/moves.ts",
    find: "  requeue(row: Row, now: number): void {\n    row.attempt--;",
    replace: "  requeue(row: Row, now: number): void {\n    row.attempt -= 0;",
    tests: [MEMORY],
    filter: "cannot renew",
  },
  {
    id: "stall-to-back-of-queue",
    why: "a recovered task goes back ahead of later work of its priority",
    file: "src/storage/redis/lua/includes/requeue.lua",
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
    file: "src/storage/memory/moves.ts",
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
    file: "scripts/tools/lua-bundle.ts",
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
  // Signatures of http tasks.
  {
    id: "signature-constant",
    why: "an http task's request carries a real HMAC of its timestamp and body",
    file: "src/worker/http-task.ts",
    find:
      'headers.set("skedulr-signature", `v1=${await sign(await key, `${timestamp}.${body ?? ""}`)}`);',
    replace: 'headers.set("skedulr-signature", `v1=${"0".repeat(64)}`);',
    tests: ["test/unit/http-signature.test.ts"],
  },
  {
    id: "verify-accepts-anything",
    why: "verifySignature refuses a tampered, wrongly keyed or stale signature",
    file: "src/worker/http-task.ts",
    find: "  if (!m) return false;",
    replace: "  if (!m || m) return true;",
    tests: ["test/unit/http-signature.test.ts"],
  },
  // Graceful shutdown.
  {
    id: "drain-aborts-at-once",
    why: "SIGTERM lets running handlers finish and stores their results",
    file: "scripts/entry/boot.ts",
    find: "await scheduler.shutdown({ timeoutMs: config.shutdownTimeoutMs });",
    replace: "await scheduler.shutdown({ timeoutMs: 0 });",
    tests: ["test/e2e/worker-drain.test.ts"],
  },
  // Auth, CSRF, Host check, roles, login limits, body limits.
  {
    id: "any-bearer-accepted",
    why: "a wrong token or key is refused (401)",
    file: "routes/credentials.ts",
    find: "if (diff === 0) found = c;",
    replace: "if (diff === 0 || diff !== 0) found = c;",
    tests: ["test/unit/api-auth.test.ts"],
    filter: "401 without a token",
  },
  {
    id: "cross-site-as-same",
    why: "a cross-site cookie-borne change is refused (CSRF)",
    file: "routes/auth.ts",
    find: '  if (site === "cross-site" || site === "same-site") return "cross";',
    replace: "",
    tests: ["test/unit/api-auth.test.ts"],
    filter: "same-origin",
  },
  {
    id: "any-host-served",
    why: "without a credential only loopback Host names are served (DNS rebinding)",
    file: "routes/host-check.ts",
    find: "  return allowed.includes(host.name) ||",
    replace: "  return true ||",
    tests: ["test/unit/api-host-check.test.ts"],
  },
  {
    id: "every-role-admin",
    why: "a key's role limits what it may do (403 naming the role)",
    file: "routes/credentials.ts",
    find: "return API_ROLES.indexOf(have) >= API_ROLES.indexOf(need);",
    replace: "return API_ROLES.indexOf(have) >= 0;",
    tests: ["test/unit/api-roles.test.ts"],
    filter: "read reads",
  },
  {
    id: "no-login-limit",
    why: "failed logins are limited per client address",
    file: "routes/login-limit.ts",
    find: "  if (allowed) return;",
    replace: "  if (allowed || !allowed) return;",
    tests: ["test/unit/api-login-limit.test.ts"],
    filter: "300 wrong logins",
  },
  {
    id: "no-body-limit",
    why: "a body over the limit is refused with 413 as it streams in",
    file: "routes/body.ts",
    find: "    if (size > maxBytes) {",
    replace: "    if (size > maxBytes * 1000) {",
    tests: ["test/unit/api-errors.test.ts"],
    filter: "413",
  },
  // Outbound policy, redaction, input bounds.
  {
    id: "internal-targets-allowed",
    why: "http tasks may not call loopback, private or metadata addresses",
    file: "src/core/outbound-policy.ts",
    find: "  for (const { range, why } of REFUSED_RANGES) if (inRange(address, range)) return why;",
    replace: "",
    tests: ["test/unit/outbound-policy.test.ts"],
  },
  {
    id: "header-values-shown",
    why: "header values of http tasks are shown as redacted",
    file: "src/core/secret-headers.ts",
    find: "  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));",
    replace: "  return headers;",
    tests: ["test/unit/http-task-secrets.test.ts"],
  },
  {
    id: "no-min-interval",
    why: "`every` and cron have a minimum interval",
    file: "src/core/task-schema.ts",
    find: "  const minMs = bounds.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;",
    replace: "  const minMs = 0 * (bounds.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS);",
    tests: ["test/unit/bounds.test.ts"],
    filter: "every",
  },
  // The dashboard.
  {
    id: "dashboard-type-filter-empties",
    why: "the dashboard's type filter shows exactly the tasks of that type",
    file: "routes/dashboard/client/paged-list.ts",
    find: "type: f.type, pool: f.pool, q: f.q, limit: 25,",
    replace: 'type: f.type && f.type + "-x", pool: f.pool, q: f.q, limit: 25,',
    // The whole file: its tests build on each other's tasks, so one alone fails either way.
    tests: ["test/browser/dashboard.test.ts"],
  },
  // Start commands, process managers and the way in.
  {
    id: "npm-script-no-exec",
    why: "SIGINT (and SIGTERM) to `npm run worker` reach the worker",
    file: "package.json",
    find: '"worker": "exec bun scripts/entry/worker.ts"',
    replace: '"worker": "bun scripts/entry/worker.ts"',
    tests: ["test/e2e/start-commands.test.ts"],
    filter: "npm run worker: healthz, one task, SIGINT",
  },
  {
    id: "orphan-after-wrapper",
    why: "a worker whose npm or npx wrapper is gone drains and exits, never an orphan",
    file: "scripts/entry/parent-watch.ts",
    find: '    process.kill(process.pid, "SIGTERM");',
    replace: "    void 0;",
    tests: ["test/e2e/start-commands.test.ts"],
    filter: "SIGKILL to npm",
  },
  {
    id: "healthz-rest-says-redis",
    why: "healthz names the transport: redis-rest over REST",
    file: "src/storage/redis/rest-transport.ts",
    find: '  readonly protocol = "redis-rest";',
    replace: '  readonly protocol = "redis" as "redis" | "redis-rest";',
    tests: ["test/unit/api-index.test.ts"],
    filter: "redis-rest",
  },
  {
    id: "api-index-no-role",
    why: "the API index needs the read role, like the docs it links to",
    file: "routes/app.ts",
    find: 'api.get("/", role("read"), apiIndex(app, openApi, version));',
    replace: 'api.get("/", apiIndex(app, openApi, version));',
    tests: ["test/unit/api-index.test.ts"],
    filter: "needs the read role",
  },
  // One event path.
  {
    id: "own-write-events-wait-for-pubsub",
    why: "a write's events reach the store's own subscribers at once, not after a pub/sub hop",
    file: "src/storage/redis/queue.ts",
    find: "    this.#events.local(insertedEvents(records));",
    replace: "    void insertedEvents;",
    tests: [REDIS],
    filter: "before the call returns",
  },
  {
    id: "api-node-holds-timers",
    why: "a Scheduler that only submits (an API node) arms no timers",
    file: "src/worker/instance.ts",
    find: "    for (const [name, size] of Object.entries(o.pools)) this.#pool(name, size);",
    replace: "    for (const [name, size] of Object.entries(o.pools)) this.#pool(name, size);\n" +
      "    storage.subscribe((event) => this.#onEvent(event));",
    tests: ["test/unit/api-node-timers.test.ts"],
  },
  // One source of truth between TypeScript and Lua.
  {
    id: "layout-guard-off",
    why: "every script refuses a store in a layout it was not built for",
    file: "src/storage/redis/lua/includes/prefix.lua",
    find: "  if found ~= LAYOUT then",
    replace: "  if false then",
    tests: ["test/unit/redis-layout.test.ts"],
    filter: "refuses a newer layout",
  },
  {
    id: "batch-index-internal",
    why: "batch errors name the caller's index, not the store's parents-first order",
    file: "src/core/submission.ts",
    find: "    const i = callerOf.get(task.id) ?? 0;",
    replace: "    const i = m ? Number(m[1]) : 0;",
    tests: [MEMORY],
    filter: "names the caller's index",
  },
];
