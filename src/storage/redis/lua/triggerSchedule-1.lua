--[[
  triggerSchedule: one run of a schedule now, outside its cadence (nextRunAt unchanged).

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  schedule id
  ARGV[3..] the run to enqueue, encoded as in includes/insert.lua

  Inserts the run and makes it the schedule's last run (lastRunId, lastRunAt = now).
  Returns 1, or 0 when the schedule is unknown (nothing stored).
]]
--- @include "prefix"
--- @include "insert"
--- @include "done"

local now, id = tonumber(ARGV[1]), ARGV[2]
local k = P .. 'schedule:' .. id
if redis.call('EXISTS', k) == 0 then return 0 end
local run = readTask(ARGV, 3)
insertTask(run, now)
redis.call('HSET', k, 'lastRunId', run.id, 'lastRunAt', ARGV[1])
return done(1)
