--[[
  Filing finished attempts: the history entry and the type's duration sample.
]]
--- @include "prefix"
--- @include "values"
--- @include "seq"
--- @include "defer"
--- @include "retention"
--- @include "json-name"

-- Files one finished attempt: its history entry (`json`, an AttemptRecord; '-' for none, the
-- type's history being sampled or off) and its duration (text, ms) among the type's samples.
-- Returns the attempt's seq as fixed-width text.
local function fileAttempt(type, json, duration, now)
  -- The member's fixed-width seq prefix doubles as its score (Redis parses it as a number).
  local hseq = string.format(SEQ_FORMAT, nextSeq())
  if json ~= '-' then defer('ZADD', P .. 'history', hseq, hseq .. json) end
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
-- endings.ts builds the same entry for completions it can vouch for); with `noEntry`, only
-- its duration.
local function recordAttempt(t, status, errorJson, now, noEntry)
  local startedAt = t.startedAt or now
  local duration = text(math.max(0, now - startedAt))
  if noEntry then return fileAttempt(t.type, '-', duration, now) end
  local json = '{"taskId":' .. name(t.id) .. ',"type":' .. name(t.type) .. ',"pool":' ..
    name(t.pool) .. ',"attempt":' .. text(t.attempt) .. ',"status":"' .. status ..
    '","error":' .. (errorJson or 'null') .. ',"startedAt":' .. text(startedAt) ..
    ',"finishedAt":' .. text(now) .. ',"durationMs":' .. duration .. ',"workerId":' ..
    name(t.workerId or '') .. '}'
  fileAttempt(t.type, json, duration, now)
end
