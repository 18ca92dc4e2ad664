--[[
  fireSchedule: fires one occurrence of a schedule, exactly once across instances.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  schedule id
  ARGV[3]  occurrenceAt: the nextRunAt the caller saw (compare-and-set)
  ARGV[4]  the following nextRunAt
  ARGV[5]  firedAt: the latest occurrence this firing stands for (lastFiredAt)
  ARGV[6..] the run to enqueue, encoded as in includes/insert.lua; none: skip (catch-up)

  Only when the schedule is not paused and its nextRunAt still equals occurrenceAt: moves
  nextRunAt (publishing schedule{id, nextRunAt}) and firedAt; then, unless there is no run or
  skipIfRunning and the last run is unfinished, inserts the run and records lastRunId /
  lastRunAt = firedAt.

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
local s = redis.call('HMGET', k, 'nextRunAt', 'order', 'skipIfRunning', 'lastRunId', 'paused')
if not s[1] or s[5] == '1' or tonumber(s[1]) ~= tonumber(ARGV[3]) then return {0} end
local member = seqMember(tonumber(s[2]), id)
redis.call('HSET', k, 'nextRunAt', ARGV[4], 'firedAt', ARGV[5])
redis.call('ZADD', P .. 'schedules', ARGV[4], member)
publish({kind = 'schedule', id = id, nextRunAt = tonumber(ARGV[4])})
if #ARGV < 6 then return {1} end
if s[3] == '1' and s[4] then
  local last = redis.call('HGET', tkey(s[4]), 'status')
  if last and not FINAL_STATUSES[last] then return {1} end
end
local run = readTask(ARGV, 6)
insertTask(run, now)
redis.call('HSET', k, 'lastRunId', run.id, 'lastRunAt', ARGV[5])
return done({1, run.id})
