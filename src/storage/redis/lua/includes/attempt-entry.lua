--[[
  Reading history entries (written by includes/attempts.lua; the format is
  src/storage/redis/attempt-codec.ts's).
]]
--- @include "facts"

-- The values of history entry `entry` by ATTEMPT_AT; the worker id and error (the entry's
-- JSON tail) only `withTail`. Entries written before layout 5 are a JSON array.
local function attemptValues(entry, withTail)
  if string.sub(entry, 1, 1) == '[' then return cjson.decode(entry) end
  local v, from = {}, 1
  for i = 1, 8 do
    local bar = string.find(entry, '|', from, true)
    v[i] = string.sub(entry, from, bar - 1)
    from = bar + 1
  end
  local startedAt = tonumber(v[6])
  local a = {}
  a[ATTEMPT_AT.taskId], a[ATTEMPT_AT.type], a[ATTEMPT_AT.attempt] = v[1], v[2], tonumber(v[4])
  a[ATTEMPT_AT.pool] = v[3] == '' and DEFAULT_POOL or v[3]
  a[ATTEMPT_AT.status] = v[5] == '' and 'succeeded' or v[5]
  a[ATTEMPT_AT.startedAt], a[ATTEMPT_AT.finishedAt] = startedAt, startedAt + tonumber(v[7])
  a[ATTEMPT_AT.durationMs] = tonumber(v[8])
  if withTail then
    local tail = cjson.decode('[' .. string.sub(entry, from) .. ']')
    a[ATTEMPT_AT.workerId], a[ATTEMPT_AT.error] = tail[1], tail[2]
  end
  return a
end
