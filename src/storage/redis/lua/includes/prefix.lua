--[[
  The key prefix and the layout guard: every script includes this, directly or through the
  helpers it uses, and never reads KEYS itself.

  Every key derives from KEYS[1], the prefix `<name>:{<tag>}:`. Its hash tag puts every
  derived key in the same Redis Cluster slot as KEYS[1], so each script stays single-slot.
  The key layout (mirrored by src/storage/redis/keys.ts; its version is LAYOUT):

    meta             hash    events: present ("off") when the deployment records no task
                             events;
                             layout: the layout version (absent on a prefix written before
                             versions: UNVERSIONED_LAYOUT; stamped by the first call on a
                             store that never held a task); see docs/UPGRADING.md
    task:<id>        hash    the task record, absent field = null, except pool (absent =
                             DEFAULT_POOL), priority, attempt and maxRetries (absent = 0),
                             left out at those defaults; the id is the key's (hashes of
                             layout 1 and 2 hold id and the defaults). The fields scripts use
                             (type, pool, priority, maxRetries, key, runAt, status,
                             attempt, startedAt, finishedAt, workerId, progress, result,
                             error, cancelReason, expiresAt, fk: the flow key, wf: waitingFor
                             while parked; a null result is not stored), `payload`
                             (JSON), `body` (JSON of the fields only TypeScript reads:
                             createdAt, timeoutMs, backoff, scheduleId, dependsOn,
                             onSuccessOf, onFailureOf; just the createdAt number when
                             the others are at their defaults: values.lua bodyTable), and
                             bookkeeping: order (creation seq), seq (queue/delay position),
                             pending (parents unfinished), children ("1" once it has any),
                             claimSeq (the running claim's seq: claim order for lease
                             recovery, and the fencing token every settle must present),
                             stalls (attempts lost with their worker; absent = 0),
                             lb, lf, lw, lm (its log: includes/task-logs.lua)
                             cb (its callback: "<initials of on>:<pool>", the spec itself
                             in body; includes/callback.lua), cbn (callbacks made for it
                             and ids skipped); a callback task's body carries `snapshot`,
                             the ended task's hash as includes/record.lua gives it
    children:<id>    list    "<s|f><childId>": a waiting child and the outcome it needs
    logs:<id>        list    the task's log lines (JSON), oldest first, at most
                             MAX_TASK_LOG_LINES and MAX_TASK_LOG_BYTES; their bytes and
                             counts are the task's lb, lf, lw and lm fields
                             (includes/task-logs.lua); deleted with the row
    al:<n>           list    every task's id (listings, newest first), in buckets of
                             INDEX_BUCKET orders (n = floor(order / INDEX_BUCKET)), oldest
                             first (includes/index-buckets.lua)
    alb              zset    the buckets of `al` that hold a task, score = member = n
    counts           hash    status -> number of tasks in it
    status:<status>  zset    score = order, for INDEXED_STATUSES only (the rare ones);
                             status:dead is the dead-letter list; status:expired the
                             expired tasks (kept like dead ones, never pruned)
    rl:<prio>:<pool> list    queued tasks of one priority, oldest first, member =
                             seq(SEQ_WIDTH)..id; entries of tasks that left `queued` stay
                             until a claim drops them (includes/ready.lua)
    rf:<prio>:<pool> zset    tasks going back to their place (handed back, unparked),
                             score = seq, member as in rl; a claim reads it first
    rlv:<pool>       zset    the priorities with an rl or rf key, score = -priority
    queuedn          hash    pool -> its queued tasks that are not parked
    delayed          zset    scheduled/retrying tasks, score = runAt, member = seq..id
    expiries         zset    tasks with an expiresAt that may expire before they start,
                             score = expiresAt, member = id (includes/expiry.lua): added on
                             insert and whenever one goes back to wait; read and removed by
                             expireDue and the claim, so entries of started or finished
                             tasks are dropped lazily (at most MAX_EXPIRY_MS after insert)
    leases           zset    running tasks, score = lease expiry, member = id
    retained         stream  succeeded/cancelled tasks in finishing order (row retention,
                             includes/retained.lua), entry `<seq>-0` (the finishing seq,
                             kept in the row's `seq`), field m = status initial
                             (s|c)..order..':'..id, so pruning reads no row
    keys             hash    dedup key -> id of the unfinished task holding it
    dedupe:<key>     string  "<expiresAt>:<id>": the task the first submit with `dedupe.key`
                             stored; a hit while expiresAt > now (the callers' clock), and
                             collected by its TTL (dedupe.ttl + SUBMIT_KEY_GRACE_MS); outlives
                             the task's row
    debounce:<key>   string  "<firstAt>:<id>": the burst of submits with `debounce.key` and
                             its task, a hit while that task is scheduled and now < its
                             runAt; collected by its TTL (runAt - now + SUBMIT_KEY_GRACE_MS)
    cascades         list    workflow cascades left for a later call (finish.lua),
                             "<status initial><offset>:<parentId>"
    seq              string  the one monotonic counter (order, seq, claimSeq, history)
    stat-pools       zset    pools that ever had queued/running work, score = first use
    running          hash    pool -> running count
    flow:<key>       string  a flow key's running count, parallelism limit and flags
                             packed in one integer (includes/flow-state.lua)
    flowl:<key>      string  a flow key's limits "par|rate|per" (the latest submit's)
    flowkeys         zset    flow key -> its last submit; keys idle a day are forgotten
    flowstarts:<key> zset    a rate-limited flow key's recent starts (score = start, member =
                             claim token), trimmed to its newest `rate`
    parked:<key>     zset    a flow key's queued tasks held back by its limit, score =
                             -priority, member as in rl:<prio>:<pool>
    flowparked       hash    pool -> its parked tasks (counted as queued)
    flowwakes        zset    flow key -> when its next rate token frees (claims take due ones);
                             mirrored by a member `<16 zeros>~<key>` of `delayed` (promoteDue)
    starts:<pool>    zset    a rate-limited pool's recent starts (claim-1.lua), score = start
                             time (the claimer's now), member = claim token; trimmed by the
                             claim to its newest `max`; deleted with the
                             limit
    totals           hash    succeeded / failedAttempts / dead / stalled / expired
    attempts         stream  finished attempts (includes/attempts.lua), entry `<seq>-0`
                             (the history seq), field a = the attempt as text
                             (src/storage/redis/attempt-codec.ts; a JSON array before
                             layout 5); trimmed by history retention (includes/retention.lua)
    types            zset    task types with duration samples, score = first use
    durations:<type> list    latest duration samples (ms), newest first, DURATION_SAMPLES
    events           channel pub/sub (PUBLISH), JSON events
    tevents          stream  task events, one entry per batch (includes/task-events.lua),
                             id `<n>-0`, field e = the batch's events as text; about
                             TASK_EVENT_BUFFER kept
    tevents          channel each batch's number n, published after its entry
    tevseq           string  the last batch number
  Schedules, pool controls (control: size:, paused:, global:<pool> = n and
  rate:<pool> = "<max>/<perMs>", absent = no limit: setPoolLimits-1.lua), instances and rate
  limits: see their scripts' headers.
]]
--- @include "facts"

local P = KEYS[1] --- @per-call
-- The counters most transitions bump, named once per call rather than once per task.
local COUNTS, QUEUEDN = P .. 'counts', P .. 'queuedn' --- @per-call

-- The deployment records no task events (meta has `events`, set by a node started with
-- them off: src/storage/redis/task-events.ts); read with the layout, so it costs no command.
local EVENTS_OFF = false --- @per-call

-- A script built for one layout refuses a store in another before it reads or writes
-- anything: a node of an older release never misreads or damages a migrated store.
-- A store with neither a stamp nor a seq counter has never held a task: it is stamped with
-- this code's layout on its first call, so a deployment that never runs init() (the
-- Cloudflare Worker alone) still gets one.
--- @per-call-begin
do
  local meta = redis.call('HMGET', P .. 'meta', 'layout', 'events')
  local found = meta[1]
  EVENTS_OFF = meta[2] ~= nil and meta[2] ~= false
  if not found then
    if redis.call('EXISTS', P .. 'seq') == 0 then
      redis.call('HSET', P .. 'meta', 'layout', LAYOUT)
      found = LAYOUT
    else
      found = UNVERSIONED_LAYOUT
    end
  end
  if found ~= LAYOUT then
    local advice = 'upgrade this node to a release that speaks layout ' .. found
    if (tonumber(found) or 0) < tonumber(LAYOUT) then
      advice = 'migrate the store first: init() of a node of this release does'
    end
    return redis.error_reply(LAYOUT_ERROR .. ' storage layout ' .. found .. ' found in ' .. P ..
      'meta, this code speaks layout ' .. LAYOUT .. ': ' .. advice .. ' (docs/UPGRADING.md)')
  end
end
--- @per-call-end
