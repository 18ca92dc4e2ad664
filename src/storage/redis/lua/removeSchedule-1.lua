--[[
  removeSchedule: deletes a schedule so it never fires again.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  schedule id

  Returns 1 when removed, 0 when unknown.
]]
--- @include "prefix"
--- @include "seq"

local id = ARGV[1]
local k = P .. 'schedule:' .. id
local order = redis.call('HGET', k, 'order')
if not order then return 0 end
redis.call('DEL', k)
redis.call('ZREM', P .. 'schedules', seqMember(tonumber(order), id))
redis.call('ZREM', P .. 'schedule-ids', id)
return 1
