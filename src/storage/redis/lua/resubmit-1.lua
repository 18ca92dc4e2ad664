--[[
  resubmit: queues a dead, cancelled or expired task again under the same id.

  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  task id

  attempt 0; error, result, progress, startedAt, finishedAt, cancelReason, runAt and
  expiresAt cleared (out of the expiry index);
  out of the dead-letter list; its key taken again.

  Returns
    {Code.ok, record}              queued; record is the flat HGETALL list
    {Code.notFound}                unknown task
    {Code.wrongStatus, status}     not dead, cancelled or expired
    {Code.keyHeld, key, holderId}  its key is held by another unfinished task
]]
--- @include "load"
--- @include "record"
--- @include "revive"
--- @include "done"

local now, id = tonumber(ARGV[1]), ARGV[2]
local t = load(id)
if not t then return {Code.notFound} end
local code, a, b = revive(t, now)
if code ~= Code.ok then return {code, a, b} end
return done({Code.ok, record(id)})
