--[[
  Filing finished attempts: the history entry and the type's duration sample.
]]
--- @include "prefix"
--- @include "values"
--- @include "seq"
--- @include "defer"
--- @include "retention"
--- @include "json-name"

-- Files one finished attempt: its history entry (`entry`, src/storage/redis/attempt-codec.ts;
-- '-' for none, the type's history being sampled or off) and its duration (text, ms) among
-- the type's samples. Returns the attempt's seq.
local function fileAttempt(type, entry, duration, now)
  local seq = nextSeq()
  -- pcall: an entry someone wrote ahead of the counter must never fail the transition.
  if entry ~= '-' then redis.pcall('XADD', P .. 'attempts', text(seq) .. '-0', 'a', entry) end
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
  -- taskId|type|pool|attempt|status|startedAt|finishedAt - startedAt|durationMs|tail
  -- (attempt-codec.ts): the default pool and `succeeded` empty, the tail JSON.
  local tail = name(t.workerId or '')
  if errorJson then tail = tail .. ',' .. errorJson end
  local entry = t.id .. '|' .. t.type .. '|' .. (t.pool == DEFAULT_POOL and '' or t.pool) ..
    '|' .. text(t.attempt) .. '|' .. (status == 'succeeded' and '' or status) .. '|' ..
    text(startedAt) .. '|' .. text(now - startedAt) .. '|' .. duration .. '|' .. tail
  fileAttempt(t.type, entry, duration, now)
end
