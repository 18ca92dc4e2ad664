--[[
  addSchedule: stores a new recurring or cron schedule.

  KEYS[1]  key prefix `<name>:{<tag>}:` (derives schedule:<id>, schedules, schedule-ids)
  ARGV[1]  schedule id
  ARGV[2]  the schedule record as JSON (its mutable fields are kept beside it)
  ARGV[3]  nextRunAt
  ARGV[4]  skipIfRunning: "1" or "0"
  ARGV[5]  lastRunId, or ""
  ARGV[6]  lastRunAt, or ""

  Keys: schedule:<id> hash {json, nextRunAt, lastRunId, lastRunAt, skipIfRunning, order};
  schedules zset (score nextRunAt, member order(16)..id: due ones, ties in creation order);
  schedule-ids zset (score order: listing in creation order).
  Publishes schedule{id, nextRunAt}. Returns {Code.ok}, or {Code.scheduleIdInUse} when the id
  is in use.
]]
--- @include "prefix"
--- @include "seq"
--- @include "publish"

local id = ARGV[1]
local k = P .. 'schedule:' .. id
if redis.call('EXISTS', k) == 1 then return {Code.scheduleIdInUse} end
local order = nextSeq()
redis.call('HSET', k, 'json', ARGV[2], 'nextRunAt', ARGV[3], 'skipIfRunning', ARGV[4],
  'order', order)
if ARGV[5] ~= '' then redis.call('HSET', k, 'lastRunId', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', k, 'lastRunAt', ARGV[6]) end
redis.call('ZADD', P .. 'schedules', ARGV[3], seqMember(order, id))
redis.call('ZADD', P .. 'schedule-ids', order, id)
publish({kind = 'schedule', id = id, nextRunAt = tonumber(ARGV[3])})
return {Code.ok}
