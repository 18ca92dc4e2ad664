--[[
  getSchedules: schedules with their current mutable fields.

  FLAGS allow-oom      (a read: a full Redis still answers it; as a function, a script
                       without flags would be refused there as a possible writer)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV     schedule ids; or "", an exclusive lower bound of creation order ("-inf" to start,
           "(<order>" to go on) and a page size: the next page in creation order

  Returns one entry per schedule found, as includes/schedule-read.lua reads it; a page ends
  with the order to go on from ("" once it was the last). Listing every schedule takes a
  call per page, so no call reads a number of schedules users decide.
]]
--- @include "prefix"
--- @include "schedule-read"

local out = {}
if ARGV[1] == '' and #ARGV == 3 then
  local size = tonumber(ARGV[3])
  local page = redis.call('ZRANGEBYSCORE', P .. 'schedule-ids', ARGV[2], '+inf', 'WITHSCORES',
    'LIMIT', '0', ARGV[3])
  for i = 1, #page, 2 do
    local s = readSchedule(page[i])
    if s then out[#out + 1] = s end
  end
  out[#out + 1] = #page == 2 * size and page[#page] or ''
  return out
end
for _, id in ipairs(ARGV) do
  local s = readSchedule(id)
  if s then out[#out + 1] = s end
end
return out
