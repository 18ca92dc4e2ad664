--[[
  resubmit: queues a dead or cancelled task again under the same id.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  task id

  attempt 0; error, result, progress, startedAt, finishedAt, cancelReason and runAt cleared;
  out of the dead-letter list; its key taken again.

  Returns
    {0, record}            queued; record is the flat HGETALL list
    {-1}                   unknown task
    {-6, status}           not dead or cancelled
    {-3, key, holderId}    its key is held by another unfinished task
]]
--- @include "task"
--- @include "revive"

local now, id = tonumber(ARGV[1]), ARGV[2]
local t = load(id)
if not t then return {-1} end
local code, a, b = revive(t, now)
if code ~= 0 then return {code, a, b} end
return done({0, record(id)})
