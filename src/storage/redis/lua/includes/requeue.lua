--[[
  Putting a running attempt back in its queue without counting it.
]]
--- @include "tkey"
--- @include "values"
--- @include "move"
--- @include "expiry"
--- @include "task-events"

-- Handed back, stalled, or claimed by a call whose reply was lost: its attempt number is
-- restored, it keeps its queue position, and the claim's token no longer settles it.
-- `kind` is its event (stalled: its worker was lost; requeued: handed back); `fields` are
-- more to write.
local function requeue(t, now, kind, fields)
  redis.call('HDEL', tkey(t.id), 'startedAt', 'claimSeq')
  fields = fields or {}
  fields[#fields + 1] = 'attempt'
  fields[#fields + 1] = text(t.attempt - 1)
  move(t, 'queued', now, fields, true)
  taskEvent(kind, t.id, t.type, t.pool, now, t.attempt)
  retrackExpiry(t.id)
end
