--[[
  claim: takes queued tasks under a lease (batched claim), for one or more pools at once.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:` (derives the ready lists, leases, ...: includes/prefix.lua)
  ARGV     one or more claims of 5 entries each, applied in order:
    ARGV[i]      now (epoch ms)
    ARGV[i + 1]  pool
    ARGV[i + 2]  max (>= 1)
    ARGV[i + 3]  workerId
    ARGV[i + 4]  leaseMs

  One call serves the claims of several pools issued in the same tick (src/storage/redis/
  claims.ts), so an idle worker's backstop poll costs one command however many pools it has.
  Nothing is claimed for a pool while it or every pool (`*`) is paused. Highest priority
  first, FIFO among equals. A task past its expiresAt is never started: it ends `expired`
  (includes/expire.lua). A task whose flow key is at its limit, or that sorts behind parked
  tasks of its key, is parked (includes/flow-claim.lua) and the scan goes on, at most
  FLOW_SCAN_EXTRA past `max`. Each task becomes running with attempt + 1, startedAt = now,
  progress cleared, the error of the previous attempt kept, and a lease until now + leaseMs.

  Cluster-wide limits (control hash, setPoolLimits-1.lua) cap the take: `global:<pool>`
  minus the pool's `running` count, and `rate:<pool>` ("<max>/<perMs>") minus the starts
  logged in starts:<pool> after now - perMs (later ones too: a peer's call with a later now
  may have run first). The log is trimmed here to its newest max entries (bounded: older
  entries can never matter again), and each claimed task adds its start (score now, member
  its token). The claim's list may end with one integer after the tasks: when the worker
  should claim again (now: the scan hit its bound or unparked tasks; later: the pool's rate
  limit or a rate-parked key allows the next start then).

  Returns one list per claim, in ARGV order, of the claimed tasks, each as the values of
  CLAIMED_FIELDS (nil for an absent field) with the id in place of status, the new attempt
  in place of the old, and the claim's token (its claimSeq, which every settle of this
  attempt must present) in place of progress: a claimed task is decoded by position
  (CLAIMED_FIELDS comes from src/storage/redis/claims.ts), which halves the reply and spares
  the worker one field-name string per value. The fields the claim itself sets (status,
  pool, startedAt, workerId, progress) are not sent back. The fields after CLAIMED_FIRST
  are written only by attempts: they are read (a second HMGET) only for a task that has an
  attempt field, so a first attempt's list ends with its token.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "values"
--- @include "chunked"
--- @include "bump"
--- @include "pools"
--- @include "done"
--- @include "flow-claim"
--- @include "flow-state"
--- @include "flow-unpark"
--- @include "expire"
--- @include "start-log"
--- @include "task-events"
--- @include "seq"
--- @include "ready"

-- CLAIMED_FIELDS are read before the task is marked running; the id, new attempt and token
-- then replace `status`, `attempt` and `progress` (cleared by the claim).
local STATUS, ATTEMPT, PROGRESS = CLAIMED_AT.status, CLAIMED_AT.attempt, CLAIMED_AT.progress
local FK, PRIORITY, BODY = CLAIMED_AT.fk, CLAIMED_AT.priority, CLAIMED_AT.body
local EXPIRES_AT, TYPE, SEQ = CLAIMED_AT.expiresAt, CLAIMED_AT.type, CLAIMED_AT.seq

-- The rate limit's tokens left at `now` ("<max>/<perMs>"), after trimming its start log.
local function rateTokens(starts, rate, now)
  local rateMax, per = string.match(rate, '^(%d+)/(%d+)$')
  rateMax, per = tonumber(rateMax), tonumber(per)
  return logTokens(starts, rateMax, per, now), rateMax, per
end

-- A candidate of a flow key at its limit, or queued behind parked tasks of its key (FIFO
-- within a key), is parked instead of claimed. The scan stops FLOW_SCAN_EXTRA past `max`;
-- the wake it answers asks the worker to claim again (now: more may be claimable).
local function take(now, pool, max, workerId, leaseUntil)
  if max <= 0 then return {}, flowArmed() end
  local levels = readyLevels(pool)
  local budget = max + FLOW_SCAN_EXTRA
  local at = tonumber(now)
  -- heads: per flow key, the first of its parked tasks ({score, member}, false: none).
  -- picked: the values of each task taken, its id in place of its status (as the reply has
  -- it); quickly: the positions in picked of tasks whose flow key took its slot quickly.
  local picked, quickly, heads, unpark, rateParked = {}, {}, {}, {}, {}
  local expiryDue = anyExpiryDue(now)
  local scanned, dropped, want, exhausted = 0, 0, max, false
  -- Each read takes the front of the highest priority's list: `max` candidates first; only
  -- a parked or an expired candidate, or an entry left behind (its task no longer queued:
  -- dropped, counted apart, at most READY_DROP_BOUND), makes it read on (what was read is
  -- out of the list by then). An expiry that queued a task in the pool (an onFailureOf
  -- child, a callback) ends the read: that task may have a higher priority than the rest of
  -- it, which stays in the list for the next.
  while #picked < max and scanned < budget and dropped < READY_DROP_BOUND do
    local top = redis.call('ZRANGE', levels, '0', '0')
    if #top == 0 then
      exhausted = true
      break
    end
    local priority = tonumber(top[1])
    local asked = math.min(want, budget - scanned, READY_DROP_BOUND - dropped)
    local batch, fromFront = readyRead(pool, priority, asked)
    local values = {}
    for i = 1, #batch do
      values[i] = redis.call('HMGET', tkey(string.sub(batch[i], SEQ_WIDTH + 1)),
        unpack(CLAIMED_FIELDS, 1, CLAIMED_FIRST))
    end
    local used, reread = 0, false
    for i = 1, #batch do
      if #picked >= max or reread then break end
      local member = batch[i]
      local id = string.sub(member, SEQ_WIDTH + 1)
      used = used + 1
      local v = values[i]
      if not readyCurrent(v[STATUS], v[SEQ], member) then
        -- Left behind: its task was cancelled, expired, or queued again since.
        dropped = dropped + 1
        v = nil
      else
        scanned = scanned + 1
        -- Never starts a task past its expiry: it ends expired instead (in the scan's budget).
        if expiryDue and expiredBy(v[EXPIRES_AT], at) then
          queuedIn[pool] = nil
          expireTask(load(id), at)
          v = nil
          reread = queuedIn[pool]
        end
      end
      if v then
        local fk = v[FK]
        local room, why, behind = 1, nil, false
        local score = -(tonumber(v[PRIORITY]) or 0)
        -- Most keys have room: one INCRBY takes it. The rest take the full path.
        local quick = fk and flowQuickTake(fk)
        if fk and not quick then
          local f = flowOf(fk)
          flowRestore(fk, f, v[BODY], at)
          if heads[fk] == nil then heads[fk] = f.parked > 0 and parkedHead(fk) end
          room, why = flowRoom(fk, f, at)
          behind = sortsAfter(score, member, heads[fk])
          -- Older parked tasks of the key go first: they are unparked, this one parks.
          if room > 0 and behind then unpark[fk] = true end
        end
        if quick then
          v[STATUS] = id
          picked[#picked + 1] = v
          quickly[#picked] = true
        elseif room > 0 and not behind then
          if fk then flowTake(fk, flowOf(fk)) end
          v[STATUS] = id
          picked[#picked + 1] = v
        else
          if why == 'rate' then rateParked[fk] = true end
          park(id, fk, pool, text(score), member, why or 'parallelism')
          if not behind then heads[fk] = {score, member} end
        end
      end
    end
    -- The entries used leave; a priority whose entries were all read and used leaves the
    -- pool's levels (unless the read ended on a task queued meanwhile: the next read sees).
    readyDrop(pool, priority, used, fromFront)
    if used == #batch and #batch < asked and not reread then redis.call('ZREM', levels, top[1]) end
    -- Entries left behind: read on in reads as long as the budget allows.
    want = dropped > 0 and budget - scanned or math.max(max - #picked, 16)
  end
  -- The picked leave the pool's queued count (before readyAny below asks it).
  bump(QUEUEDN, pool, -#picked)
  -- When to claim again: at once (more may be claimable), or when a rate-parked key's next
  -- token frees (the worker's own timer: sooner than the wheel's tick).
  local wake = nil
  if #picked < max and not exhausted and readyAny(pool) then wake = at end
  for fk in pairs(unpark) do
    unparkFlow(fk, at)
    wake = at
  end
  for fk in pairs(rateParked) do flowWakeAt(fk, flowNextToken(fk, flowOf(fk), at)) end
  -- The keys this claim parked, unparked or took tokens of: their next wake is ours too.
  local armed = flowArmed()
  if armed and (not wake or armed < wake) then wake = armed end
  if #picked == 0 then return {}, wake end
  local out, leases = {}, {}
  local claimSeq = seqRange(#picked) - 1
  for i = 1, #picked do
    local v = picked[i]
    local id = v[STATUS]
    local k = tkey(id)
    local attempt, token = (tonumber(v[ATTEMPT]) or 0) + 1, text(claimSeq + i)
    local attemptText = text(attempt)
    -- Progress, error and stalls are written by attempts: a first one has none of them.
    if v[ATTEMPT] then
      local later = redis.call('HMGET', k, unpack(CLAIMED_FIELDS, CLAIMED_FIRST + 1))
      for j = 1, #later do v[CLAIMED_FIRST + j] = later[j] end
    end
    redis.call('HSET', k, 'status', 'running', 'attempt', attemptText, 'startedAt', now,
      'workerId', workerId, 'claimSeq', token)
    if v[PROGRESS] then redis.call('HDEL', k, 'progress') end
    taskEvent('started', id, v[TYPE], pool, now, attemptText)
    if v[FK] and not quickly[i] then flowLog(v[FK], flowOf(v[FK]), at, token) end
    leases[#leases + 1] = leaseUntil
    leases[#leases + 1] = id
    v[ATTEMPT], v[PROGRESS] = attempt, token
    out[#out + 1] = v
  end
  -- One ZADD for the batch: every redis.call from Lua has a fixed cost.
  callChunked('ZADD', P .. 'leases', leases)
  bump(COUNTS, 'queued', -#out)
  bump(COUNTS, 'running', #out)
  bump(P .. 'running', pool, #out)
  usePool(pool)
  return out, wake
end

-- The claimed tasks, then when the worker should claim again, if take says (see take).
local function held(out, wake)
  if wake then out[#out + 1] = wake end
  return out
end

local function claim(now, pool, max, workerId, leaseUntil)
  flowArmed()
  flowDue(tonumber(now))
  local c = redis.call('HMGET', P .. 'control', 'paused:*', 'paused:' .. pool, 'global:' .. pool,
    'rate:' .. pool)
  if c[1] == '1' or c[2] == '1' then return {} end
  if not (c[3] or c[4]) then return held(take(now, pool, max, workerId, leaseUntil)) end
  if c[3] then
    -- Counters are written by done(): an earlier claim of this call is still only in BUMPS.
    local claimedHere = (BUMPS[P .. 'running'] or {})[pool] or 0
    local running = (tonumber(redis.call('HGET', P .. 'running', pool)) or 0) + claimedHere
    max = math.min(max, tonumber(c[3]) - running)
  end
  if not c[4] then return held(take(now, pool, max, workerId, leaseUntil)) end
  local starts, at = P .. 'starts:' .. pool, tonumber(now)
  local tokens, rateMax, per = rateTokens(starts, c[4], at)
  local rateBound = tokens < max
  local out, wake = take(now, pool, math.min(max, tokens), workerId, leaseUntil)
  if #out > 0 then
    local log = {}
    for i = 1, #out do
      log[#log + 1] = now
      log[#log + 1] = out[i][PROGRESS]
    end
    callChunked('ZADD', starts, log)
  end
  if rateBound and (not wake or wake > at) and
      readyAny(pool) and logCount(starts, per, at) >= rateMax then
    local next = logNextAt(starts, per, at)
    if not wake or next < wake then wake = next end
  end
  return held(out, wake)
end

local replies = {}
for i = 1, #ARGV, 5 do
  replies[#replies + 1] = claim(ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3],
    text(tonumber(ARGV[i]) + tonumber(ARGV[i + 4])))
end
flowFlush()
return done(replies)
