--[[
  A schedule's JSON and its mutable fields, as getSchedules and setSchedulePaused answer them.
]]
--- @include "prefix"

-- {json, nextRunAt, lastRunId|"", lastRunAt|"", firedAt|"", paused "1"|"", createdAt|""},
-- or nil ("": absent; a schedule stored before named schedules has its createdAt in json).
local function readSchedule(id)
  local v = redis.call('HMGET', P .. 'schedule:' .. id, 'json', 'nextRunAt', 'lastRunId',
    'lastRunAt', 'firedAt', 'paused', 'createdAt')
  if not v[1] then return nil end
  return {v[1], v[2], v[3] or '', v[4] or '', v[5] or '', v[6] or '', v[7] or ''}
end
