--[[
  setSchedulePaused: pauses a schedule (nothing fires) or resumes it (due again at its
  stored nextRunAt, so occurrences missed meanwhile follow its catchUp).

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:` (schedule:<id>, schedules: see putSchedule-1.lua)
  ARGV[1]  schedule id
  ARGV[2]  "1" pause, "0" resume

  Publishes schedule{id, nextRunAt} on a resume. Returns the schedule as getSchedules-1.lua
  gives each, or {} when unknown.
]]
--- @include "prefix"
--- @include "seq"
--- @include "publish"
--- @include "schedule-read"

local id = ARGV[1]
local k = P .. 'schedule:' .. id
local s = redis.call('HMGET', k, 'order', 'nextRunAt', 'paused')
if not s[1] then return {} end
local member = seqMember(tonumber(s[1]), id)
if ARGV[2] == '1' then
  redis.call('HSET', k, 'paused', '1')
  redis.call('ZREM', P .. 'schedules', member)
elseif s[3] == '1' then
  redis.call('HDEL', k, 'paused')
  redis.call('ZADD', P .. 'schedules', s[2], member)
  publish({kind = 'schedule', id = id, nextRunAt = tonumber(s[2])})
end
return readSchedule(id)
