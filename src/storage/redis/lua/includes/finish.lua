--[[
  Ending attempts and tasks: history, duration samples, workflow settling, retention, and
  done(), the end of every script that changed tasks. Included by task.lua.
]]
-- Scripts that finish tasks set these from their ARGV; the default keeps everything.
local RETENTION = {maxAgeMs = math.huge, maxCount = math.huge}
local NOW = 0
local recorded, finishedAny, sampledTypes = false, false, {}

-- Appends one finished attempt to history and its duration to the type's samples.
-- Names (ids, types, pools) normally hold only [A-Za-z0-9_.:-] and need no escaping; a
-- cheap scan decides, cjson escapes the rest.
local function name(s)
  if string.find(s, '[^%w_.:%-]') then return cjson.encode(s) end
  return '"' .. s .. '"'
end

-- Files one finished attempt: its history entry (`json`, an AttemptRecord) and its duration
-- (text, ms) among the type's samples. Returns the entry's seq as fixed-width text.
local function fileAttempt(type, json, duration, now)
  -- The member's fixed-width seq prefix doubles as its score (Redis parses it as a number).
  local hseq = string.format('%016d', nextSeq())
  defer('ZADD', P .. 'history', hseq, hseq .. json)
  if not sampledTypes[type] then
    sampledTypes[type] = true
    redis.call('ZADD', P .. 'types', 'NX', hseq, type)
  end
  defer('LPUSH', P .. 'durations:' .. type, duration)
  recorded = true
  if now > NOW then NOW = now end
  return hseq
end

-- Records the attempt of running task t that ended now in `status` (src/storage/redis/
-- endings.ts builds the same entry for completions it can vouch for).
local function recordAttempt(t, status, errorJson, now)
  local startedAt = t.startedAt or now
  local duration = text(math.max(0, now - startedAt))
  local json = '{"taskId":' .. name(t.id) .. ',"type":' .. name(t.type) .. ',"pool":' ..
    name(t.pool) .. ',"attempt":' .. text(t.attempt) .. ',"status":"' .. status ..
    '","error":' .. (errorJson or 'null') .. ',"startedAt":' .. text(startedAt) ..
    ',"finishedAt":' .. text(now) .. ',"durationMs":' .. duration .. ',"workerId":' ..
    name(t.workerId or '') .. '}'
  fileAttempt(t.type, json, duration, now)
end

-- History retention: the newest maxCount attempts, none older than maxAgeMs.
local function trimHistory(now)
  local h = P .. 'history'
  local excess = redis.call('ZCARD', h) - RETENTION.maxCount
  if excess > 0 then redis.call('ZREMRANGEBYRANK', h, 0, excess - 1) end
  -- Oldest first, a bounded number per call (later calls continue).
  for _ = 1, 1000 do
    local oldest = redis.call('ZRANGE', h, 0, 0)[1]
    if not oldest then break end
    local at = tonumber(string.match(oldest, '"finishedAt":(%-?%d+)'))
    if not at or now - at <= RETENTION.maxAgeMs then break end
    redis.call('ZREMRANGEBYRANK', h, 0, 0)
  end
  for type in pairs(sampledTypes) do
    redis.call('LTRIM', P .. 'durations:' .. type, 0, DURATION_SAMPLES - 1)
  end
end

-- Deletes finished (succeeded/cancelled) rows beyond maxCount or older than maxAgeMs,
-- oldest finished first; dead rows are kept. Bounded per call (1000 rows). Once retention
-- is full every finished task evicts one row, so the rows of one call are removed with one
-- ZREM per index and one DEL: per-row calls made this the costliest part of completing.
local FINISHED_STATUS = {s = 'succeeded', c = 'cancelled'}

local function pruneFinished(now)
  local f = P .. 'finished'
  local size = redis.call('ZCARD', f)
  local members, ids, dels = {}, {}, {}
  local function drop(member)
    local id, status = string.sub(member, 2), FINISHED_STATUS[string.sub(member, 1, 1)]
    members[#members + 1] = member
    ids[#ids + 1] = id
    dels[#dels + 1] = tkey(id)
    dels[#dels + 1] = P .. 'children:' .. id
    bump(P .. 'counts', status, -1)
    if INDEXED[status] then redis.call('ZREM', P .. 'status:' .. status, id) end
  end
  -- Rows beyond maxCount go whatever their age.
  local excess = math.min(size - RETENTION.maxCount, 1000)
  if excess > 0 then
    for _, member in ipairs(redis.call('ZRANGE', f, 0, excess - 1)) do drop(member) end
  end
  -- Then rows past maxAgeMs, oldest first, until the first younger one.
  while #ids < 1000 and #ids < size do
    local member = redis.call('ZRANGE', f, #ids, #ids)[1]
    local finishedAt = num(redis.call('HGET', tkey(string.sub(member, 2)), 'finishedAt'))
    if now - (finishedAt or now) <= RETENTION.maxAgeMs then break end
    drop(member)
  end
  if #ids == 0 then return end
  redis.call('ZREM', f, unpack(members))
  redis.call('ZREM', P .. 'all', unpack(ids))
  redis.call('DEL', unpack(dels))
end

local persistCascades

-- Ends a script that changed tasks: applies retention and writes the summed counters.
local function done(reply)
  flushDeferred()
  persistCascades()
  if finishedAny then pruneFinished(NOW) end
  if recorded then trimHistory(NOW) end
  for key, h in pairs(BUMPS) do
    for field, delta in pairs(h) do
      if delta ~= 0 then redis.call('HINCRBY', key, field, delta) end
    end
  end
  BUMPS = {}
  return reply
end

-- Whether a parent that ended in `status` satisfies condition `cond` ('s'|'f').
local function outcome(cond, status)
  if status == 'succeeded' then return cond == 's' and 'met' or 'broken' end
  if status == 'dead' then return cond == 'f' and 'met' or 'broken' end
  if status == 'cancelled' then return 'broken' end
  return nil
end

-- Workflow cascades. Ending a task settles its waiting children: a met condition queues
-- (or schedules) a child, a broken one cancels it, which settles its own children, and so
-- on. A call settles at most CASCADE_BUDGET children, breadth first (no recursion, so no
-- depth limit); the rest waits in the `cascades` list for continueCascades(). A parent with
-- unsettled children leaves the finished index meanwhile, so row retention cannot delete
-- the children list the cascade still reads. Each entry: {parentId, status, offset,
-- fromList}.
local CASCADE_BUDGET = 1000
local cascadeQueue, cascadeHead, cascadeBudget, draining = {}, 1, CASCADE_BUDGET, false
local INITIAL = {succeeded = 's', dead = 'd', cancelled = 'c'}
local FROM_INITIAL = {s = 'succeeded', d = 'dead', c = 'cancelled'}
local drainCascades

-- Ends a task in a final status: releases its key and lease, then settles its workflow
-- children (bounded, see above). Row retention runs in done().
local function finish(t, status, now, fields)
  fields = fields or {}
  fields[#fields + 1] = 'finishedAt'
  fields[#fields + 1] = text(now)
  if t.key and redis.call('HGET', P .. 'keys', t.key) == t.id then
    redis.call('HDEL', P .. 'keys', t.key)
  end
  move(t, status, now, fields)
  finishedAny = true
  if now > NOW then NOW = now end
  if t.children then cascadeQueue[#cascadeQueue + 1] = {t.id, status, 0, false} end
  if not draining then drainCascades(now) end
end

-- Settles one child entry ("<s|f><childId>") of a parent that ended in `status`.
local function settleChild(entry, parentId, status, now)
  local child = load(string.sub(entry, 2))
  if not child or child.status ~= 'waiting' then return end
  local o = outcome(string.sub(entry, 1, 1), status)
  if o == 'broken' then
    finish(child, 'cancelled', now, {'cancelReason', 'parent ' .. parentId .. ' ended ' .. status})
  elseif o == 'met' and redis.call('HINCRBY', tkey(child.id), 'pending', -1) == 0 then
    if child.runAt and child.runAt > now then
      move(child, 'scheduled', now)
    else
      move(child, 'queued', now)
    end
  end
end

drainCascades = function(now)
  draining = true
  while cascadeHead <= #cascadeQueue and cascadeBudget > 0 do
    local e = cascadeQueue[cascadeHead]
    local want = cascadeBudget
    local entries = redis.call('LRANGE', P .. 'children:' .. e[1], e[3], e[3] + want - 1)
    cascadeBudget = cascadeBudget - #entries
    for _, entry in ipairs(entries) do settleChild(entry, e[1], e[2], now) end
    if #entries < want then
      cascadeHead = cascadeHead + 1
      -- Settled now: a parent taken from the list may be pruned again.
      if e[4] and e[2] ~= 'dead' then
        redis.call('ZADD', P .. 'finished', text(nextSeq()), INITIAL[e[2]] .. e[1])
      end
    else
      e[3] = e[3] + #entries
    end
  end
  draining = false
end

-- Takes up to `limit` deferred cascades from the list and settles what the budget allows.
local function continueCascades(now, limit)
  local list = P .. 'cascades'
  local entries = redis.call('LRANGE', list, 0, limit - 1)
  if #entries == 0 then return 0 end
  redis.call('LTRIM', list, #entries, -1)
  for _, entry in ipairs(entries) do
    local status, offset, parent = string.match(entry, '^(%a)(%d+):(.*)$')
    cascadeQueue[#cascadeQueue + 1] = {parent, FROM_INITIAL[status], tonumber(offset), true}
  end
  if now > NOW then NOW = now end
  local before = cascadeBudget
  drainCascades(now)
  return before - cascadeBudget
end

-- Saves the cascades this call could not finish (done() calls it before row retention).
persistCascades = function()
  if cascadeHead > #cascadeQueue then return end
  local list, entries = P .. 'cascades', {}
  for i = cascadeHead, #cascadeQueue do
    local e = cascadeQueue[i]
    entries[#entries + 1] = INITIAL[e[2]] .. text(e[3]) .. ':' .. e[1]
    if not e[4] and e[2] ~= 'dead' then
      redis.call('ZREM', P .. 'finished', INITIAL[e[2]] .. e[1])
    end
  end
  callChunked('RPUSH', list, entries)
  cascadeQueue, cascadeHead = {}, 1
  publish({kind = 'cascade'})
end

-- Ends a failed attempt whose error is t.error (JSON; stored here) and which the caller
-- counted: retrying in the delayed set at retryAt, or dead (dead-letter list, key
-- released, children settled).
local function failTask(t, retryAt, now)
  if retryAt then
    recordAttempt(t, 'retrying', t.error, now)
    t.runAt = retryAt
    move(t, 'retrying', now, {'runAt', retryAt, 'error', t.error})
    return 'retrying'
  end
  recordAttempt(t, 'dead', t.error, now)
  finish(t, 'dead', now, {'error', t.error})
  bump(P .. 'totals', 'dead', 1)
  return 'dead'
end
