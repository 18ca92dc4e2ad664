--[[
  cancel: cancels an unfinished task.

  FLAGS allow-oom      (runs above maxmemory: a full Redis must not refuse it)
  KEYS[1]  key prefix `<name>:{<tag>}:`
  ARGV[1]  now (epoch ms)
  ARGV[2]  task id
  ARGV[3]  reason
  ARGV[4]  history maxAgeMs (row retention)
  ARGV[5]  history maxCount

  A running task's attempt is recorded in history as `cancelled`, with the reason as error.
  The task leaves its queue, the delayed set or its lease; finishedAt and cancelReason are
  set, its key released and its workflow children settled. A running task's owner learns
  through a `cancel` event (and loses the lease at its next renewal).

  Returns
    {Code.ok, record}          cancelled; record is the flat HGETALL list after the change
    {Code.notFound}            unknown task
    {Code.wrongStatus, status} already finished (one of FINAL_STATUSES)
]]
--- @include "load"
--- @include "publish"
--- @include "record"
--- @include "attempts"
--- @include "finish"
--- @include "done"

local now, id = tonumber(ARGV[1]), ARGV[2]
RETENTION.maxAgeMs, RETENTION.maxCount = tonumber(ARGV[4]), tonumber(ARGV[5])

local t = load(id)
if not t then return {Code.notFound} end
if FINAL_STATUSES[t.status] then return {Code.wrongStatus, t.status} end
local wasRunning = t.status == 'running'
-- A running attempt ends here: history keeps it, with the reason as its error.
if wasRunning then recordAttempt(t, 'cancelled', cjson.encode({message = ARGV[3]}), now) end
finish(t, 'cancelled', now, {'cancelReason', ARGV[3]})
if wasRunning then publish({kind = 'cancel', id = id}) end
-- The record as cancelled, read before retention may delete the row.
return done({Code.ok, record(id)})
