--[[
  fireSchedule: fires one occurrence of a schedule, exactly once across instances.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  schedule id
  ARGV[3]  occurrenceAt: the nextRunAt the caller saw (compare-and-set)
  ARGV[4]  the following nextRunAt
  ARGV[5..] the run to enqueue, encoded as in includes/insert.lua

  Only when the schedule's nextRunAt still equals occurrenceAt: moves nextRunAt (publishing
  schedule{id, nextRunAt}); then, unless skipIfRunning and the last run is unfinished,
  inserts the run and records lastRunId / lastRunAt = occurrenceAt.

  Returns {0} not fired (unknown, or another instance fired it), {1} fired but skipped,
  {1, runId} fired and enqueued.
]]
--- @include "prefix"
--- @include "tkey"
--- @include "seq"
--- @include "publish"
--- @include "insert"
--- @include "done"

local now, id = tonumber(ARGV[1]), ARGV[2]
local k = P .. 'schedule:' .. id
local s = redis.call('HMGET', k, 'nextRunAt', 'order', 'skipIfRunning', 'lastRunId')
if not s[1] or tonumber(s[1]) ~= tonumber(ARGV[3]) then return {0} end
local member = seqMember(tonumber(s[2]), id)
redis.call('HSET', k, 'nextRunAt', ARGV[4])
redis.call('ZADD', P .. 'schedules', ARGV[4], member)
publish({kind = 'schedule', id = id, nextRunAt = tonumber(ARGV[4])})
if s[3] == '1' and s[4] then
  local last = redis.call('HGET', tkey(s[4]), 'status')
  if last and not FINAL_STATUSES[last] then return {1} end
end
local run = readTask(ARGV, 5)
insertTask(run, now)
redis.call('HSET', k, 'lastRunId', run.id, 'lastRunAt', ARGV[3])
return done({1, run.id})
