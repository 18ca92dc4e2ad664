--[[
  Ending attempts and tasks: history, duration samples, workflow settling, retention, and
  done(), the end of every script that changed tasks. Included by task.lua.
]]
local function jsonString(s)
  if s == nil then return 'null' end
  return cjson.encode(s)
end

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

-- Ends a script that changed tasks: applies retention and writes the summed counters.
local function done(reply)
  flushDeferred()
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

-- Ends a task in a final status: releases its key and lease, then settles its workflow
-- children depth-first (a broken condition cancels the child and, through it, its own
-- children). Row retention runs in done().
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
  if not t.children then return end
  for _, entry in ipairs(redis.call('LRANGE', P .. 'children:' .. t.id, 0, -1)) do
    local child = load(string.sub(entry, 2))
    if child and child.status == 'waiting' then
      local o = outcome(string.sub(entry, 1, 1), status)
      if o == 'broken' then
        finish(child, 'cancelled', now, {'cancelReason', 'parent ' .. t.id .. ' ended ' .. status})
      elseif o == 'met' and redis.call('HINCRBY', tkey(child.id), 'pending', -1) == 0 then
        if child.runAt and child.runAt > now then
          move(child, 'scheduled', now)
        else
          move(child, 'queued', now)
        end
      end
    end
  end
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
