--[[
  getSchedules: schedules with their current mutable fields.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV     schedule ids; none means every schedule in creation order

  Returns one entry per schedule found: {json, nextRunAt, lastRunId|false, lastRunAt|false}.
]]
--- @include "prefix"

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', P .. 'schedule-ids', 0, -1) end
local out = {}
for _, id in ipairs(ids) do
  local v = redis.call('HMGET', P .. 'schedule:' .. id, 'json', 'nextRunAt', 'lastRunId',
    'lastRunAt')
  if v[1] then out[#out + 1] = {v[1], v[2], v[3] or '', v[4] or ''} end
end
return out
