--[[
  putSchedule: stores a new recurring or cron schedule, or replaces one.

  KEYS[1]  key prefix `<name>:{<tag>}:` (derives schedule:<id>, schedules, schedule-ids)
  ARGV[1]  schedule id
  ARGV[2]  the schedule record as JSON (its mutable fields are kept beside it)
  ARGV[3]  nextRunAt
  ARGV[4]  skipIfRunning: "1" or "0"
  ARGV[5]  "1": replace a schedule stored under the id; "0": such a schedule is a conflict
  ARGV[6]  createdAt (kept from the first put)

  Keys: schedule:<id> hash {json, nextRunAt, lastRunId, lastRunAt, firedAt (lastFiredAt),
  paused ("1"), skipIfRunning, order, createdAt}; schedules zset (score nextRunAt, member
  order(16)..id: the due ones, ties in creation order; a paused schedule is not in it);
  schedule-ids zset (score order: listing in creation order). A replacement keeps the hash's
  lastRunId, lastRunAt, firedAt, paused, order and createdAt.

  Publishes schedule{id, nextRunAt} unless paused. Returns {Code.ok, "created" | "replaced",
  "", paused "1" | ""},
  {Code.ok, "stale", firedAt} when a replacement's nextRunAt is not after firedAt (nothing
  changed: an occurrence fired meanwhile), {Code.idInUse} when a task has the id, or
  {Code.scheduleIdInUse} when a schedule has it and ARGV[5] is "0".
]]
--- @include "prefix"
--- @include "tkey"
--- @include "seq"
--- @include "publish"

local id, nextRunAt = ARGV[1], ARGV[3]
local k = P .. 'schedule:' .. id
if redis.call('EXISTS', tkey(id)) == 1 then return {Code.idInUse} end
local s = redis.call('HMGET', k, 'order', 'firedAt', 'paused')
local order, outcome = tonumber(s[1]), 'replaced'
if order then
  if ARGV[5] ~= '1' then return {Code.scheduleIdInUse} end
  if s[2] and tonumber(nextRunAt) <= tonumber(s[2]) then return {Code.ok, 'stale', s[2]} end
else
  order, outcome = nextSeq(), 'created'
  redis.call('HSET', k, 'order', order, 'createdAt', ARGV[6])
  redis.call('ZADD', P .. 'schedule-ids', order, id)
end
redis.call('HSET', k, 'json', ARGV[2], 'nextRunAt', nextRunAt, 'skipIfRunning', ARGV[4])
if s[3] ~= '1' then
  redis.call('ZADD', P .. 'schedules', nextRunAt, seqMember(order, id))
  publish({kind = 'schedule', id = id, nextRunAt = tonumber(nextRunAt)})
end
return {Code.ok, outcome, '', s[3] or ''}
