--[[
  getSchedules: schedules with their current mutable fields.

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV     schedule ids; none means every schedule in creation order

  Returns one entry per schedule found, as includes/schedule-read.lua reads it.
]]
--- @include "prefix"
--- @include "schedule-read"

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', P .. 'schedule-ids', 0, -1) end
local out = {}
for _, id in ipairs(ids) do
  local s = readSchedule(id)
  if s then out[#out + 1] = s end
end
return out
