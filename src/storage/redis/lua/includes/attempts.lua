--[[
  Filing finished attempts: the history entry and the type's duration sample.
]]
--- @include "prefix"
--- @include "values"
--- @include "seq"
--- @include "defer"
--- @include "retention"
--- @include "json-name"

-- Files one finished attempt: its history entry (`json`, src/storage/redis/attempt-codec.ts:
-- an AttemptRecord's values as a JSON array; '-' for none, the type's history being sampled
-- or off) and its duration (text, ms) among the type's samples. Returns the attempt's seq.
local function fileAttempt(type, json, duration, now)
  local seq = nextSeq()
  -- pcall: an entry someone wrote ahead of the counter must never fail the transition.
  if json ~= '-' then redis.pcall('XADD', P .. 'attempts', text(seq) .. '-0', 'a', json) end
  if not sampledTypes[type] then
    sampledTypes[type] = true
    redis.call('ZADD', P .. 'types', 'NX', text(seq), type)
  end
  defer('LPUSH', P .. 'durations:' .. type, duration)
  recorded = true
  if now > NOW then NOW = now end
  return seq
end

-- Records the attempt of running task t that ended now in `status` (src/storage/redis/
-- endings.ts builds the same entry for completions it can vouch for); with `noEntry`, only
-- its duration.
local function recordAttempt(t, status, errorJson, now, noEntry)
  local startedAt = t.startedAt or now
  local duration = text(math.max(0, now - startedAt))
  if noEntry then return fileAttempt(t.type, '-', duration, now) end
  -- In ATTEMPT_FIELDS order (taskId, type, pool, attempt, status, error, startedAt,
  -- finishedAt, durationMs, workerId).
  local json = '[' .. name(t.id) .. ',' .. name(t.type) .. ',' .. name(t.pool) .. ',' ..
    text(t.attempt) .. ',"' .. status .. '",' .. (errorJson or 'null') .. ',' ..
    text(startedAt) .. ',' .. text(now) .. ',' .. duration .. ',' .. name(t.workerId or '') .. ']'
  fileAttempt(t.type, json, duration, now)
end
